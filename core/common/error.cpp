#include "common/error.h"

#include <cerrno>
#include <cstring>

namespace strata {
namespace {

std::string joinWhere(const std::filesystem::path& file, const std::string& label,
                      const std::string& item, const std::string& problem) {
  // Appended piece by piece: operator+ chains trip a false GCC 12 -Wrestrict warning.
  std::string line;
  if (!file.empty()) line.append(file.string()).append(": ");
  if (!item.empty()) line.append(label).append(" '").append(item).append("': ");
  return line.append(problem);
}

}  // namespace

FormatError::FormatError(std::filesystem::path file, std::string problem, std::string item,
                         const std::string& itemKind)
    : Error(joinWhere(file, itemKind, item, problem)),
      m_file(std::move(file)),
      m_item(std::move(item)),
      m_problem(std::move(problem)) {}

ConfigError::ConfigError(std::filesystem::path file, std::string field, std::string problem)
    : Error(joinWhere(file, "field", field, problem)),
      m_file(std::move(file)),
      m_field(std::move(field)) {}

IoError::IoError(std::filesystem::path file, std::string problem)
    : Error(joinWhere(file, "", "", problem)), m_file(std::move(file)) {}

std::string lastSystemError() { return std::strerror(errno); }

}  // namespace strata
