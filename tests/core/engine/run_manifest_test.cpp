// RunManifest: the one reader and writer of run.json. Round trip, the format as earlier Strata
// versions wrote it, unknown keys kept, and every malformed file named.

#include "engine/run_manifest.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/text_file.h"
#include "support/temp_dir.h"

namespace strata::engine {

namespace {

namespace fs = std::filesystem;

void write(const fs::path& file, const std::string& text) { std::ofstream(file) << text; }

/** A run.json exactly as training_run.cpp wrote it before RunManifest existed. */
const char* const kEarlierBridgeRun = R"({
  "recipe": "bridge",
  "created": "2026-11-30T10:00:00Z",
  "command": "strata-cli train bridge --set layer=-1",
  "code_version": "0.8.0",
  "seed": 3,
  "machine": {"host": "box", "cpus": 2, "device": "cpu", "processes": 1, "libtorch": "2.11.0"},
  "config": {"layer": -1, "lambda": 0.5, "model": "/m", "freeze": true},
  "description": {"layer": "2", "store": "/s.h5"}
})";

TEST(RunManifest, ReadsTheFormatEarlierVersionsWrote) {
  TempDir dir;
  write(dir / "run.json", kEarlierBridgeRun);
  const RunManifest run = readRunManifest(dir.path());
  EXPECT_EQ(run.recipe, "bridge");
  EXPECT_EQ(run.created, "2026-11-30T10:00:00Z");
  EXPECT_EQ(run.command, "strata-cli train bridge --set layer=-1");
  EXPECT_EQ(run.codeVersion, "0.8.0");
  EXPECT_EQ(run.seed, 3);
  EXPECT_EQ(run.machine.host, "box");
  EXPECT_EQ(run.machine.cpus, 2);
  EXPECT_EQ(run.machine.device, "cpu");
  EXPECT_EQ(run.machine.processes, 1);
  EXPECT_EQ(run.machine.libtorch, "2.11.0");
  EXPECT_FALSE(run.plugin.has_value());
  EXPECT_EQ(run.fact("layer"), "2");
  EXPECT_EQ(run.integerFactOr("layer", -7), 2);
  EXPECT_EQ(run.integerFactOr("parameters", -7), -7);  // not recorded by this version
  try {
    run.integerFactOr("store", 0);
    ADD_FAILURE() << "a path was read as a number";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("description.store"), std::string::npos) << e.what();
  }
  EXPECT_EQ(run.setting("layer"), "-1");
  EXPECT_EQ(run.setting("lambda"), "0.5");
  EXPECT_EQ(run.setting("model"), "/m");  // strings unquoted
  EXPECT_EQ(run.setting("freeze"), "true");
  EXPECT_EQ(run.setting("absent"), std::nullopt);
  EXPECT_EQ(run.file, dir / "run.json");
}

TEST(RunManifest, RewritingKeepsEveryKeyAndItsOrder) {
  TempDir dir;
  write(dir / "run.json", kEarlierBridgeRun);
  RunManifest run = readRunManifest(dir.path());
  writeRunManifest(dir.path(), run);
  EXPECT_EQ(nlohmann::ordered_json::parse(readWholeFile(dir / "run.json")),
            nlohmann::ordered_json::parse(kEarlierBridgeRun));

  // A key a later version added survives a rewrite by this one.
  auto withExtra = nlohmann::ordered_json::parse(kEarlierBridgeRun);
  withExtra["provenance"] = {{"git", "abc"}};
  write(dir / "run.json", withExtra.dump());
  run = readRunManifest(dir.path());
  run.configJson = R"({"layer": 4})";
  writeRunManifest(dir.path(), run);
  const auto rewritten = nlohmann::ordered_json::parse(readWholeFile(dir / "run.json"));
  EXPECT_EQ(rewritten["provenance"]["git"], "abc");
  EXPECT_EQ(rewritten["config"]["layer"], 4);
}

TEST(RunManifest, PluginRunsRoundTrip) {
  TempDir dir;
  RunManifest run;
  run.recipe = "tuned_lens";
  run.created = "2026-12-01T00:00:00Z";
  run.command = "strata-cli train tuned_lens";
  run.codeVersion = "0.9.0";
  run.plugin = RunPluginOrigin{"lens", "1.2", "/p/liblens.so"};
  run.machine.host = "h";
  run.machine.cpus = 16;
  run.configJson = R"({"steps":10})";
  writeRunManifest(dir.path(), run);
  const auto json = nlohmann::ordered_json::parse(readWholeFile(dir / "run.json"));
  EXPECT_EQ(json["plugin"]["file"], "/p/liblens.so");
  EXPECT_FALSE(json["machine"].contains("device"));  // not recorded for plugin recipes
  EXPECT_FALSE(json.contains("description"));
  const RunManifest back = readRunManifest(dir.path());
  ASSERT_TRUE(back.plugin.has_value());
  EXPECT_EQ(back.plugin->name, "lens");
  EXPECT_EQ(back.plugin->version, "1.2");
  EXPECT_EQ(back.machine.cpus, 16);
  EXPECT_EQ(back.setting("steps"), "10");
  EXPECT_EQ(back.config(), R"({"steps":10})");
}

std::string failureOf(const fs::path& folder) {
  try {
    readRunManifest(folder);
  } catch (const Error& e) {
    return e.what();
  }
  return "accepted";
}

TEST(RunManifest, MalformedFilesAreNamed) {
  TempDir dir;
  EXPECT_THROW(readRunManifest(dir.path()), IoError);
  EXPECT_NE(failureOf(dir.path()).find("is not a run folder"), std::string::npos);

  const std::string file = (dir / "run.json").string();
  write(dir / "run.json", "{\"recipe\": \"bridge\",");
  EXPECT_NE(failureOf(dir.path()).find(file), std::string::npos) << failureOf(dir.path());
  write(dir / "run.json", "[1, 2]");
  EXPECT_NE(failureOf(dir.path()).find("not a JSON object"), std::string::npos);
  write(dir / "run.json", R"({"created": "x"})");
  EXPECT_NE(failureOf(dir.path()).find("recipe"), std::string::npos) << failureOf(dir.path());
  write(dir / "run.json", R"({"recipe": "bridge", "config": 3})");
  EXPECT_NE(failureOf(dir.path()).find("config"), std::string::npos) << failureOf(dir.path());
  write(dir / "run.json", R"({"recipe": "bridge", "seed": "three"})");
  EXPECT_NE(failureOf(dir.path()).find(file), std::string::npos) << failureOf(dir.path());

  write(dir / "run.json", R"({"recipe": "bridge"})");
  const RunManifest bare = readRunManifest(dir.path());
  EXPECT_THROW(bare.config(), FormatError);
  try {
    bare.fact("layer");
    FAIL() << "a missing fact was accepted";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("description.layer"), std::string::npos) << e.what();
  }
}

TEST(RunManifest, RequireRunNamesBothRecipes) {
  TempDir dir;
  write(dir / "run.json", kEarlierBridgeRun);
  EXPECT_EQ(requireRun(dir.path(), "bridge").recipe, "bridge");
  try {
    requireRun(dir.path(), "dcdm", "masked diffusion (dcdm)");
    FAIL() << "a bridge run passed for a dcdm run";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("is a bridge run, not a masked diffusion (dcdm) run"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace strata::engine
