#pragma once
// When and where a file was written, as Strata's records state it (run.json, study.json, an
// activation store's metadata, TensorBoard event file names).

#include <string>

namespace strata {

/** "2024-05-01T12:00:00Z", now, in UTC. */
std::string utcNow();

/** This machine's host name; `fallback` when it has none (run.json says "unknown"; TensorBoard
 *  event file names say "localhost", as TensorBoard's own writer does). */
std::string hostName(const std::string& fallback = "unknown");

}  // namespace strata
