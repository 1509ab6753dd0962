#pragma once
// run.json, what a run is: the recipe, its resolved settings, where and how it was started, and
// the facts the recipe resolved (a bridge's layer, a corpus hash). The one reader and writer of
// the file — the engine, the recipes, the CLI and the views all go through it.
//
//   {"recipe": "bridge", "created": "2026-12-04T02:00:00Z", "command": "strata-cli train …",
//    "code_version": "0.9.0", "seed": 0,
//    "machine": {"host", "cpus", "device", "processes", "libtorch"},
//    "plugin": {"name", "version", "file"},          (plugin recipes only)
//    "config": {<setting>: <value>, …},               (configToJson of the recipe's schema)
//    "description": {<fact>: "<text>", …}}
//
// Torch-free and JSON-library-free, so views may use it.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

namespace strata::engine {

struct RunMachine {
  std::string host;
  int64_t cpus = 0;
  std::string device;     ///< empty: not recorded (plugin recipes)
  int64_t processes = 0;  ///< 0: not recorded
  std::string libtorch;   ///< empty: not recorded
};

struct RunPluginOrigin {
  std::string name, version, file;
};

struct RunManifest {
  std::string recipe;
  std::string created;  ///< ISO-8601 UTC
  std::string command;
  std::string codeVersion;
  std::optional<int64_t> seed;
  RunMachine machine;
  std::optional<RunPluginOrigin> plugin;
  /** The resolved settings as a JSON object (configToJson writes, applyConfigJson reads it);
   *  empty when run.json has none. */
  std::string configJson;
  std::map<std::string, std::string> description;
  /** Top-level keys this version does not know, kept as a JSON object so rewriting keeps them. */
  std::string otherJson = "{}";
  /** The file it was read from, for error messages; empty for a manifest not read yet. */
  std::filesystem::path file;

  /** configJson; FormatError naming the file when run.json has no "config". */
  const std::string& config() const;
  /** A setting as command-line text (strings unquoted, numbers as written); nullopt if absent. */
  std::optional<std::string> setting(const std::string& key) const;
  /** A resolved fact; FormatError naming the file and the key when the run did not record it. */
  const std::string& fact(const std::string& key) const;
  /** A fact that is a whole number; FormatError naming the file and the key when it is absent
   *  or not a number. */
  int64_t integerFact(const std::string& key) const;
  /** A fact that is a whole number, or `fallback` when the run did not record it (runs of
   *  earlier versions); FormatError naming the file and the key when it is not a number. */
  int64_t integerFactOr(const std::string& key, int64_t fallback) const;
};

/** `runFolder`/run.json. */
std::filesystem::path runManifestFile(const std::filesystem::path& runFolder);

/**
 * Reads run.json. IoError naming the folder when it has none ("is not a run folder"),
 * FormatError naming the file for invalid JSON, a missing recipe or a key of the wrong type.
 */
RunManifest readRunManifest(const std::filesystem::path& runFolder);

/** readRunManifest, then FormatError "is a <recipe> run, not a <what> run" unless the recipe is
 *  `recipe` (`what` defaults to the recipe's name). */
RunManifest requireRun(const std::filesystem::path& runFolder, const std::string& recipe,
                       const std::string& what = {});

/** Writes run.json atomically (the folder must exist). */
void writeRunManifest(const std::filesystem::path& runFolder, const RunManifest& manifest);

}  // namespace strata::engine
