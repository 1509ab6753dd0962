#pragma once
// LogDock: the session's log — one timestamped line per message, warnings and errors in colour,
// read-only, with "Copy All" and "Clear" in its context menu. GUI thread only; connect a
// JobController's messageLogged to appendMessage.

#include <QDockWidget>
#include <QString>

#include "common/job.h"

class QAction;
class QPlainTextEdit;

namespace strata {

class LogDock final : public QDockWidget {
  Q_OBJECT

 public:
  explicit LogDock(QWidget* parent = nullptr);

  void append(MessageLevel level, const QString& text);
  /** The whole log as plain text, one line per message. */
  QString text() const;

  QAction* copyAllAction() const { return m_copyAll; }
  QPlainTextEdit* view() const { return m_view; }

 public slots:
  /** `level` is a strata::MessageLevel cast to int (as JobController::messageLogged sends it). */
  void appendMessage(int level, const QString& text);
  void clear();

 private:
  QPlainTextEdit* m_view;
  QAction* m_copyAll;
  QAction* m_clear;
};

}  // namespace strata
