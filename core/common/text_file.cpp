#include "common/text_file.h"

#include <fstream>
#include <sstream>

#include "common/error.h"

namespace strata {

std::string readWholeFile(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw IoError(file, "cannot open for reading: " + lastSystemError());
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw IoError(file, "cannot read: " + lastSystemError());
  return text.str();
}

}  // namespace strata
