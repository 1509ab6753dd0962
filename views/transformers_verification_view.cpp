#include "transformers_verification_view.h"

#include <QColor>
#include <QHeaderView>
#include <QLabel>
#include <QScrollBar>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>

namespace strata {
namespace {

QString qs(const std::string& text) { return QString::fromStdString(text); }

QString scientific(double value) { return QString::number(value, 'e', 2); }

QTableWidgetItem* cell(const QString& text, Qt::Alignment alignment = Qt::AlignRight) {
  auto* item = new QTableWidgetItem(text);
  item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
  item->setTextAlignment(alignment | Qt::AlignVCenter);
  return item;
}

}  // namespace

QString verificationBadge(const verify::TransformersVerification* result) {
  if (!result) return TransformersVerificationView::tr("not verified");
  const QString version = qs(result->transformersVersion);
  return result->agrees()
             ? TransformersVerificationView::tr("✓ matches transformers %1").arg(version)
             : TransformersVerificationView::tr("✗ differs from transformers %1").arg(version);
}

TransformersVerificationView::TransformersVerificationView(
    std::shared_ptr<const verify::TransformersVerification> result, QWidget* parent)
    : QWidget(parent),
      m_result(std::move(result)),
      m_verdict(new QLabel(this)),
      m_summary(new QLabel(this)),
      m_table(new QTableWidget(this)) {
  const verify::TransformersVerification& r = *m_result;
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);

  const bool agrees = r.agrees();
  m_verdict->setText(qs(r.verdict()));
  m_verdict->setWordWrap(true);
  m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);
  QFont bold = m_verdict->font();
  bold.setBold(true);
  m_verdict->setFont(bold);
  QPalette palette = m_verdict->palette();
  palette.setColor(QPalette::WindowText,
                   agrees ? QColor(0x2e, 0x7d, 0x32) : QColor(0xc6, 0x28, 0x28));
  m_verdict->setPalette(palette);

  int differing = 0;
  for (const verify::PromptTokens& prompt : r.prompts) differing += prompt.equal() ? 0 : 1;
  m_summary->setText(
      tr("Top-1 agreement: %1% of %2 positions\nTokenization: %3\n"
         "transformers %4, torch %5 (%6), %7")
          .arg(100.0 * r.top1Agreement, 0, 'f', 1)
          .arg(r.positions)
          .arg(differing == 0
                   ? tr("identical ids on all %1 prompts").arg(r.prompts.size())
                   : tr("ids differ on %1 of %2 prompts").arg(differing).arg(r.prompts.size()))
          .arg(qs(r.transformersVersion), qs(r.torchVersion), qs(r.python), qs(r.architecture)));
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);

  // A bf16 check adds its relative difference as a last column (both sides in bfloat16).
  const verify::TransformersVerification* bf16 = r.bfloat16.get();
  m_table->setColumnCount(bf16 ? 5 : 4);
  m_table->setHorizontalHeaderLabels({tr("Hidden state"), tr("max |Δ|"),
                                      tr("max |h| (transformers)"), tr("Relative"),
                                      tr("Relative (bf16)")});
  m_table->horizontalHeaderItem(3)->setToolTip(
      tr("max |Δ| / max |h| of that row under transformers, both in float32; agreement needs < %1")
          .arg(verify::TransformersVerification::kTolerance));
  if (bf16)
    m_table->horizontalHeaderItem(4)->setToolTip(
        tr("Strata in bfloat16 (--compute-dtype bf16) against transformers in float32; agreement "
           "needs each row within %1× transformers' own bf16 difference from its float32 "
           "(plus %2), and top-1 agreement at most %3 points below its own")
            .arg(verify::TransformersVerification::kBFloat16Slack)
            .arg(verify::TransformersVerification::kTolerance)
            .arg(100.0 * verify::TransformersVerification::kBFloat16Top1Slack));
  m_table->verticalHeader()->hide();
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  const QString worst = qs(r.worst().name);
  const auto addRow = [&](const QString& name, const verify::TensorDifference& difference,
                          const verify::TensorDifference* inBf16) {
    const int row = m_table->rowCount();
    m_table->insertRow(row);
    m_table->setItem(row, 0, cell(name, Qt::AlignLeft));
    m_table->setItem(row, 1, cell(scientific(difference.maxAbs)));
    m_table->setItem(row, 2, cell(scientific(difference.maxRef)));
    m_table->setItem(row, 3, cell(scientific(difference.maxRel)));
    if (inBf16) m_table->setItem(row, 4, cell(scientific(inBf16->maxRel)));
    if (!agrees && name == worst)
      for (int column = 0; column < 4; ++column) {
        QFont font = m_table->item(row, column)->font();
        font.setBold(true);
        m_table->item(row, column)->setFont(font);
      }
  };
  for (std::size_t l = 0; l < r.layers.size(); ++l)
    addRow(QStringLiteral("h_%1").arg(r.layers[l].layer), r.layers[l].difference,
           bf16 && l < bf16->layers.size() ? &bf16->layers[l].difference : nullptr);
  addRow(QStringLiteral("final norm"), r.finalNorm, bf16 ? &bf16->finalNorm : nullptr);
  addRow(QStringLiteral("logits"), r.logits, bf16 ? &bf16->logits : nullptr);
  m_table->resizeColumnsToContents();
  // As wide as its columns, not the tab: a stretched last column put "Relative" a whole
  // window away from the row's name.
  m_table->horizontalHeader()->setStretchLastSection(false);
  int width = 2 * m_table->frameWidth() + m_table->verticalScrollBar()->sizeHint().width();
  for (int column = 0; column < m_table->columnCount(); ++column)
    width += m_table->columnWidth(column);
  m_table->setMaximumWidth(width);
  // Tall enough for every row: the tab scrolls as a whole.
  int height = m_table->horizontalHeader()->height() + 2 * m_table->frameWidth();
  for (int row = 0; row < m_table->rowCount(); ++row) height += m_table->rowHeight(row);
  m_table->setMinimumHeight(std::min(height, 600));

  layout->addWidget(m_verdict);
  layout->addWidget(m_summary);
  layout->addWidget(m_table, 0, Qt::AlignLeft);
}

QString TransformersVerificationView::verdictText() const { return m_verdict->text(); }

QString TransformersVerificationView::summaryText() const { return m_summary->text(); }

}  // namespace strata
