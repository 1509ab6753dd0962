#pragma once
// The models already in the user's Hugging Face cache, as huggingface_hub lays it out:
//
//   <hub>/models--ORG--NAME/refs/main              the commit the "main" branch points to
//   <hub>/models--ORG--NAME/snapshots/<commit>/…   the files of that commit (links into blobs/)
//   <hub>/models--ORG--NAME/blobs/<hash>
//
// <hub> is $HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub. File ▸ Open Model
// lists what this finds; nothing is downloaded, nothing is written.

#include <filesystem>
#include <string>
#include <vector>

namespace strata::io {

struct HfCachedModel {
  std::string repoId;    ///< "HuggingFaceTB/SmolLM2-135M" ("gpt2" for a repository without org)
  std::string revision;  ///< the snapshot's commit hash
  bool isMain = false;   ///< refs/main names this snapshot
  std::filesystem::path path;  ///< the snapshot folder (config.json) or a .gguf file inside it
};

/** <hub> above (whether or not it exists). */
std::filesystem::path huggingFaceHubFolder();

/**
 * Every model in `hub`: each snapshot that holds a config.json (a model folder), and each .gguf
 * file of a snapshot. Sorted by repository, the main revision first. Folders that are not
 * models (datasets--…, spaces--…, partial downloads without config.json) are skipped; an
 * unreadable or missing hub gives an empty list.
 */
std::vector<HfCachedModel> listHuggingFaceCache(const std::filesystem::path& hub);

}  // namespace strata::io
