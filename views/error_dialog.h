#pragma once
// Errors reach the user here: a message box with one short sentence, the error's own line as
// informative text, and the full details (path, what was being done) in "Show Details…",
// where they can be selected; "Copy Details" puts the whole report on the clipboard. The box
// is shown with open(), never exec(): it does not start a nested event loop, so jobs, timers
// and offscreen tests keep running.

#include <QString>

class QMessageBox;
class QWidget;

namespace strata {

struct ErrorReport {
  QString summary;  ///< what failed, in one sentence: "Could not open the model folder 'x'."
  QString error;    ///< the exception's what(): one readable line naming the file
  QString details;  ///< everything useful for a bug report; copyable
};

/** The report as the clipboard gets it: summary, error line, then the details. */
QString errorReportText(const ErrorReport& report);

/** Shows `report` window-modally over `parent` and returns the box (deleted when closed). */
QMessageBox* showErrorDialog(QWidget* parent, const ErrorReport& report);

}  // namespace strata
