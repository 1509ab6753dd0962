#pragma once
// TokenList: a table of some of a layer detail's tokens — the outliers, or those of a box drawn
// on the scatter — one row each with its text (spaces and newlines made visible: "␣", "↵"), its
// document, position and ‖h‖, and ◆ when the scatter draws it at the edge. Largest ‖h‖ first,
// sortable by any column; a click on a row asks for its token to be selected (tokenClicked).
// Display only. GUI thread only.

#include <QTableWidget>
#include <cstdint>
#include <vector>

namespace strata {

namespace engine {
struct LayerDetail;
}  // namespace engine

class TokenList final : public QTableWidget {
  Q_OBJECT

 public:
  enum Column { Token, Document, Position, Norm, Edge };
  /** Rows listed at most; the rest are counted in the last row. */
  static constexpr int kMaxRows = 2000;

  explicit TokenList(QWidget* parent = nullptr);

  /** Lists `rows` of `detail` (sorted as the header says); `atEdge` (one per token, may be
   *  empty) marks ◆. */
  void showTokens(const engine::LayerDetail& detail, const std::vector<int64_t>& rows,
                  const std::vector<uint8_t>& atEdge);
  /** The store row listed in table row `tableRow` (−1: none, or the "… more" row). */
  int64_t storeRow(int tableRow) const;

  /** The header and kShownRows rows: the scatter above takes the rest of the height. */
  QSize sizeHint() const override;
  static constexpr int kShownRows = 5;

  /** A token standing alone: its text with spaces too made visible ("␣"). */
  static QString standaloneLabel(const engine::LayerDetail& detail, int64_t row);

 signals:
  void tokenClicked(qint64 row);
};

}  // namespace strata
