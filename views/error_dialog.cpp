#include "error_dialog.h"

#include <QAbstractButton>
#include <QApplication>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QMessageBox>
#include <QPushButton>

namespace strata {

QString errorReportText(const ErrorReport& report) {
  QString text = report.summary + QLatin1Char('\n') + report.error;
  if (!report.details.isEmpty() && report.details != report.error)
    text += QStringLiteral("\n\n") + report.details;
  return text;
}

QMessageBox* showErrorDialog(QWidget* parent, const ErrorReport& report) {
  auto* box = new QMessageBox(QMessageBox::Critical, QObject::tr("Strata"), report.summary,
                              QMessageBox::Ok, parent);
  box->setObjectName(QStringLiteral("ErrorDialog"));
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->setInformativeText(report.error);
  box->setDetailedText(report.details.isEmpty() ? report.error : report.details);
  box->setTextInteractionFlags(Qt::TextSelectableByMouse);

  // "Copy Details" puts the whole report on the clipboard and leaves the box open. QMessageBox
  // closes on every button its button box reports, so this one is cut off from the button box
  // and handled here instead.
  QPushButton* copy = box->addButton(QObject::tr("Copy Details"), QMessageBox::ActionRole);
  copy->setObjectName(QStringLiteral("copyDetails"));
  if (auto* buttons = box->findChild<QDialogButtonBox*>())
    QObject::disconnect(copy, &QAbstractButton::clicked, buttons, nullptr);
  QObject::connect(copy, &QAbstractButton::clicked, box,
                   [text = errorReportText(report)] { QApplication::clipboard()->setText(text); });
  box->setDefaultButton(QMessageBox::Ok);
  // With a second button QMessageBox no longer guesses an escape button, and without one it
  // ignores Esc and the window's close button.
  box->setEscapeButton(QMessageBox::Ok);
  box->open();
  return box;
}

}  // namespace strata
