#include "command_line.h"

#include <algorithm>
#include <sstream>

namespace strata::cli {

CommandLine::CommandLine(std::string command, std::string summary)
    : m_command(std::move(command)), m_summary(std::move(summary)) {}

CommandLine& CommandLine::option(std::string name, std::string valueName, std::string help,
                                 std::optional<std::string> defaultValue) {
  m_options.push_back(
      {std::move(name), std::move(valueName), std::move(help), true, std::move(defaultValue)});
  return *this;
}

CommandLine& CommandLine::flag(std::string name, std::string help) {
  m_options.push_back({std::move(name), "", std::move(help), false, std::nullopt});
  return *this;
}

CommandLine& CommandLine::positional(std::string name, std::string help) {
  m_positionals.push_back({std::move(name), "", std::move(help), true, std::nullopt});
  return *this;
}

const CommandLine::Spec* CommandLine::findOption(const std::string& name) const {
  auto found = std::find_if(m_options.begin(), m_options.end(),
                            [&](const Spec& spec) { return spec.name == name; });
  return found == m_options.end() ? nullptr : &*found;
}

bool CommandLine::parse(const std::vector<std::string>& args) {
  std::size_t nextPositional = 0;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--help" || arg == "-h") return false;
    if (arg.rfind("--", 0) == 0 && arg.size() > 2) {
      std::string name = arg.substr(2);
      std::optional<std::string> inlineValue;
      if (const auto eq = name.find('='); eq != std::string::npos) {
        inlineValue = name.substr(eq + 1);
        name.resize(eq);
      }
      const Spec* spec = findOption(name);
      if (!spec) {
        // `verify --model DIR` as other commands take it: point at the argument it is here.
        for (const Spec& positional : m_positionals)
          if (positional.name.rfind(name, 0) == 0)
            throw UsageError("unknown option --" + name + " for '" + m_command +
                             "': give it as the argument <" + positional.name + ">");
        throw UsageError("unknown option --" + name + " for '" + m_command + "'");
      }
      if (!spec->takesValue) {
        if (inlineValue) throw UsageError("--" + name + " takes no value");
        m_values[name] = "true";
      } else if (inlineValue) {
        m_values[name] = *inlineValue;
      } else {
        if (i + 1 >= args.size())
          throw UsageError("--" + name + " needs a value (" + spec->valueName + ")");
        m_values[name] = args[++i];
      }
      continue;
    }
    if (nextPositional >= m_positionals.size())
      throw UsageError("unexpected argument '" + arg + "' for '" + m_command + "'");
    m_values[m_positionals[nextPositional++].name] = arg;
  }
  if (nextPositional < m_positionals.size())
    throw UsageError("missing argument <" + m_positionals[nextPositional].name + "> for '" +
                     m_command + "'");
  return true;
}

bool CommandLine::has(const std::string& name) const {
  if (m_values.count(name)) return true;
  const Spec* spec = findOption(name);
  return spec && spec->defaultValue.has_value();
}

std::optional<std::string> CommandLine::optionalValue(const std::string& name) const {
  if (auto found = m_values.find(name); found != m_values.end()) return found->second;
  if (const Spec* spec = findOption(name)) return spec->defaultValue;
  return std::nullopt;
}

std::string CommandLine::value(const std::string& name) const {
  auto found = optionalValue(name);
  if (!found) throw UsageError("missing --" + name + " for '" + m_command + "'");
  return *found;
}

int64_t CommandLine::integer(const std::string& name) const {
  const std::string text = value(name);
  std::size_t used = 0;
  try {
    const long long parsed = std::stoll(text, &used);
    if (used == text.size()) return parsed;
  } catch (const std::exception&) {
  }
  throw UsageError("--" + name + " must be an integer, got '" + text + "'");
}

double CommandLine::number(const std::string& name) const {
  const std::string text = value(name);
  std::size_t used = 0;
  try {
    const double parsed = std::stod(text, &used);
    if (used == text.size()) return parsed;
  } catch (const std::exception&) {
  }
  throw UsageError("--" + name + " must be a number, got '" + text + "'");
}

std::pair<int64_t, int64_t> CommandLine::layerRange(const std::string& name) const {
  const std::string text = value(name);
  const auto layer = [](const std::string& part) -> std::optional<int64_t> {
    if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos ||
        part.size() > 9)
      return std::nullopt;
    return std::stoll(part);
  };
  const std::size_t dots = text.find("..");
  const auto first = layer(text.substr(0, dots));
  const auto last = dots == std::string::npos ? first : layer(text.substr(dots + 2));
  if (!first || !last)
    throw UsageError("--" + name + " must be a layer or a range A..B of layers, got '" + text +
                     "'");
  if (*first > *last)
    throw UsageError("--" + name + " " + text + " is empty: the first layer comes after the last");
  return {*first, *last};
}

bool CommandLine::isSet(const std::string& flagName) const { return m_values.count(flagName) > 0; }

std::string CommandLine::help() const {
  std::ostringstream out;
  out << "usage: strata-cli " << m_command << " [options]";
  for (const Spec& spec : m_positionals) out << " <" << spec.name << ">";
  out << "\n\n" << m_summary << "\n";
  if (!m_positionals.empty()) {
    out << "\narguments:\n";
    for (const Spec& spec : m_positionals)
      out << "  <" << spec.name << ">\n      " << spec.help << "\n";
  }
  out << "\noptions:\n";
  for (const Spec& spec : m_options) {
    out << "  --" << spec.name << (spec.takesValue ? " " + spec.valueName : "") << "\n      "
        << spec.help;
    if (spec.defaultValue) out << " (default: " << *spec.defaultValue << ")";
    out << "\n";
  }
  out << "  --help\n      show this help and exit\n";
  return out.str();
}

}  // namespace strata::cli
