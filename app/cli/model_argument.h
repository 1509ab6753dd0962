#pragma once
// A model named on the command line: a Hugging Face folder, or a .gguf file that is imported
// into a folder the first time (io/gguf/gguf_import.h), with a progress line and Ctrl-C.

#include <filesystem>

namespace strata::cli {

/** The model folder `given` stands for (see resolveModelFolder). Throws like it; a Ctrl-C
 *  during the import throws CancelledError and leaves no half-written folder. */
std::filesystem::path modelFolderArgument(const std::filesystem::path& given);

}  // namespace strata::cli
