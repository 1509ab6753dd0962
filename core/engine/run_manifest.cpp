#include "engine/run_manifest.h"

#include <charconv>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/text_file.h"
#include "engine/run_folder.h"
#include "io/atomic_file.h"

namespace strata::engine {

namespace {

using Json = nlohmann::ordered_json;

const char* const kKnownKeys[] = {"recipe",  "created", "command", "code_version", "seed",
                                  "machine", "plugin",  "config",  "description"};

bool known(const std::string& key) {
  for (const char* k : kKnownKeys)
    if (key == k) return true;
  return false;
}

std::string text(const Json& object, const char* key) {
  return object.contains(key) && !object[key].is_null() ? object[key].get<std::string>() : "";
}

RunManifest fromJson(const Json& run, const std::filesystem::path& file) {
  if (!run.is_object()) throw FormatError(file, "is not a JSON object");
  RunManifest m;
  m.file = file;
  m.recipe = text(run, "recipe");
  if (m.recipe.empty()) throw FormatError(file, "names no recipe", "recipe", "key");
  m.created = text(run, "created");
  m.command = text(run, "command");
  m.codeVersion = text(run, "code_version");
  if (run.contains("seed") && !run["seed"].is_null()) m.seed = run["seed"].get<int64_t>();
  if (run.contains("machine")) {
    const Json& machine = run["machine"];
    m.machine.host = text(machine, "host");
    m.machine.cpus = machine.value("cpus", int64_t(0));
    m.machine.device = text(machine, "device");
    m.machine.processes = machine.value("processes", int64_t(0));
    m.machine.libtorch = text(machine, "libtorch");
  }
  if (run.contains("plugin")) {
    const Json& plugin = run["plugin"];
    m.plugin = RunPluginOrigin{text(plugin, "name"), text(plugin, "version"), text(plugin, "file")};
  }
  if (run.contains("config")) {
    if (!run["config"].is_object()) throw FormatError(file, "is not an object", "config", "key");
    m.configJson = run["config"].dump();
  }
  if (run.contains("description"))
    for (const auto& [key, value] : run["description"].items())
      m.description[key] = value.is_string() ? value.get<std::string>() : value.dump();
  Json other = Json::object();
  for (const auto& [key, value] : run.items())
    if (!known(key)) other[key] = value;
  m.otherJson = other.dump();
  return m;
}

Json toJson(const RunManifest& m) {
  Json run = {{"recipe", m.recipe},
              {"created", m.created},
              {"command", m.command},
              {"code_version", m.codeVersion}};
  if (m.seed) run["seed"] = *m.seed;
  if (m.plugin)
    run["plugin"] = {
        {"name", m.plugin->name}, {"version", m.plugin->version}, {"file", m.plugin->file}};
  Json machine = {{"host", m.machine.host}, {"cpus", m.machine.cpus}};
  if (!m.machine.device.empty()) machine["device"] = m.machine.device;
  if (m.machine.processes > 0) machine["processes"] = m.machine.processes;
  if (!m.machine.libtorch.empty()) machine["libtorch"] = m.machine.libtorch;
  run["machine"] = machine;
  if (!m.configJson.empty()) run["config"] = Json::parse(m.configJson);
  Json description = Json::object();
  for (const auto& [key, value] : m.description) description[key] = value;
  if (!m.description.empty() || !m.plugin) run["description"] = description;
  const Json other = Json::parse(m.otherJson);  // named: items() must not outlive it
  for (const auto& [key, value] : other.items()) run[key] = value;
  return run;
}

}  // namespace

const std::string& RunManifest::config() const {
  if (configJson.empty()) throw FormatError(file, "has no settings", "config", "key");
  return configJson;
}

std::optional<std::string> RunManifest::setting(const std::string& key) const {
  if (configJson.empty()) return std::nullopt;
  const Json config = Json::parse(configJson);
  if (!config.contains(key) || config[key].is_null()) return std::nullopt;
  const Json& value = config[key];
  return value.is_string() ? value.get<std::string>() : value.dump();
}

const std::string& RunManifest::fact(const std::string& key) const {
  const auto found = description.find(key);
  if (found == description.end())
    throw FormatError(file, "does not record the run's " + key, "description." + key, "key");
  return found->second;
}

int64_t RunManifest::integerFactOr(const std::string& key, int64_t fallback) const {
  return description.count(key) ? integerFact(key) : fallback;
}

int64_t RunManifest::integerFact(const std::string& key) const {
  const std::string& text = fact(key);
  int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty())
    throw FormatError(file, "is not a whole number: '" + text + "'", "description." + key, "key");
  return value;
}

std::filesystem::path runManifestFile(const std::filesystem::path& runFolder) {
  return RunFolder(runFolder).manifestFile();
}

RunManifest readRunManifest(const std::filesystem::path& runFolder) {
  const std::filesystem::path file = runManifestFile(runFolder);
  std::error_code error;
  if (!std::filesystem::is_regular_file(file, error))
    throw IoError(runFolder, "is not a run folder (it has no run.json)");
  try {
    return fromJson(Json::parse(readWholeFile(file)), file);
  } catch (const nlohmann::json::exception& e) {
    throw FormatError(file, std::string("is not a valid run.json: ") + e.what());
  }
}

RunManifest requireRun(const std::filesystem::path& runFolder, const std::string& recipe,
                       const std::string& what) {
  RunManifest manifest = readRunManifest(runFolder);
  if (manifest.recipe != recipe)
    throw FormatError(manifest.file, "is a " + manifest.recipe + " run, not a " +
                                         (what.empty() ? recipe : what) + " run");
  return manifest;
}

void writeRunManifest(const std::filesystem::path& runFolder, const RunManifest& manifest) {
  io::writeTextAtomically(runManifestFile(runFolder), toJson(manifest).dump(2) + "\n");
}

}  // namespace strata::engine
