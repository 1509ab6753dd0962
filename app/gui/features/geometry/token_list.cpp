#include "token_list.h"

#include <QHeaderView>

#include "display_text.h"
#include "engine/layer_detail.h"
#include "token_context_strip.h"

namespace strata {
namespace {

constexpr int kRowRole = Qt::UserRole + 1;

QTableWidgetItem* numberItem(double value, const QString& text) {
  auto* item = new QTableWidgetItem;
  item->setData(Qt::DisplayRole, value);  // sorts as a number
  item->setData(Qt::ToolTipRole, text);
  item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  return item;
}

}  // namespace

TokenList::TokenList(QWidget* parent) : QTableWidget(parent) {
  setColumnCount(5);
  setHorizontalHeaderLabels({tr("Token"), tr("Doc"), tr("Pos"), tr("‖h‖"), QString()});
  horizontalHeaderItem(Edge)->setToolTip(tr("◆: drawn at the scatter's edge"));
  horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  horizontalHeader()->setSectionResizeMode(Token, QHeaderView::Stretch);
  verticalHeader()->hide();
  verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 4);
  setEditTriggers(QAbstractItemView::NoEditTriggers);
  setSelectionBehavior(QAbstractItemView::SelectRows);
  setSelectionMode(QAbstractItemView::SingleSelection);
  setWordWrap(false);
  // Largest ‖h‖ first until the user sorts by another column (rows without a norm keep their
  // order at the end).
  horizontalHeader()->setSortIndicator(Norm, Qt::DescendingOrder);
  connect(this, &QTableWidget::cellClicked, this, [this](int tableRow, int) {
    if (const int64_t row = storeRow(tableRow); row >= 0) emit tokenClicked(row);
  });
}

QSize TokenList::sizeHint() const {
  return {QTableWidget::sizeHint().width(),
          horizontalHeader()->sizeHint().height() +
              kShownRows * verticalHeader()->defaultSectionSize() + 2 * frameWidth()};
}

QString TokenList::standaloneLabel(const engine::LayerDetail& detail, int64_t row) {
  QString text = TokenContextStrip::tokenLabel(detail, row);
  text.replace(QLatin1Char(' '), QStringLiteral("␣"));
  text.replace(QLatin1Char('\r'), QStringLiteral("\\r"));  // no common font has "␍"
  return text;
}

void TokenList::showTokens(const engine::LayerDetail& detail, const std::vector<int64_t>& rows,
                           const std::vector<uint8_t>& atEdge) {
  setSortingEnabled(false);  // filling a sorted table moves the rows under the loop
  clearContents();
  const int listed = static_cast<int>(std::min<std::size_t>(rows.size(), kMaxRows));
  setRowCount(listed + (rows.size() > kMaxRows ? 1 : 0));
  for (int i = 0; i < listed; ++i) {
    const int64_t row = rows[static_cast<std::size_t>(i)];
    const auto r = static_cast<std::size_t>(row);
    auto* token = new QTableWidgetItem(standaloneLabel(detail, row));
    token->setData(kRowRole, static_cast<qlonglong>(row));
    token->setToolTip(r < detail.tokenIds.size() ? tr("token id %1").arg(detail.tokenIds[r])
                                                 : QString());
    setItem(i, Token, token);
    if (r < detail.documents.size())
      setItem(i, Document, numberItem(detail.documents[r], QString()));
    if (r < detail.positions.size())
      setItem(i, Position, numberItem(detail.positions[r], QString()));
    if (r < detail.norms.size())
      setItem(i, Norm,
              numberItem(QString::number(detail.norms[r], 'g', 4).toDouble(),
                         QString::number(detail.norms[r], 'g', 6)));
    if (r < atEdge.size() && atEdge[r]) setItem(i, Edge, new QTableWidgetItem(QStringLiteral("◆")));
  }
  if (rows.size() > kMaxRows) {
    auto* more = new QTableWidgetItem(
        tr("… %1 more").arg(countText(static_cast<int64_t>(rows.size() - kMaxRows))));
    more->setFlags(Qt::NoItemFlags);
    setItem(listed, Token, more);
  }
  setSortingEnabled(rows.size() <= kMaxRows);  // the "… more" row would sort among the tokens
}

int64_t TokenList::storeRow(int tableRow) const {
  const QTableWidgetItem* token = item(tableRow, Token);
  const QVariant row = token ? token->data(kRowRole) : QVariant();
  return row.isValid() ? row.toLongLong() : -1;
}

}  // namespace strata
