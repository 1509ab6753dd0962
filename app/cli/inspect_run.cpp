// `inspect RUN` for run folders (see inspect_run.h).

#include "inspect_run.h"

#include <iostream>
#include <nlohmann/json.hpp>

#include "engine/run_folder.h"
#include "engine/run_manifest.h"

namespace strata::cli {

namespace {

using Json = nlohmann::ordered_json;

Json configOf(const engine::RunManifest& run) {
  return run.configJson.empty() ? Json::object() : Json::parse(run.configJson);
}

Json factsOf(const engine::RunManifest& run) {
  Json facts = Json::object();
  for (const auto& [key, value] : run.description) facts[key] = value;
  return facts;
}

}  // namespace

Json runJson(const std::filesystem::path& folder) {
  const engine::RunManifest run = engine::readRunManifest(folder);
  const engine::RunStatus status = engine::readRunStatus(folder);
  return Json{{"run", folder.string()},
              {"recipe", run.recipe},
              {"state", engine::runStateName(status.state)},
              {"step", status.step},
              {"total_steps", status.totalSteps},
              {"config", configOf(run)},
              {"facts", factsOf(run)}};
}

int inspectRun(const std::filesystem::path& folder, bool json) {
  if (json) {
    std::cout << runJson(folder).dump(2) << "\n";
    return 0;
  }
  const engine::RunManifest run = engine::readRunManifest(folder);
  const engine::RunStatus status = engine::readRunStatus(folder);
  const Json config = configOf(run);
  const Json facts = factsOf(run);
  std::cout << "Run          " << folder.string() << "\n"
            << "Recipe       " << run.recipe << "\n"
            << "State        " << engine::runStateName(status.state) << ", step " << status.step
            << " of " << status.totalSteps << "\n";
  if (config.contains("variant")) {
    const std::string variant = config["variant"].get<std::string>();
    std::cout << "Variant      " << variant;
    if (variant == "dcdm")
      std::cout << " (K = " << config["chunks"]
                << " chunks, subspace rank h = " << config["subspace_rank"] << ")";
    if (variant == "bdlm") std::cout << " (blocks of " << config["block_size"] << ")";
    std::cout << "\n";
  }
  if (facts.contains("parameters"))
    std::cout << "Parameters   " << facts["parameters"].get<std::string>() << "\n";
  if (facts.contains("router_parameters") && config.value("variant", std::string()) == "dcdm") {
    const int64_t k = config["chunks"], d = config["dim"], h = config["subspace_rank"];
    std::cout << "Router       " << facts["router_parameters"].get<std::string>()
              << " parameters = K·d·h + 2d² = " << k << "·" << d << "·" << h << " + 2·" << d
              << "²\n";
  }
  if (facts.contains("layer"))
    std::cout << "Bridge layer " << facts["layer"].get<std::string>() << "\n";
  if (run.recipe == "repr_align") {
    std::cout << "Source       " << config.value("model", std::string()) << "\n"
              << "Alignment    λ = " << config.value("lambda", 0.0) << ", "
              << config.value("align_distance", std::string()) << " over "
              << config.value("align_layers", std::string()) << " of "
              << facts.value("hidden_states", std::string("?")) << " hidden states\n"
              << "Diffusion    CE weighting "
              << config.value("ce_weighting", std::string("uniform")) << "; student from "
              << facts.value("student_init", std::string("pretrained")) << " weights\n"
              << "Trainable    " << facts.value("trainable_parameters", std::string("?"))
              << " parameters"
              << (config.value("freeze_embeddings", false) ? "; embeddings + LM head frozen" : "")
              << (config.value("freeze_mlp", false) ? "; MLPs frozen" : "") << "\n"
              << "[MASK]       id " << facts.value("mask_token_id", std::string("?"))
              << (facts.value("mask_token_added", std::string()) == "true"
                      ? " (added to the vocabulary)"
                      : " (the tokenizer's own)")
              << "\n";
  }
  return 0;
}

}  // namespace strata::cli
