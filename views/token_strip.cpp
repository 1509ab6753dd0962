#include "token_strip.h"

#include <QHelpEvent>
#include <QTextCharFormat>
#include <QTextCursor>
#include <QToolTip>

#include "recipes/dcdm/chunk_routing.h"

namespace strata {

static_assert(TokenStrip::kTokenProperty == QTextFormat::UserProperty + 1);

QString visibleTokenText(const std::string& bytes) {
  QString text = QString::fromUtf8(bytes.data(), static_cast<qsizetype>(bytes.size()));
  text.replace(QLatin1Char('\n'), QStringLiteral("↵"));
  text.replace(QLatin1Char('\t'), QStringLiteral("⇥"));
  return text;
}

TokenStrip::TokenStrip(QWidget* parent) : QTextBrowser(parent) {
  setOpenLinks(false);
  setMouseTracking(true);
  setPlaceholderText(tr("Type a text above or pick one from the corpus to see its routing."));
}

QColor TokenStrip::chunkColour(int64_t chunk, int64_t chunks) {
  const int hue = chunks > 0 ? static_cast<int>(359 * chunk / std::max<int64_t>(chunks, 1)) : 0;
  return QColor::fromHsv(hue, 90, 255);
}

QString TokenStrip::tokenToolTip(const recipes::ChunkRoutingReport& report, size_t position) {
  const int64_t chunk = position < report.chunkIds.size() ? report.chunkIds[position] : 0;
  const std::string& token =
      position < report.tokenTexts.size() ? report.tokenTexts[position] : std::string();
  QStringList lines{QObject::tr("position %1 — chunk %2 — “%3”")
                        .arg(position)
                        .arg(chunk)
                        .arg(visibleTokenText(token))};
  if (position < report.affinities.size()) {
    const auto& affinity = report.affinities[position];
    for (size_t k = 0; k < affinity.size(); ++k) {
      const float share =
          position < report.assignments.size() && k < report.assignments[position].size()
              ? report.assignments[position][k]
              : 0.0F;
      lines << QObject::tr("chunk %1: affinity %2, assignment %3")
                   .arg(k)
                   .arg(static_cast<double>(affinity[k]), 0, 'f', 4)
                   .arg(static_cast<double>(share), 0, 'f', 3);
    }
  } else {
    lines << QObject::tr("(%1 run: no affinities)")
                 .arg(QLatin1String(model::dlmVariantName(report.variant)));
  }
  return lines.join(QLatin1Char('\n'));
}

void TokenStrip::showReport(const recipes::ChunkRoutingReport& report) {
  clear();
  QTextCursor cursor(document());
  const QTextCharFormat gap;
  for (size_t t = 0; t < report.tokenTexts.size(); ++t) {
    QTextCharFormat format;
    const int64_t chunk = t < report.chunkIds.size() ? report.chunkIds[t] : 0;
    format.setBackground(chunkColour(chunk, report.chunks));
    format.setForeground(Qt::black);
    format.setToolTip(tokenToolTip(report, t));
    format.setProperty(kTokenProperty, static_cast<int>(t));
    QString text = visibleTokenText(report.tokenTexts[t]);
    if (text.isEmpty()) text = QStringLiteral("∅");
    cursor.insertText(text, format);
    cursor.insertText(QString(QChar(0x200A)), gap);  // a hair space shows token boundaries
  }
}

QString TokenStrip::toolTipAt(const QPoint& point) const {
  // cursorForPosition gives the nearest boundary; the token is the character whose box holds
  // the point: the one after that boundary or the one before it.
  const int boundary = cursorForPosition(point).position();
  for (const int position : {boundary, boundary - 1}) {
    if (position < 0) continue;
    QTextCursor before(document());
    before.setPosition(position);
    QTextCursor after(document());
    if (position + 1 >= document()->characterCount()) continue;
    after.setPosition(position + 1);
    const QRect left = cursorRect(before);
    const QRect right = cursorRect(after);
    if (left.top() == right.top() && point.x() >= left.left() && point.x() < right.left() &&
        point.y() >= left.top() && point.y() <= left.bottom())
      return after.charFormat().toolTip();
  }
  return {};
}

bool TokenStrip::viewportEvent(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const QString tip = toolTipAt(help->pos());
    if (tip.isEmpty())
      QToolTip::hideText();
    else
      QToolTip::showText(help->globalPos(), tip, viewport());
    return true;
  }
  return QTextBrowser::viewportEvent(event);
}

}  // namespace strata
