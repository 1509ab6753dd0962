#pragma once
// A small, strict command-line parser for strata-cli's subcommands: declared options and
// positionals, generated --help, and a UsageError for anything it does not understand.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/error.h"

namespace strata::cli {

/** Wrong usage of a command; the CLI prints it with the command's help and exits 2. */
class UsageError : public Error {
 public:
  using Error::Error;
};

class CommandLine {
 public:
  CommandLine(std::string command, std::string summary);

  /** An option taking a value: --name VALUE or --name=VALUE. */
  CommandLine& option(std::string name, std::string valueName, std::string help,
                      std::optional<std::string> defaultValue = std::nullopt);
  /** A boolean switch: --name. */
  CommandLine& flag(std::string name, std::string help);
  /** A positional argument, in declaration order. */
  CommandLine& positional(std::string name, std::string help);

  /** Parses `args` (without the program and command names). Returns false when --help was asked. */
  bool parse(const std::vector<std::string>& args);

  bool has(const std::string& name) const;
  std::string value(const std::string& name) const;
  std::optional<std::string> optionalValue(const std::string& name) const;
  bool isSet(const std::string& flagName) const;
  /** The option's value as an integer / a number; UsageError naming the option otherwise. */
  int64_t integer(const std::string& name) const;
  double number(const std::string& name) const;
  /** The option's value as layers "A..B" (or one layer "A"): whole numbers, 0 ≤ A ≤ B;
   *  UsageError naming the option otherwise. */
  std::pair<int64_t, int64_t> layerRange(const std::string& name) const;
  std::string help() const;

 private:
  struct Spec {
    std::string name, valueName, help;
    bool takesValue = true;
    std::optional<std::string> defaultValue;
  };
  const Spec* findOption(const std::string& name) const;

  std::string m_command, m_summary;
  std::vector<Spec> m_options;
  std::vector<Spec> m_positionals;
  std::map<std::string, std::string> m_values;
};

}  // namespace strata::cli
