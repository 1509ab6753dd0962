#include "error_dialog.h"

#include <QMessageBox>

namespace strata {

QMessageBox* showErrorDialog(QWidget* parent, const ErrorReport& report) {
  auto* box = new QMessageBox(QMessageBox::Critical, QObject::tr("Strata"), report.summary,
                              QMessageBox::Ok, parent);
  box->setObjectName(QStringLiteral("ErrorDialog"));
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->setInformativeText(report.error);
  box->setDetailedText(report.details.isEmpty() ? report.error : report.details);
  box->setTextInteractionFlags(Qt::TextSelectableByMouse);
  box->open();
  return box;
}

}  // namespace strata
