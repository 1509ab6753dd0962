#include "support/tokenizer_test_support.h"

namespace strata::testing {

std::filesystem::path sharedData(const std::string& relative) {
  return std::filesystem::path(STRATA_SHARED_DATA_DIR) / relative;
}

}  // namespace strata::testing
