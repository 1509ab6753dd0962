// A study's analysis (see study_analysis.h).

#include "studies/study_analysis.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "common/error.h"

namespace strata::studies {

namespace {

bool hasArm(const StudyProtocol& p, const std::string& name) {
  if (!p.seedArm.empty() && name == p.seedArm) return true;
  for (const auto& a : p.arms)
    if (a.name == name) return true;
  return false;
}

bool hasMetric(const StudyProtocol& p, const std::string& key) {
  for (const auto& m : p.metrics)
    if (m.key == key) return true;
  return false;
}

bool lowerIsBetter(const StudyProtocol& p, const std::string& key) {
  for (const auto& m : p.metrics)
    if (m.key == key) return m.lowerIsBetter;
  return true;
}

}  // namespace

std::vector<double> seedValues(const StudyProtocol& protocol,
                               const std::vector<StudyRunResult>& runs, const std::string& arm,
                               const std::string& metric) {
  std::vector<double> values;
  for (int64_t seed : protocol.seeds) {
    double v = std::numeric_limits<double>::quiet_NaN();
    for (const auto& r : runs) {
      if (r.arm != arm || r.seed != seed) continue;
      const auto found = r.measurement.values.find(metric);
      if (found != r.measurement.values.end()) v = found->second;
    }
    values.push_back(v);
  }
  return values;
}

void checkProtocol(const StudyProtocol& p, const std::map<std::string, double>& facts) {
  const std::string where = "study " + p.name;
  if (p.arms.empty()) throw ConfigError(where, "arms", "is empty");
  if (p.seeds.empty()) throw ConfigError(where, "seeds", "is empty");
  std::set<std::string> names;
  for (const auto& a : p.arms)
    if (!names.insert(a.name).second) throw ConfigError(where, "arms", "name " + a.name + " twice");
  for (const auto& c : p.claims) {
    if (!hasArm(p, c.arm)) throw ConfigError(where, "claim " + c.id, "names no arm " + c.arm);
    if (!hasMetric(p, c.metric))
      throw ConfigError(where, "claim " + c.id, "names no metric " + c.metric);
    if (!c.baseline.empty() && !hasArm(p, c.baseline))
      throw ConfigError(where, "claim " + c.id, "names no baseline arm " + c.baseline);
    if (!c.baselineMetric.empty() && !hasMetric(p, c.baselineMetric))
      throw ConfigError(where, "claim " + c.id, "names no baseline metric " + c.baselineMetric);
    if (c.baseline.empty() && c.baselineMetric.empty() && !facts.count(c.reference))
      throw ConfigError(where, "claim " + c.id, "names no reference value " + c.reference);
    for (const auto& candidate : c.candidates)
      if (!hasArm(p, candidate))
        throw ConfigError(where, "claim " + c.id, "names no candidate arm " + candidate);
    if (!c.permutationP.empty() &&
        std::none_of(p.acrossSeedMetrics.begin(), p.acrossSeedMetrics.end(),
                     [&](const StudyMetric& m) { return m.key == c.permutationP; }))
      throw ConfigError(where, "claim " + c.id, "names no across-seeds value " + c.permutationP);
    if (!c.candidates.empty() && !hasMetric(p, c.selectionMetric))
      throw ConfigError(where, "claim " + c.id, "names no selection metric " + c.selectionMetric);
  }
  if (p.claims.empty() && p.headline.empty()) return;  // a comparison: it decides nothing
  bool headline = false;
  for (const auto& c : p.claims) headline = headline || c.id == p.headline;
  if (!headline) throw ConfigError(where, "headline", "names no claim " + p.headline);
}

StudyAnalysis analyseStudy(const StudyProtocol& p, const std::map<std::string, double>& facts,
                           const std::vector<StudyRunResult>& runs,
                           const std::map<std::string, double>& acrossSeeds) {
  checkProtocol(p, facts);
  StudyAnalysis a;
  a.acrossSeeds = acrossSeeds;
  for (size_t index = 0; index < p.seeds.size(); ++index)
    for (const auto& arm : p.arms) a.runsPlanned += arm.runsAtSeed(index) ? 1 : 0;
  for (const auto& r : runs) a.runsMeasured += r.arm != p.seedArm ? 1 : 0;
  std::vector<std::string> armNames;
  for (const auto& arm : p.arms) armNames.push_back(arm.name);
  if (!p.seedArm.empty()) armNames.push_back(p.seedArm);
  for (const auto& arm : armNames)
    for (const auto& m : p.metrics) {
      const SeedSummary s = summarise(seedValues(p, runs, arm, m.key), p.bootstrap);
      if (s.n > 0) a.aggregates[arm][m.key] = s;
    }
  for (const auto& curve : p.curves)
    for (const auto& arm : p.arms) {
      std::map<int64_t, std::vector<double>> byStep;
      for (const auto& r : runs) {
        if (r.arm != arm.name) continue;
        const auto found = r.measurement.curves.find(curve);
        if (found == r.measurement.curves.end()) continue;
        for (const auto& [step, value] : found->second) byStep[step].push_back(value);
      }
      if (byStep.empty()) continue;
      CurveSummary& c = a.curves[curve][arm.name];
      for (const auto& [step, values] : byStep) {
        c.steps.push_back(step);
        c.points.push_back(summarise(values, p.bootstrap));
      }
    }
  for (StudyClaim claim : p.claims) {
    std::map<std::string, double> selection;
    if (!claim.candidates.empty()) {
      // Select on the selection metric's means; the differences below use `metric` only.
      const bool lower = lowerIsBetter(p, claim.selectionMetric);
      bool chosen = false;
      double best = 0;
      for (const auto& candidate : claim.candidates) {
        const SeedSummary s =
            summarise(seedValues(p, runs, candidate, claim.selectionMetric), p.bootstrap);
        if (s.n == 0 || !std::isfinite(s.mean)) continue;
        selection[candidate] = s.mean;
        if (!chosen || (lower ? s.mean < best : s.mean > best)) {
          claim.arm = candidate;
          best = s.mean;
          chosen = true;
        }
      }
    }
    const std::vector<double> values = seedValues(p, runs, claim.arm, claim.metric);
    std::vector<double> differences;
    if (!claim.baselineMetric.empty()) {
      const std::string baseline = claim.baseline.empty() ? claim.arm : claim.baseline;
      differences = pairedDifferences(values, seedValues(p, runs, baseline, claim.baselineMetric));
    } else if (claim.baseline.empty()) {
      const double reference = facts.at(claim.reference);
      for (double v : values)
        if (std::isfinite(v)) differences.push_back(v - reference);
    } else {
      differences = pairedDifferences(values, seedValues(p, runs, claim.baseline, claim.metric));
    }
    ClaimResult result{claim, selection, summarise(differences, p.bootstrap), {}};
    const auto permutation = acrossSeeds.find(claim.permutationP);
    result.verdict =
        decideClaim(claim, result.difference,
                    permutation != acrossSeeds.end() ? permutation->second
                                                     : std::numeric_limits<double>::quiet_NaN());
    if (claim.id == p.headline) a.verdict = result.verdict;
    a.claims.push_back(std::move(result));
  }
  if (p.claims.empty())
    a.verdict = {"no claim", "a comparison: it reports its arms side by side and decides nothing"};
  else if (!a.complete())
    a.verdict = {"inconclusive", "partial analysis: " + std::to_string(a.runsMeasured) + " of " +
                                     std::to_string(a.runsPlanned) +
                                     " runs finished; the study is not complete"};
  return a;
}

}  // namespace strata::studies
