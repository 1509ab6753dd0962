#include "model/diffusion/dlm_variant.h"

#include "common/error.h"

namespace strata::model {

const char* dlmVariantName(DlmVariant variant) {
  switch (variant) {
    case DlmVariant::Mdlm:
      return "mdlm";
    case DlmVariant::Bdlm:
      return "bdlm";
    case DlmVariant::Dcdm:
      return "dcdm";
  }
  return "?";
}

DlmVariant parseDlmVariant(const std::string& name, const std::filesystem::path& source) {
  for (const DlmVariant v : {DlmVariant::Mdlm, DlmVariant::Bdlm, DlmVariant::Dcdm})
    if (name == dlmVariantName(v)) return v;
  throw ConfigError(source, "variant", "must be mdlm, bdlm or dcdm, not '" + name + "'");
}

}  // namespace strata::model
