#pragma once
// TokenStrip: a routed sequence as text, every token on the background colour of its chunk;
// hovering a token shows its affinity to each of the K chunks. Display only — it is handed a
// ChunkRoutingReport and computes nothing. GUI thread only.

#include <QColor>
#include <QTextBrowser>

namespace strata {

namespace recipes {
struct ChunkRoutingReport;
}  // namespace recipes

class TokenStrip final : public QTextBrowser {
 public:
  /** The character-format property that holds a token's position (tests and hover read it). */
  static constexpr int kTokenProperty = 0x100000 + 1;  // QTextFormat::UserProperty + 1

  explicit TokenStrip(QWidget* parent = nullptr);

  /** Replaces the text with `report`'s tokens. */
  void showReport(const recipes::ChunkRoutingReport& report);
  /** The colour of chunk `chunk` of `chunks` (the heatmap's rows use the same). */
  static QColor chunkColour(int64_t chunk, int64_t chunks);
  /** "chunk 2 — 'cat'\nchunk 0: 0.12\n…" for token `position` of `report`. */
  static QString tokenToolTip(const recipes::ChunkRoutingReport& report, size_t position);
  /** The tooltip of the token under `point` (viewport coordinates), or empty. */
  QString toolTipAt(const QPoint& point) const;

 protected:
  bool viewportEvent(QEvent* event) override;
};

/** A token as readable text: newlines and tabs made visible, invalid UTF-8 replaced. */
QString visibleTokenText(const std::string& bytes);

}  // namespace strata
