#pragma once
// StudyView: a study's results in a tab — DIR/study.md (the protocol, every aggregate with its
// interval, each claim's verdict) followed by the plots in DIR/plots/*.png. Reload reads the
// folder again (a study still running elsewhere writes its analysis after each run). GUI
// thread only; no maths here: the core writes study.md and the plots.

#include <QString>
#include <QWidget>

class QLabel;
class QTextBrowser;

namespace strata {

class StudyView final : public QWidget {
  Q_OBJECT

 public:
  explicit StudyView(const QString& folder, QWidget* parent = nullptr);

  QString folder() const { return m_folder; }
  /** The Markdown shown: study.md, then one image per plot. */
  QString markdown() const { return m_markdown; }
  QTextBrowser* browser() const { return m_browser; }

 public slots:
  void reload();

 private:
  QString m_folder;
  QString m_markdown;
  QLabel* m_header;
  QTextBrowser* m_browser;
};

/** The Markdown a StudyView shows for `folder` (empty text saying so when nothing is there). */
QString studyMarkdown(const QString& folder);

}  // namespace strata
