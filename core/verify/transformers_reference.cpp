#include "verify/transformers_reference.h"

#include <ATen/ATen.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/error.h"
#include "common/install_paths.h"
#include "common/job.h"
#include "common/scratch_folder.h"
#include "io/hf/safetensors_file.h"
#include "model/backbone/safetensors_torch.h"
#include "verify/child_process.h"
#include "verify/python_environment.h"

namespace strata::verify {

namespace {

constexpr const char* kScript = "verify_transformers.py";
// The script's exit codes (see its docstring).
constexpr int kExitMissingModule = 3;
constexpr int kExitLoadFailed = 4;
// Share of the job's progress bar the transformers side takes; Strata's comparison the rest.
constexpr double kReferenceShare = 0.7;

/** The last `count` non-empty lines of `text` (tqdm's \r-redrawn bars count as lines). */
std::string lastLines(const std::string& text, int count) {
  std::vector<std::string> lines;
  std::string line;
  for (const char c : text + "\n") {
    if (c != '\n' && c != '\r') {
      line += c;
      continue;
    }
    if (line.find_first_not_of(" \t") != std::string::npos) lines.push_back(line);
    line.clear();
  }
  std::string tail;
  const std::size_t first =
      lines.size() > static_cast<std::size_t>(count) ? lines.size() - count : 0;
  for (std::size_t i = first; i < lines.size(); ++i) tail += (tail.empty() ? "" : "\n") + lines[i];
  return tail;
}

/** "progress <fraction> <stage>" from the script → the job's progress bar. */
void forwardProgress(const std::string& line, JobContext& job) {
  std::istringstream in(line);
  std::string word;
  double fraction = 0.0;
  if (!(in >> word >> fraction) || word != "progress") return;
  std::string stage;
  std::getline(in >> std::ws, stage);
  job.progress(kReferenceShare * fraction, stage);
}

std::vector<int32_t> idsOf(const at::Tensor& ids) {
  const at::Tensor flat = ids.to(at::kLong).contiguous();
  std::vector<int32_t> out(flat.numel());
  for (int64_t i = 0; i < flat.numel(); ++i)
    out[i] = static_cast<int32_t>(flat.data_ptr<int64_t>()[i]);
  return out;
}

TransformersReference readReference(const std::filesystem::path& folder,
                                    const std::filesystem::path& model,
                                    const std::vector<std::string>& prompts) {
  TransformersReference reference;
  reference.model = model;
  const std::filesystem::path infoFile = folder / "reference.json";
  std::ifstream info(infoFile);
  if (!info) throw IoError(infoFile, "the transformers side wrote no reference.json");
  const nlohmann::json meta = nlohmann::json::parse(info, nullptr, false);
  if (meta.is_discarded() || !meta.is_object())
    throw FormatError(infoFile, "is not a JSON object", {}, "file");
  reference.transformersVersion = meta.value("transformers_version", "");
  reference.torchVersion = meta.value("torch_version", "");
  reference.architecture = meta.value("architecture", "");
  const int64_t layers = meta.value("num_layers", int64_t{-1});
  if (layers < 0) throw FormatError(infoFile, "has no num_layers", "num_layers", "key");

  const auto file = io::SafetensorsFile::open(folder / "reference.safetensors");
  const auto tensor = [&](const std::string& name) {
    return model::tensorView(file, file->at(name)).to(at::kFloat).clone();
  };
  const auto read = [&](const std::string& precision,
                        std::vector<TransformersReference::Prompt>& into) {
    for (std::size_t p = 0; p < prompts.size(); ++p) {
      const std::string prefix = precision + "p" + std::to_string(p) + ".";
      TransformersReference::Prompt prompt;
      prompt.text = prompts[p];
      prompt.ids = idsOf(model::tensorView(file, file->at("p" + std::to_string(p) + ".ids")));
      for (int64_t l = 0; l <= layers; ++l)
        prompt.hidden.push_back(tensor(prefix + "hidden." + std::to_string(l)));
      prompt.finalNorm = tensor(prefix + "final_norm");
      prompt.logits = tensor(prefix + "logits");
      into.push_back(std::move(prompt));
    }
  };
  read("", reference.prompts);
  if (meta.value("bfloat16", false)) read("bf16.", reference.bfloat16Prompts);
  return reference;
}

}  // namespace

TransformersReference runTransformersReference(const std::filesystem::path& model,
                                               const std::vector<std::string>& prompts,
                                               const std::string& python,
                                               std::chrono::seconds timeout, JobContext& job,
                                               bool bfloat16) {
  const std::filesystem::path script = bundledPythonScript(kScript);
  if (script.empty())
    throw IoError(kScript, "is missing from this installation (share/strata/python/)");
  const ScratchFolder scratch("strata-verify-");  // the script's output
  const std::filesystem::path promptsFile = scratch.path() / "prompts.json";
  std::ofstream(promptsFile) << nlohmann::json(prompts).dump();

  job.progress(0.0, "starting transformers (" + python + ")");
  std::vector<std::string> command{python, script.string(), model.string(), promptsFile.string(),
                                   scratch.path().string()};
  if (bfloat16) command.push_back("--bf16");
  const ChildProcessResult result = runChildProcess(
      command, {.timeout = timeout,
                .onStdoutLine = [&job](const std::string& line) { forwardProgress(line, job); },
                .job = &job});
  const std::string folder = "the model folder '" + model.string() + "'";
  if (result.timedOut)
    throw Error("transformers did not finish with " + folder + " within " +
                std::to_string(timeout.count()) + " s");
  if (result.exitCode == kExitMissingModule)
    throw TransformersUnavailableError(python, "transformers is not installed for " + python +
                                                   " (" + lastLines(result.stderrTail, 1) +
                                                   "): run scripts/setup.sh or pass --python");
  if (result.exitCode == kExitLoadFailed) {
    const std::string& err = result.stderrTail;
    const std::size_t at = err.rfind("transformers cannot load");
    const std::size_t reason = at == std::string::npos ? std::string::npos : err.find(": ", at);
    throw Error(
        "transformers cannot load " + folder + ": " +
        (reason == std::string::npos ? lastLines(err, 3) : lastLines(err.substr(reason + 2), 3)));
  }
  if (result.exitCode != 0)
    throw Error("the transformers side of verify failed on " + folder + " (" +
                (result.signal ? "signal " + std::to_string(result.signal)
                               : "exit " + std::to_string(result.exitCode)) +
                "): " + lastLines(result.stderrTail, 3));
  TransformersReference reference = readReference(scratch.path(), model, prompts);
  reference.python = python;  // as the user named it (the script would say sys.executable)
  return reference;
}

}  // namespace strata::verify
