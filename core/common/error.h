#pragma once
// The small family of exceptions Strata throws. Each names what went wrong and where (file,
// tensor, field) so that the edge — the CLI or a GUI dialog — can show one readable line.

#include <filesystem>
#include <stdexcept>
#include <string>

namespace strata {

/** Base of every error Strata raises on purpose. what() is a complete, user-readable line. */
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

/** A file is not what its format requires. `item` names the tensor, dataset or key at fault. */
class FormatError : public Error {
 public:
  /** `itemKind` words the item in the message: "tensor", "dataset", "key", ... */
  FormatError(std::filesystem::path file, std::string problem, std::string item = {},
              const std::string& itemKind = "tensor");
  const std::filesystem::path& file() const { return m_file; }
  const std::string& item() const { return m_item; }
  const std::string& problem() const { return m_problem; }

 private:
  std::filesystem::path m_file;
  std::string m_item;
  std::string m_problem;
};

/** A configuration (config.json, a run config, a command-line option) has a bad field. */
class ConfigError : public Error {
 public:
  ConfigError(std::filesystem::path file, std::string field, std::string problem);
  const std::filesystem::path& file() const { return m_file; }
  const std::string& field() const { return m_field; }

 private:
  std::filesystem::path m_file;
  std::string m_field;
};

/** The operating system refused a file operation (open, write, rename, mmap, disk full). */
class IoError : public Error {
 public:
  IoError(std::filesystem::path file, std::string problem);
  const std::filesystem::path& file() const { return m_file; }

 private:
  std::filesystem::path m_file;
};

/** A job noticed its cancellation token and stopped; not a failure. */
class CancelledError : public Error {
 public:
  CancelledError() : Error("cancelled") {}
};

/** "strerror(errno)" for the current errno, for IoError messages. */
std::string lastSystemError();

}  // namespace strata
