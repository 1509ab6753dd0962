#pragma once
// The three masked diffusion LMs of the dcdm recipe (docs/dcdm.md): one chunk over the whole
// sequence (mdlm), fixed positional blocks (bdlm, BD3-LM) or content-defined chunks from a
// learned router (dcdm). Torch-free: views show it.

#include <filesystem>
#include <string>

namespace strata::model {

enum class DlmVariant { Mdlm, Bdlm, Dcdm };

/** "mdlm" | "bdlm" | "dcdm", as settings and files spell it. */
const char* dlmVariantName(DlmVariant variant);

/** Parses a name; ConfigError naming `source` and the field "variant" otherwise. */
DlmVariant parseDlmVariant(const std::string& name,
                           const std::filesystem::path& source = "variant");

}  // namespace strata::model
