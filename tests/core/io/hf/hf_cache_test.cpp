// The Hugging Face cache listing (core/io/hf/hf_cache.h) on a cache laid out as huggingface_hub
// lays it out: blobs, snapshot files that are relative links into them, refs/main.

#include "io/hf/hf_cache.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "support/temp_dir.h"

namespace strata::io {

namespace {

namespace fs = std::filesystem;

/** Adds `file` with `text` to snapshot `revision` of `repoFolder` as huggingface_hub does: the
 *  bytes in blobs/<name>, the snapshot entry a relative link to it. */
void addFile(const fs::path& repoFolder, const std::string& revision, const std::string& file,
             const std::string& text) {
  const std::string blob = "blob-" + revision + "-" + file;
  fs::create_directories(repoFolder / "blobs");
  std::ofstream(repoFolder / "blobs" / blob) << text;
  const fs::path snapshot = repoFolder / "snapshots" / revision;
  fs::create_directories(snapshot);
  fs::create_symlink(fs::path("../../blobs") / blob, snapshot / file);
}

TEST(HfCache, ListsEverySnapshotWithAConfigAndEveryGgufFileMainFirst) {
  TempDir dir;
  const fs::path hub = dir.path() / "hub";
  const fs::path smol = hub / "models--HuggingFaceTB--SmolLM2-135M";
  addFile(smol, "aaa111", "config.json", "{}");
  addFile(smol, "aaa111", "model.safetensors", "x");
  addFile(smol, "bbb222", "config.json", "{}");
  fs::create_directories(smol / "refs");
  std::ofstream(smol / "refs" / "main") << "bbb222";
  const fs::path gguf = hub / "models--bartowski--Qwen2-0.5B-GGUF";
  addFile(gguf, "ccc333", "Qwen2-0.5B-Q4_K_M.gguf", "GGUF");
  addFile(hub / "models--gpt2", "ddd444", "config.json", "{}");
  // Not models: a dataset, a partial download without config.json, a deleted blob.
  addFile(hub / "datasets--wikitext", "eee555", "config.json", "{}");
  addFile(hub / "models--org--partial", "fff666", "model.safetensors", "x");
  addFile(hub / "models--org--deleted", "ggg777", "config.json", "{}");
  fs::remove(hub / "models--org--deleted" / "blobs" / "blob-ggg777-config.json");

  const auto models = listHuggingFaceCache(hub);
  ASSERT_EQ(models.size(), 4u);
  EXPECT_EQ(models[0].repoId, "HuggingFaceTB/SmolLM2-135M");
  EXPECT_EQ(models[0].revision, "bbb222");  // refs/main's revision comes first
  EXPECT_TRUE(models[0].isMain);
  EXPECT_EQ(models[0].path, smol / "snapshots" / "bbb222");
  EXPECT_EQ(models[1].revision, "aaa111");
  EXPECT_FALSE(models[1].isMain);
  EXPECT_EQ(models[2].repoId, "bartowski/Qwen2-0.5B-GGUF");
  EXPECT_EQ(models[2].path.filename(), "Qwen2-0.5B-Q4_K_M.gguf");
  EXPECT_EQ(models[3].repoId, "gpt2");
}

TEST(HfCache, FindsTheHubThroughHfHubCacheThenHfHome) {
  ::setenv("HF_HUB_CACHE", "/somewhere/hub-cache", 1);
  ::setenv("HF_HOME", "/somewhere/home", 1);
  EXPECT_EQ(huggingFaceHubFolder(), fs::path("/somewhere/hub-cache"));
  ::unsetenv("HF_HUB_CACHE");
  EXPECT_EQ(huggingFaceHubFolder(), fs::path("/somewhere/home/hub"));
  ::unsetenv("HF_HOME");
  EXPECT_EQ(huggingFaceHubFolder().filename(), "hub");
  EXPECT_TRUE(listHuggingFaceCache("/no/such/hub").empty());
}

}  // namespace
}  // namespace strata::io
