// The study's Markdown summary (see study_summary.h).

#include "studies/study_summary.h"

#include <cmath>

#include "common/human_format.h"

namespace strata::studies {

namespace {

/** "3.2104 ± 0.0123 [3.1990, 3.2240]" with digits chosen by the value's size. */
std::string cell(const SeedSummary& s) {
  const double size = std::max(std::abs(s.mean), 1e-12);
  const int digits = size >= 1000 ? 0 : size >= 100 ? 1 : size >= 10 ? 2 : 4;
  return formatFixed(s.mean, digits, "–") + " ± " + formatFixed(s.sd, digits, "–") + " [" +
         formatFixed(s.low, digits, "–") + ", " + formatFixed(s.high, digits, "–") + "]";
}

/** Text for a Markdown table cell: a '|' would end the cell. */
std::string tableCell(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

/** An across-seeds value as a table shows it: 4 decimals, "–" when not computed. */
std::string acrossSeedsCell(const StudyAnalysis& a, const std::string& key) {
  const auto found = a.acrossSeeds.find(key);
  return found != a.acrossSeeds.end() ? formatFixed(found->second, 4, "–") : "–";
}

}  // namespace

std::string studySummaryMarkdown(const StudyProtocol& p, const std::map<std::string, double>& facts,
                                 const StudyAnalysis& a) {
  std::string md =
      "# " + p.title + "\n\n" + p.question + "\n\nBudget: " + p.budgetNote + ". Seeds:";
  for (int64_t s : p.seeds) md += " " + std::to_string(s);
  md += ". Cells: mean ± sd [95 % bootstrap interval] over seeds.\n\n";
  if (!facts.empty()) {
    md += "Reference values:";
    for (const auto& [k, v] : facts) md += " " + k + " = " + formatFixed(v, 4) + ";";
    md += "\n\n";
  }
  std::vector<std::string> arms;
  for (const auto& arm : p.arms) arms.push_back(arm.name);
  if (!p.seedArm.empty()) arms.push_back(p.seedArm);
  md += "| metric |";
  std::string rule = "| --- |";
  for (const auto& arm : arms) {
    md += " " + arm + " |";
    rule += " --- |";
  }
  md += "\n" + rule + "\n";
  for (const auto& m : p.metrics) {
    std::string row = "| " + m.label + " |";
    bool any = false;
    for (const auto& arm : arms) {
      const auto perArm = a.aggregates.find(arm);
      const bool has = perArm != a.aggregates.end() && perArm->second.count(m.key);
      row += " " + (has ? cell(perArm->second.at(m.key)) : std::string("–")) + " |";
      any = any || has;
    }
    if (any) md += row + "\n";
  }
  if (!p.acrossSeedMetrics.empty()) {
    md +=
        "\nAcross seeds (one number from every seed at once):\n\n| statistic | value |\n"
        "| --- | --- |\n";
    for (const auto& m : p.acrossSeedMetrics)
      md +=
          "| " + tableCell(m.label) + " (`" + m.key + "`) | " + acrossSeedsCell(a, m.key) + " |\n";
  }
  if (p.claims.empty()) return md + "\n" + a.verdict.reason + ".\n";
  md +=
      "\n| claim | metric | difference (arm − baseline) | permutation p | verdict |\n"
      "| --- | --- | --- | --- | --- |\n";
  for (const auto& c : a.claims) {
    // A selected arm is named with the selection that picked it (study_verdict.h).
    const std::string selected = c.selection.empty()
                                     ? ""
                                     : " (selected by " + c.claim.selectionMetric + ": " +
                                           c.claim.arm + " against " + c.claim.baseline + ")";
    std::string permutation = "–";
    if (!c.claim.permutationP.empty()) {
      permutation = acrossSeedsCell(a, c.claim.permutationP) +
                    (c.claim.permutationDecides
                         ? " (needs < " + formatFixed(c.claim.permutationAlpha, 2) + ")"
                         : " (reported, not part of the rule)");
    }
    md += "| " + c.claim.id + ": " + tableCell(c.claim.statement) + selected + " | " +
          c.claim.metric + " | " + cell(c.difference) + " | " + permutation + " | **" +
          c.verdict.result + "** |\n";
  }
  md += "\n**Verdict (" + p.headline + "): " + a.verdict.result + "** — " + a.verdict.reason + "\n";
  return md;
}

}  // namespace strata::studies
