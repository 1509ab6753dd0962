#include "io/hf/hf_cache.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <system_error>

namespace strata::io {

namespace fs = std::filesystem;

namespace {

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

/** "models--ORG--NAME" → "ORG/NAME" (huggingface_hub's repo_folder_name, reversed). */
std::string repoIdOf(const std::string& folderName) {
  std::string rest = folderName.substr(std::string("models--").size());
  std::string id;
  for (std::size_t i = 0; i < rest.size(); ++i) {
    if (rest.compare(i, 2, "--") == 0) {
      id += '/';
      ++i;
    } else {
      id += rest[i];
    }
  }
  return id;
}

std::string mainRevision(const fs::path& repo) {
  std::ifstream in(repo / "refs" / "main");
  std::string revision;
  std::getline(in, revision);
  while (!revision.empty() && (revision.back() == '\n' || revision.back() == ' '))
    revision.pop_back();
  return revision;
}

}  // namespace

fs::path huggingFaceHubFolder() {
  if (const std::string cache = environment("HF_HUB_CACHE"); !cache.empty()) return cache;
  if (const std::string home = environment("HF_HOME"); !home.empty()) return fs::path(home) / "hub";
  const std::string home = environment("HOME");
  return fs::path(home.empty() ? "/tmp" : home) / ".cache" / "huggingface" / "hub";
}

std::vector<HfCachedModel> listHuggingFaceCache(const fs::path& hub) {
  std::vector<HfCachedModel> models;
  std::error_code error;
  for (fs::directory_iterator repos(hub, error), end; !error && repos != end;
       repos.increment(error)) {
    const std::string name = repos->path().filename().string();
    if (!name.starts_with("models--") || !repos->is_directory(error)) continue;
    const std::string repoId = repoIdOf(name);
    const std::string main = mainRevision(repos->path());
    std::error_code snapshotError;
    for (fs::directory_iterator snapshots(repos->path() / "snapshots", snapshotError);
         !snapshotError && snapshots != end; snapshots.increment(snapshotError)) {
      const fs::path snapshot = snapshots->path();
      const std::string revision = snapshot.filename().string();
      std::error_code fileError;
      // is_regular_file follows the links into blobs/: a dangling link (a blob deleted by
      // `huggingface-cli delete-cache`) is not a model.
      if (fs::is_regular_file(snapshot / "config.json", fileError))
        models.push_back({repoId, revision, revision == main, snapshot});
      for (fs::directory_iterator files(snapshot, fileError); !fileError && files != end;
           files.increment(fileError))
        if (files->path().extension() == ".gguf" && fs::is_regular_file(files->path(), fileError))
          models.push_back({repoId, revision, revision == main, files->path()});
    }
  }
  std::sort(models.begin(), models.end(), [](const HfCachedModel& a, const HfCachedModel& b) {
    if (a.repoId != b.repoId) return a.repoId < b.repoId;
    if (a.isMain != b.isMain) return a.isMain;
    return a.path < b.path;
  });
  return models;
}

}  // namespace strata::io
