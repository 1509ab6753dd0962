#pragma once
// DIR/study.json (core/studies/study_report.h) drawn as PNGs in DIR/plots: per reported metric
// the arms' means with their 95 % intervals and the seeds' values
// (<metric>.png, with the reference values its claims compare against), per curve the arms'
// means over steps with the interval as a band (curve_<name>.png), and per metric with claims
// the claims' paired differences with their intervals against 0 (claims_<metric>.png).

#include <QString>
#include <QStringList>

namespace strata {

/** Reads `studyFolder`/study.json (core's readStudyReport), writes the PNGs, returns their
 *  paths. Throws IoError / FormatError naming the file when study.json is missing or is not a
 *  study report. */
QStringList writeStudyPlots(const QString& studyFolder);

}  // namespace strata
