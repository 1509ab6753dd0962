#include "token_context_strip.h"

#include <QMouseEvent>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>

#include "engine/layer_detail.h"
#include "engine/token_context.h"
#include "token_strip.h"

namespace strata {
namespace {

static_assert(TokenContextStrip::kRowProperty == QTextFormat::UserProperty + 2);
static_assert(TokenContextStrip::kSelectedProperty == QTextFormat::UserProperty + 3);

const QColor kSelectedBackground(255, 200, 60);  // as the l* row of the geometry table

/** Every fragment of the strip's text whose format carries kSelectedProperty, in order. */
template <typename Visit>
void forSelectedFragments(const QTextDocument* document, Visit visit) {
  for (QTextBlock block = document->begin(); block.isValid(); block = block.next())
    for (auto it = block.begin(); !it.atEnd(); ++it)
      if (it.fragment().charFormat().boolProperty(TokenContextStrip::kSelectedProperty))
        visit(it.fragment());
}

}  // namespace

TokenContextStrip::TokenContextStrip(QWidget* parent) : QTextBrowser(parent) {
  setOpenLinks(false);
  setPlaceholderText(tr("Click a point of the scatter to read its token in context."));
}

QSize TokenContextStrip::sizeHint() const {
  // Three lines: enough for ~21 tokens of ordinary text at the scatter's width.
  return {QTextBrowser::sizeHint().width(), 3 * fontMetrics().lineSpacing() + 2 * frameWidth() +
                                                static_cast<int>(2 * document()->documentMargin())};
}

QString TokenContextStrip::tokenLabel(const engine::LayerDetail& detail, int64_t row) {
  const auto r = static_cast<std::size_t>(row);
  if (row >= 0 && r < detail.tokenTexts.size()) {
    const QString text = visibleTokenText(detail.tokenTexts[r]);
    return text.isEmpty() ? QStringLiteral("∅") : text;
  }
  return row >= 0 && r < detail.tokenIds.size() ? QStringLiteral("⟨%1⟩").arg(detail.tokenIds[r])
                                                : QString();
}

void TokenContextStrip::showContext(const engine::LayerDetail& detail, int64_t row) {
  const engine::TokenContext context =
      engine::tokenContext(detail.documents, detail.positions, row, kRadius);
  if (context.rows.empty()) {
    clearContext();
    return;
  }
  clear();
  QTextCursor cursor(document());
  const auto r = static_cast<std::size_t>(row);
  QTextCharFormat caption;
  caption.setForeground(palette().color(QPalette::PlaceholderText));
  cursor.insertText(
      tr("document %1, position %2:  ").arg(detail.documents[r]).arg(detail.positions[r]), caption);
  for (std::size_t i = 0; i < context.rows.size(); ++i) {
    const int64_t at = context.rows[i];
    if (at == engine::TokenContext::kGap) {
      cursor.insertText(QStringLiteral("…"), caption);
      continue;
    }
    QTextCharFormat format;
    format.setProperty(kRowProperty, static_cast<qlonglong>(at));
    if (i == context.selected) {
      format.setProperty(kSelectedProperty, true);
      format.setBackground(kSelectedBackground);
      format.setForeground(Qt::black);
      format.setFontWeight(QFont::Bold);
    }
    cursor.insertText(tokenLabel(detail, at), format);
    cursor.insertText(QString(QChar(0x200A)), QTextCharFormat());  // hair space: token boundary
  }
}

void TokenContextStrip::clearContext() { clear(); }

QString TokenContextStrip::highlightedText() const {
  QString text;
  forSelectedFragments(document(), [&](const QTextFragment& fragment) { text += fragment.text(); });
  return text;
}

int64_t TokenContextStrip::highlightedRow() const {
  int64_t row = -1;
  forSelectedFragments(document(), [&](const QTextFragment& fragment) {
    row = fragment.charFormat().property(kRowProperty).toLongLong();
  });
  return row;
}

int64_t TokenContextStrip::rowAt(const QPoint& point) const {
  // cursorForPosition gives the nearest boundary; the token is the character whose box holds
  // the point: the one after that boundary or the one before it (as TokenStrip::toolTipAt).
  const int boundary = cursorForPosition(point).position();
  for (const int position : {boundary, boundary - 1}) {
    if (position < 0 || position + 1 >= document()->characterCount()) continue;
    QTextCursor before(document());
    before.setPosition(position);
    QTextCursor after(document());
    after.setPosition(position + 1);  // its charFormat is the character at `position`'s
    const QRect left = cursorRect(before);
    const QRect right = cursorRect(after);
    if (left.top() == right.top() && point.x() >= left.left() && point.x() < right.left() &&
        point.y() >= left.top() && point.y() <= left.bottom()) {
      const QVariant row = after.charFormat().property(kRowProperty);
      return row.isValid() ? row.toLongLong() : -1;
    }
  }
  return -1;
}

void TokenContextStrip::mouseReleaseEvent(QMouseEvent* event) {
  QTextBrowser::mouseReleaseEvent(event);
  if (event->button() != Qt::LeftButton || textCursor().hasSelection()) return;  // not a drag
  const int64_t row = rowAt(event->pos());
  if (row >= 0 && row != highlightedRow()) emit tokenClicked(row);
}

}  // namespace strata
