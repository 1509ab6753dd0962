#include "bridgeability_view.h"

#include <qcustomplot.h>

#include <QDir>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QSplitter>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>
#include <cmath>

#include "display_text.h"
#include "plot_export.h"
#include "plot_palette.h"

namespace strata {
namespace {

const QColor kPointColour(31, 119, 180);
const QColor kBestColour(255, 127, 14);

enum Column { LayerColumn, ScoreColumn, LossColumn, CosineColumn, GapColumn, RunColumn };

QString number(double value, int digits = 4) {
  return std::isfinite(value) ? QString::number(value, 'g', digits) : QStringLiteral("—");
}

/** CSV cell: full precision, empty for NaN; a run path is quoted when it needs to be. */
QString csvNumber(double value) {
  return std::isfinite(value) ? QString::number(value, 'g', 10) : QString();
}
QString csvText(QString text) {
  if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"'))) return text;
  return QLatin1Char('"') + text.replace(QLatin1Char('"'), QStringLiteral("\"\"")) +
         QLatin1Char('"');
}

}  // namespace

BridgeabilityView::BridgeabilityView(const QString& folder,
                                     std::shared_ptr<const recipes::BridgeSweepResult> result,
                                     QWidget* parent)
    : QWidget(parent),
      m_folder(folder),
      m_header(new QLabel(this)),
      m_plot(new QCustomPlot(this)),
      m_caption(new QLabel(this)),
      m_table(new QTableWidget(this)),
      m_export(new QToolButton(this)) {
  setObjectName(QStringLiteral("BridgeabilityView"));
  followPalette(m_plot);
  m_header->setText(tr("Bridgeability sweep in %1").arg(QDir::toNativeSeparators(folder)));
  m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_header->setWordWrap(true);

  m_plot->setMinimumSize(320, 240);
  m_plot->setWindowTitle(tr("Score vs bridge loss"));
  m_plot->xAxis->setLabel(tr("score S(l)"));
  m_plot->yAxis->setLabel(tr("best validation loss of the bridge at l"));
  m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  m_points = m_plot->addGraph();
  m_points->setName(tr("layers"));
  m_points->setLineStyle(QCPGraph::lsNone);
  m_points->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, kPointColour, 9));
  m_best = m_plot->addGraph();
  m_best->setName(tr("l* by score"));
  m_best->setLineStyle(QCPGraph::lsNone);
  m_best->setScatterStyle(
      QCPScatterStyle(QCPScatterStyle::ssStar, QPen(kBestColour, 2), kBestColour, 16));
  m_plot->legend->setVisible(true);

  m_caption->setObjectName(QStringLiteral("caption"));
  m_caption->setWordWrap(true);
  m_caption->setTextInteractionFlags(Qt::TextSelectableByMouse);

  m_table->setColumnCount(6);
  m_table->setHorizontalHeaderLabels(
      {tr("Layer"), tr("S(l)"), tr("Best val loss"), tr("Val cosine"), tr("CE gap"), tr("Run")});
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->verticalHeader()->setVisible(false);
  m_table->horizontalHeader()->setStretchLastSection(true);
  m_table->setToolTip(tr("Double-click a layer to show its run in the Training tab"));
  connect(m_table, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
    if (const QTableWidgetItem* item = m_table->item(row, RunColumn))
      emit runActivated(item->text());
  });

  m_export->setText(tr("Export"));
  m_export->setPopupMode(QToolButton::InstantPopup);
  auto* menu = new QMenu(m_export);
  const QString name = QFileInfo(folder).fileName() + QStringLiteral("-bridgeability");
  addPlotExportActions(menu, m_plot, name);
  menu->addAction(tr("Save Table as CSV…"), this, [this, name] {
    askToSave(this, tr("Save Table as CSV"), tr("CSV files (*.csv)"), name + QStringLiteral(".csv"),
              QStringLiteral("csv"), [this](const QString& file) { saveCsv(file); });
  });
  m_export->setMenu(menu);

  auto* top = new QHBoxLayout;
  top->addWidget(m_header, 1);
  top->addWidget(m_export);
  auto* left = new QWidget(this);
  auto* leftLayout = new QVBoxLayout(left);
  leftLayout->setContentsMargins(0, 0, 0, 0);
  leftLayout->addWidget(m_plot, 1);
  leftLayout->addWidget(m_caption);
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(left);
  split->addWidget(m_table);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(top);
  layout->addWidget(split, 1);
  setResult(std::move(result));
}

void BridgeabilityView::setResult(std::shared_ptr<const recipes::BridgeSweepResult> result) {
  m_result = std::move(result);
  m_caption->setText(captionText(*m_result));
  fillPlot();
  fillTable();
}

QString BridgeabilityView::captionText(const recipes::BridgeSweepResult& r) {
  const QString rho = std::isfinite(r.rho) ? QString::number(r.rho, 'f', 2) : tr("undefined");
  return tr("Spearman ρ(S, −val loss) = %1, permutation p = %2 (n = %3 layers). "
            "l* by score: layer %4; lowest val loss: layer %5.")
      .arg(rho, QString::number(r.pValue, 'g', 3))
      .arg(r.rows.size())
      .arg(r.bestByScore)
      .arg(r.bestByLoss);
}

void BridgeabilityView::fillPlot() {
  m_points->data()->clear();
  m_best->data()->clear();
  m_plot->clearItems();
  m_labelTexts.clear();
  for (const recipes::BridgeSweepRow& row : m_result->rows) {
    const bool best = row.layer == m_result->bestByScore;
    m_points->addData(row.score, row.valLoss);
    if (best) m_best->addData(row.score, row.valLoss);
    auto* label = new QCPItemText(m_plot);
    label->position->setType(QCPItemPosition::ptPlotCoords);
    label->position->setCoords(row.score, row.valLoss);
    label->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
    label->setPadding(QMargins(6, 0, 0, 4));  // beside the marker, not on it
    const QString text = best ? tr("l* = %1").arg(row.layer) : tr("layer %1").arg(row.layer);
    label->setText(text);
    label->setColor(best ? kBestColour.darker(130) : Qt::black);
    m_labelTexts << text;
  }
  m_plot->rescaleAxes();
  // Room for the labels to the right and above the points.
  for (QCPAxis* axis : {m_plot->xAxis, m_plot->yAxis}) {
    const QCPRange range = axis->range();
    const double pad = range.size() > 0 ? range.size() * 0.15 : 0.5;
    axis->setRange(range.lower - pad * 0.5, range.upper + pad);
  }
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void BridgeabilityView::fillTable() {
  const auto& rows = m_result->rows;
  const auto& baselines = m_result->baselines;
  m_table->setRowCount(static_cast<int>(rows.size() + baselines.size()));
  int r = 0;
  const auto put = [this](int row, const recipes::BridgeSweepRow& values, const QString& layer) {
    const QStringList cells = {layer,
                               number(values.score),
                               number(values.valLoss),
                               number(values.valCosine, 3),
                               number(values.ceGap, 3),
                               toQString(values.run)};
    for (int c = 0; c < cells.size(); ++c) {
      auto* item = new QTableWidgetItem(cells[c]);
      if (c != RunColumn) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      m_table->setItem(row, c, item);
    }
  };
  for (const recipes::BridgeSweepRow& row : rows) {
    const bool best = row.layer == m_result->bestByScore;
    put(r, row, best ? tr("%1 (l*)").arg(row.layer) : QString::number(row.layer));
    if (best || row.layer == m_result->bestByLoss)
      for (int c = 0; c < m_table->columnCount(); ++c) {
        QTableWidgetItem* item = m_table->item(r, c);
        QFont font = item->font();
        font.setBold(best);
        item->setFont(font);
        if (best) item->setBackground(QColor(255, 127, 14, 50));
        if (row.layer == m_result->bestByLoss)
          item->setToolTip(tr("The lowest validation loss of the sweep"));
      }
    ++r;
  }
  for (const recipes::BridgeSweepRow& row : baselines) {
    put(r, row, tr("%1 (baseline)").arg(row.layer));
    for (int c = 0; c < m_table->columnCount(); ++c) {
      m_table->item(r, c)->setForeground(palette().color(QPalette::PlaceholderText));
      m_table->item(r, c)->setToolTip(tr("A baseline on the same budget: not part of ρ"));
    }
    ++r;
  }
  m_table->resizeColumnsToContents();
}

QString BridgeabilityView::csv() const {
  QString text = QStringLiteral("layer,score,val_loss,val_cosine,val_ce_gap,run\n");
  const auto line = [&text](const recipes::BridgeSweepRow& row) {
    text += QString::number(row.layer) + QLatin1Char(',') + csvNumber(row.score) +
            QLatin1Char(',') + csvNumber(row.valLoss) + QLatin1Char(',') +
            csvNumber(row.valCosine) + QLatin1Char(',') + csvNumber(row.ceGap) + QLatin1Char(',') +
            csvText(toQString(row.run)) + QLatin1Char('\n');
  };
  for (const recipes::BridgeSweepRow& row : m_result->rows) line(row);
  for (const recipes::BridgeSweepRow& row : m_result->baselines) line(row);
  return text;
}

void BridgeabilityView::savePlot(const QString& file) { strata::savePlot(*m_plot, file); }

void BridgeabilityView::saveCsv(const QString& file) const { saveTextFile(file, csv()); }

}  // namespace strata
