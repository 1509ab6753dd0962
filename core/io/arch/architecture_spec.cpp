// The table of architecture_list.h, as descriptors (see architecture_spec.h).

#include "io/arch/architecture_spec.h"

#include <cstddef>
#include <utility>

#include "io/arch/architecture_list.h"
#include "io/gguf/gguf_model_plan.h"

namespace strata::io {

#define STRATA_DECLARE_SPEC(name, block) extern const ArchitectureSpec k##name##Architecture;
STRATA_ARCHITECTURES(STRATA_DECLARE_SPEC)
#undef STRATA_DECLARE_SPEC

namespace {

// Indexed by io::Architecture: the enum is generated from the same list, in the same order.
#define STRATA_SPEC_ENTRY(name, block) {Architecture::name, &k##name##Architecture},
constexpr std::pair<Architecture, const ArchitectureSpec*> kSpecs[] = {
    STRATA_ARCHITECTURES(STRATA_SPEC_ENTRY)};
#undef STRATA_SPEC_ENTRY

}  // namespace

const ArchitectureSpec& architectureSpec(Architecture architecture) {
  return *kSpecs[static_cast<std::size_t>(architecture)].second;
}

std::optional<Architecture> architectureOfClassName(const std::string& className) {
  for (const auto& [architecture, spec] : kSpecs)
    if (className == spec->className) return architecture;
  return std::nullopt;
}

const ArchitectureSpec* architectureOfGgufName(const std::string& ggufName) {
  for (const auto& entry : kSpecs)
    if (entry.second->ggufName && ggufName == entry.second->ggufName) return entry.second;
  return nullptr;
}

std::string architectureClassName(Architecture architecture) {
  return architectureSpec(architecture).className;
}

std::string supportedArchitectures() {
  std::string list;
  for (const auto& entry : kSpecs)
    list += (list.empty() ? "" : ", ") + std::string(entry.second->className);
  return list;
}

std::string supportedGgufArchitectures() {
  std::string list;
  for (const auto& entry : kSpecs)
    if (entry.second->ggufName)
      list += (list.empty() ? "" : ", ") + std::string(entry.second->ggufName);
  return list;
}

}  // namespace strata::io
