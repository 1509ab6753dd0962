#include "log_dock.h"

#include <QAction>
#include <QClipboard>
#include <QDateTime>
#include <QFontDatabase>
#include <QGuiApplication>
#include <QMenu>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QTextCursor>

namespace strata {
namespace {

QString levelTag(MessageLevel level) {
  switch (level) {
    case MessageLevel::Info:
      return QStringLiteral("info");
    case MessageLevel::Warning:
      return QStringLiteral("warning");
    case MessageLevel::Error:
      return QStringLiteral("error");
  }
  return {};
}

// Colours readable on both light and dark palettes.
QString levelColour(MessageLevel level) {
  switch (level) {
    case MessageLevel::Info:
      return {};
    case MessageLevel::Warning:
      return QStringLiteral("#c77800");
    case MessageLevel::Error:
      return QStringLiteral("#d32f2f");
  }
  return {};
}

}  // namespace

LogDock::LogDock(QWidget* parent)
    : QDockWidget(tr("Log"), parent),
      m_view(new QPlainTextEdit(this)),
      m_copyAll(new QAction(tr("Copy All"), this)),
      m_clear(new QAction(tr("Clear"), this)) {
  setObjectName(QStringLiteral("LogDock"));
  m_view->setReadOnly(true);
  m_view->setMaximumBlockCount(20000);  // a long session must not grow without bound
  m_view->setLineWrapMode(QPlainTextEdit::NoWrap);
  m_view->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  m_view->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(m_copyAll, &QAction::triggered, this,
          [this] { QGuiApplication::clipboard()->setText(text()); });
  connect(m_clear, &QAction::triggered, this, &LogDock::clear);
  connect(m_view, &QPlainTextEdit::customContextMenuRequested, this, [this](const QPoint& at) {
    QMenu* menu = m_view->createStandardContextMenu();
    menu->setAttribute(Qt::WA_DeleteOnClose);
    menu->addSeparator();
    menu->addAction(m_copyAll);
    menu->addAction(m_clear);
    menu->popup(m_view->viewport()->mapToGlobal(at));
  });
  setWidget(m_view);
}

void LogDock::append(MessageLevel level, const QString& text) {
  const QString time = QDateTime::currentDateTime().toString(QStringLiteral("HH:mm:ss"));
  QString line = time + QLatin1Char(' ');
  if (level != MessageLevel::Info) line += levelTag(level) + QStringLiteral(": ");
  line += text;
  // An explicit format per line: appendHtml() would let one line's colour leak into the next.
  QTextCharFormat format;
  const QString colour = levelColour(level);
  format.setForeground(colour.isEmpty() ? palette().brush(QPalette::Text) : QBrush(QColor(colour)));
  QTextCursor cursor(m_view->document());
  cursor.movePosition(QTextCursor::End);
  if (!m_view->document()->isEmpty()) cursor.insertBlock();
  cursor.insertText(line, format);
  m_view->verticalScrollBar()->setValue(m_view->verticalScrollBar()->maximum());
}

void LogDock::appendMessage(int level, const QString& text) {
  append(static_cast<MessageLevel>(level), text);
}

QString LogDock::text() const { return m_view->toPlainText(); }

void LogDock::clear() { m_view->clear(); }

}  // namespace strata
