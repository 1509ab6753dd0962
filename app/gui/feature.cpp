#include "feature.h"

#include <algorithm>

namespace strata {
namespace {

/** Filled before main() by the features' registrations, read by each new window. */
std::vector<FeatureEntry>& registry() {
  static std::vector<FeatureEntry> entries;
  return entries;
}

}  // namespace

void registerFeature(FeatureEntry entry) { registry().push_back(std::move(entry)); }

std::vector<FeatureEntry> registeredFeatures() {
  std::vector<FeatureEntry> entries = registry();
  std::stable_sort(
      entries.begin(), entries.end(),
      [](const FeatureEntry& a, const FeatureEntry& b) { return a.menuOrder < b.menuOrder; });
  return entries;
}

}  // namespace strata
