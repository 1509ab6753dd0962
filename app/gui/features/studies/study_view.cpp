#include "study_view.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace strata {

QString studyMarkdown(const QString& folder) {
  const QDir dir(folder);
  QString text;
  QFile report(dir.filePath(QStringLiteral("study.md")));
  if (report.open(QIODevice::ReadOnly))
    text = QString::fromUtf8(report.readAll());
  else
    text = StudyView::tr(
               "*No analysis yet: %1 has no study.md. It is written after the first "
               "finished run.*")
               .arg(QDir::toNativeSeparators(dir.absolutePath()));
  const QStringList plots = QDir(dir.filePath(QStringLiteral("plots")))
                                .entryList({QStringLiteral("*.png")}, QDir::Files, QDir::Name);
  if (!plots.isEmpty()) {
    text += QStringLiteral("\n\n## ") + StudyView::tr("Plots") + QStringLiteral("\n");
    for (const QString& plot : plots) text += QStringLiteral("\n![%1](plots/%1)\n").arg(plot);
  }
  return text;
}

StudyView::StudyView(const QString& folder, QWidget* parent)
    : QWidget(parent),
      m_folder(folder),
      m_header(new QLabel(this)),
      m_browser(new QTextBrowser(this)) {
  m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_header->setText(tr("<b>Study</b> %1").arg(QDir::toNativeSeparators(folder).toHtmlEscaped()));
  m_browser->setOpenExternalLinks(true);
  m_browser->setSearchPaths({folder});  // the plots' relative paths
  auto* reloadButton = new QPushButton(tr("Reload"), this);
  reloadButton->setToolTip(tr("Read study.md and the plots again"));
  connect(reloadButton, &QPushButton::clicked, this, &StudyView::reload);

  auto* top = new QHBoxLayout;
  top->addWidget(m_header, 1);
  top->addWidget(reloadButton);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(top);
  layout->addWidget(m_browser, 1);
  reload();
}

void StudyView::reload() {
  m_markdown = studyMarkdown(m_folder);
  m_browser->clearHistory();
  m_browser->setMarkdown(m_markdown);
}

}  // namespace strata
