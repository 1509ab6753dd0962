#pragma once
// `inspect STORE.h5`: what an activation store holds (the model it was captured from, its
// shape, the finished layers, how the corpus was sampled) and, when it has been scored, the l*
// its /geometry keeps. Reads /meta, the token count, the layer flags and /geometry only.

#include <filesystem>

namespace strata::cli {

/** Prints the store (a table, or JSON); returns the exit code. */
int inspectStore(const std::filesystem::path& file, bool json);

}  // namespace strata::cli
