// `strata-cli score` on a store of degenerate layers (docs/geometry.md, "Degenerate layers"):
// the real binary finishes, prints undefined values as n/a (table), null (JSON) or an empty cell
// (CSV), marks the layers with warnings and explains them, and never prints a NaN.

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "geometry/geometry_report.h"
#include "support/cli_runner.h"
#include "support/degenerate_store_fixture.h"
#include "support/temp_dir.h"

namespace strata {
namespace {

const std::string kSmall =
    " --anchors 60 --neighbours 8 --directions 80 --bootstrap 3 --spectrum 4 --device cpu";

/** Whether a NaN is printed as a value (the warnings' own words "NaN or infinite" aside). */
bool mentionsNaN(std::string text) {
  const auto notes = text.find("\n! warnings");
  if (notes != std::string::npos) text.resize(notes);
  static const std::regex nan("(^|[^a-z])-?nan([^a-z]|$)", std::regex::icase);
  return std::regex_search(text, nan);
}

bool everyNumberFinite(const nlohmann::json& j) {
  if (j.is_number_float()) return std::isfinite(j.get<double>());
  if (j.is_array() || j.is_object())
    for (const auto& item : j)
      if (!everyNumberFinite(item)) return false;
  return true;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TEST(CliScoreDegenerate, JsonHasNullsAndAWarningsArray) {
  TempDir dir;
  const auto store = dir / "acts.h5";
  testing::writeDegenerateStore(store);
  const auto run = testing::runCliSplit("score --store " + store.string() + kSmall + " --json");
  ASSERT_EQ(run.exitCode, 0) << run.out << run.err;
  const auto doc = nlohmann::json::parse(run.out);  // NaN would not even parse
  EXPECT_TRUE(everyNumberFinite(doc));
  ASSERT_EQ(doc["layers"].size(), 6u);
  const auto& layers = doc["layers"];
  EXPECT_TRUE(layers[0]["m_curv"].is_null());  // duplicated tokens
  EXPECT_TRUE(layers[0]["m_mono"].is_number());
  for (const char* key : {"m_curv", "m_mono", "k_eff", "score"}) {
    EXPECT_TRUE(layers[2][key].is_null()) << key;  // constant
    EXPECT_TRUE(layers[4][key].is_null()) << key;  // NaN / Inf
  }
  EXPECT_TRUE(layers[2]["m_curv_interval"][0].is_null());
  for (int i : {1, 3}) EXPECT_TRUE(layers[i]["score"].is_number()) << i;
  EXPECT_TRUE(doc["l_star"] == 1 || doc["l_star"] == 3) << doc["l_star"];

  // Layer 2: its own warning and the score's, both in the layer and in the document's array.
  ASSERT_EQ(layers[2]["warnings"].size(), 2u) << layers[2]["warnings"].dump();
  EXPECT_EQ(layers[2]["warnings"][0]["proxy"], "all");
  EXPECT_EQ(layers[2]["warnings"][0]["undefined"], true);
  EXPECT_NE(layers[2]["warnings"][0]["reason"].get<std::string>().find("tr(Σ) = 0"),
            std::string::npos);
  EXPECT_EQ(layers[2]["warnings"][1]["proxy"], "S");
  EXPECT_EQ(layers[1]["warnings"].size(), 0u);
  size_t fromLayers = 0;
  for (const auto& l : layers) fromLayers += l["warnings"].size();
  EXPECT_EQ(doc["warnings"].size(), fromLayers);

  // The warnings were written with the scores.
  const auto stored = geometry::readGeometry(store);
  ASSERT_TRUE(stored.has_value());
  ASSERT_EQ(stored->layers[2].warnings.size(), 1u);
  EXPECT_EQ(stored->layers[2].warnings[0].proxy, "all");
}

TEST(CliScoreDegenerate, TableMarksLayersAndExplainsThemAndCsvLeavesCellsEmpty) {
  TempDir dir;
  const auto store = dir / "acts.h5";
  testing::writeDegenerateStore(store);
  const auto csv = dir / "scores.csv";
  const auto run = testing::runCliSplit("score --store " + store.string() + kSmall +
                                        " --no-write --csv " + csv.string());
  ASSERT_EQ(run.exitCode, 0) << run.out << run.err;
  EXPECT_FALSE(mentionsNaN(run.out)) << run.out;
  const auto out = lines(run.out);
  // Rows: the header, then layers 0..5; marked layers end their number with " !".
  ASSERT_GE(out.size(), 7u);
  const auto layerCell = [&](int l) {  // the table right-aligns the layer column
    const std::string& row = out[size_t(1 + l)];
    const size_t start = row.find_first_not_of(' ');
    return row.substr(start, row.find("  ", start) - start);
  };
  for (int l : {0, 2, 4}) EXPECT_EQ(layerCell(l), std::to_string(l) + " !");
  for (int l : {1, 3, 5}) EXPECT_EQ(layerCell(l), std::to_string(l));
  EXPECT_NE(out[3].find("n/a"), std::string::npos) << out[3];
  EXPECT_NE(run.out.find("  ! layer 2, all: undefined — all 200 rows are equal: tr(Σ) = 0"),
            std::string::npos)
      << run.out;
  EXPECT_NE(
      run.out.find("  ! layer 4, all: undefined — the hidden states hold 2 NaN or infinite values"),
      std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("  ! layer 0, m_curv: undefined — "), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("  ! layer 2, S: undefined — left out of S and l*: m_curv is undefined, "
                         "m_mono is undefined, k_eff is undefined"),
            std::string::npos)
      << run.out;

  std::ifstream in(csv);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_FALSE(mentionsNaN(text.str())) << text.str();
  const auto rows = lines(text.str());
  ASSERT_EQ(rows.size(), 7u);
  // constant: every value (and the S interval and l* frequency) empty
  EXPECT_EQ(rows[3].rfind("2,,,,,,,,,,,,,,standardise,0,0", 0), 0u) << rows[3];
}

}  // namespace
}  // namespace strata
