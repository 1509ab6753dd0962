#pragma once
// A finished run evaluated again, after training, on data its training and its validation never
// saw: the recipe is rebuilt from the run's own settings with a few changed (e.g. a shorter
// held-out tail, so its windows lie past the ones validation used), the run's chosen checkpoint
// (the best, else the newest) is loaded into it, and the recipe's own evaluate() runs — the very
// code that produced the validation numbers, on other windows. A study that picks an arm by its
// validation numbers tests the pick on these (study_verdict.h, selected claims).

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace strata::studies {

/** The recipe's evaluation metrics (unprefixed: "masked_ce", "loss", ...) of `run`'s chosen
 *  checkpoint under the run's settings with `overrides` ("key=value") applied, on `device`.
 *  Files the recipe writes while it builds go to a scratch folder inside the run, removed
 *  afterwards. FormatError/IoError naming the run when it has no settings or no checkpoint. */
std::map<std::string, double> evaluateRunAgain(const std::filesystem::path& run,
                                               const std::vector<std::string>& overrides,
                                               const std::string& device);

}  // namespace strata::studies
