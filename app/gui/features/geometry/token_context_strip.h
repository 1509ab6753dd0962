#pragma once
// TokenContextStrip: the text around the token selected in the layer detail scatter (LIT's
// "context" view): ~10 tokens either side from the same document, the selected one highlighted,
// "…" where the store has no row for a position. Clicking another token of the strip asks for
// it to be selected (tokenClicked), so one can walk along the text. Display only: it is handed
// a LayerDetail and a row and shows what tokenContext() finds. GUI thread only.

#include <QTextBrowser>
#include <cstdint>

namespace strata {

namespace engine {
struct LayerDetail;
}  // namespace engine

class TokenContextStrip final : public QTextBrowser {
  Q_OBJECT

 public:
  /** Character-format properties: the store row of a token, and "this one is selected". */
  static constexpr int kRowProperty = 0x100000 + 2;       // QTextFormat::UserProperty + 2
  static constexpr int kSelectedProperty = 0x100000 + 3;  // QTextFormat::UserProperty + 3
  static constexpr int kRadius = 10;

  explicit TokenContextStrip(QWidget* parent = nullptr);

  /** Shows the context of `row` of `detail`; clears when `row` is out of range. */
  void showContext(const engine::LayerDetail& detail, int64_t row);
  /** Back to the placeholder. */
  void clearContext();

  /** The highlighted token's text as drawn (empty when none), and its store row (−1). */
  QString highlightedText() const;
  int64_t highlightedRow() const;

  /** The store row of the token drawn at `point` (viewport coordinates); −1 if none. */
  int64_t rowAt(const QPoint& point) const;

  /** A token as the strip and tooltips show it: its text made visible, else "⟨id⟩". */
  static QString tokenLabel(const engine::LayerDetail& detail, int64_t row);

  QSize sizeHint() const override;

 signals:
  /** The user clicked the token of store row `row` (not the highlighted one). */
  void tokenClicked(qint64 row);

 protected:
  void mouseReleaseEvent(QMouseEvent* event) override;
};

}  // namespace strata
