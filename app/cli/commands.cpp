#include "commands.h"

namespace strata::cli {

const std::vector<Command>& commands() {
  static const std::vector<Command> list{
      {"inspect", "describe a Hugging Face model folder (architecture, sizes, dtypes, tokenizer)",
       runInspect},
      {"about", "versions, compute device and threads of this installation", runAbout},
  };
  return list;
}

}  // namespace strata::cli
