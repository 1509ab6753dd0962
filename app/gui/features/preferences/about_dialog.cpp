#include "about_dialog.h"

#include <QApplication>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace strata {
namespace {

/** (label, value) rows in the order the dialog and the copied text show them. */
QList<std::pair<QString, QString>> rows(const AboutInfo& info) {
  return {{QStringLiteral("Build"), info.build},       {QStringLiteral("Qt"), info.qt},
          {QStringLiteral("LibTorch"), info.libtorch}, {QStringLiteral("CUDA"), info.cuda},
          {QStringLiteral("BLAS"), info.blas},         {QStringLiteral("HDF5"), info.hdf5},
          {QStringLiteral("Eigen"), info.eigen},       {QStringLiteral("Device"), info.device}};
}

}  // namespace

QString aboutPlainText(const AboutInfo& info) {
  QString text = QStringLiteral("Strata %1\n").arg(info.version);
  for (const auto& [label, value] : rows(info)) text += label + QLatin1Char(' ') + value + '\n';
  return text;
}

AboutDialog::AboutDialog(const AboutInfo& info, QWidget* parent)
    : QDialog(parent), m_plainText(aboutPlainText(info)) {
  setWindowTitle(tr("About Strata"));
  setObjectName(QStringLiteral("AboutDialog"));
  auto* layout = new QVBoxLayout(this);

  QString html = tr("<h3>Strata %1</h3>"
                    "<p>A workbench for the layer geometry of transformer hidden states, and the "
                    "diffusion models it guides (DiHAL, DCDM, REPR-ALIGN).</p><table>")
                     .arg(info.version.toHtmlEscaped());
  for (const auto& [label, value] : rows(info))
    html += QStringLiteral("<tr><td><b>%1</b>&nbsp;&nbsp;</td><td>%2</td></tr>")
                .arg(label, value.toHtmlEscaped());
  html += QStringLiteral("</table>");
  auto* label = new QLabel(html, this);
  label->setObjectName(QStringLiteral("aboutText"));
  label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  label->setWordWrap(true);
  layout->addWidget(label);

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  m_copy = buttons->addButton(tr("Copy Versions"), QDialogButtonBox::ActionRole);
  m_copy->setToolTip(tr("Copy these versions as plain text, e.g. for a bug report"));
  // An ActionRole button does not close the dialog (only accept/reject roles do).
  connect(m_copy, &QPushButton::clicked, this,
          [this] { QApplication::clipboard()->setText(m_plainText); });
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);
  setMinimumWidth(480);
}

}  // namespace strata
