#include "token_scatter.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QStandardItemModel>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>

#include "display_text.h"
#include "titled_plot.h"
#include "token_context_strip.h"
#include "token_list.h"

namespace strata {
namespace {

constexpr int kClickSlopPixels = 4;
// Points beyond a bound are drawn kEdgeBand of the bounds' width past it; the axes reach
// kClippedPad past the bounds when some are (a strip along that edge), kPad otherwise.
constexpr double kEdgeBand = 0.04;
constexpr double kClippedPad = 0.08;
constexpr double kPad = 0.04;

/** The bounds' width, or a nominal one when every coordinate is the same. */
double widthOf(const geometry::AxisBounds& bounds) {
  const double width = bounds.high - bounds.low;
  return width > 0 ? width : std::max(std::abs(bounds.low), 1.0);
}

/** Shows the item of `box` whose data is `value` (a choice made in code, not in the box). */
void showChoice(QComboBox* box, int value) {
  const int index = box->findData(value);
  if (index != box->currentIndex()) box->setCurrentIndex(index);
}

QString percentText(double share) { return QString::number(share * 100, 'f', 1); }

const geometry::ClipRule& ruleOf(TokenScatter::Range range) {
  switch (range) {
    case TokenScatter::Range::Robust:
      return geometry::kRobustClip;
    case TokenScatter::Range::Percentile:
      return geometry::kPercentileClip;
    case TokenScatter::Range::Full:
      break;
  }
  return geometry::kFullRange;
}

}  // namespace

TokenScatter::TokenScatter(std::shared_ptr<const engine::LayerDetail> detail, QWidget* parent)
    : QWidget(parent),
      m_detail(std::move(detail)),
      m_colourBy(new QComboBox(this)),
      m_rangeBox(new QComboBox(this)),
      m_reset(new QPushButton(tr("Reset View"), this)),
      m_boxSelect(new QPushButton(tr("Box Select"), this)),
      m_note(new QLabel(this)),
      m_plot(makeTitledPlot(this, tr("Tokens on the principal plane"))) {
  const auto tokens = static_cast<std::size_t>(m_detail->plane.coordinates.size() / 2);
  m_colourBy->addItem(tr("Colour by position"), static_cast<int>(Colouring::Position));
  m_colourBy->addItem(tr("Colour by token id"), static_cast<int>(Colouring::TokenId));
  m_colourBy->addItem(tr("Colour by ‖h‖"), static_cast<int>(Colouring::Norm));
  m_colourBy->setItemData(2, tr("The norm of each token's hidden state, on a log scale"),
                          Qt::ToolTipRole);
  if (m_detail->norms.size() != tokens)  // a detail made without its rows
    qobject_cast<QStandardItemModel*>(m_colourBy->model())->item(2)->setEnabled(false);
  connect(m_colourBy, &QComboBox::currentIndexChanged, this, [this](int index) {
    setColouring(static_cast<Colouring>(m_colourBy->itemData(index).toInt()));
  });

  m_rangeBox->addItem(tr("Robust range"), static_cast<int>(Range::Robust));
  m_rangeBox->setItemData(0,
                          tr("Each axis from its 5 % to its 95 % quantile, widened by half that "
                             "span on either side: points beyond are drawn at the edge"),
                          Qt::ToolTipRole);
  m_rangeBox->addItem(tr("1–99 % range"), static_cast<int>(Range::Percentile));
  m_rangeBox->setItemData(1, tr("Each axis from its 1 % to its 99 % quantile"), Qt::ToolTipRole);
  m_rangeBox->addItem(tr("Full range"), static_cast<int>(Range::Full));
  m_rangeBox->setItemData(2, tr("Every point at its place"), Qt::ToolTipRole);
  connect(m_rangeBox, &QComboBox::currentIndexChanged, this,
          [this](int index) { setRange(static_cast<Range>(m_rangeBox->itemData(index).toInt())); });

  m_reset->setToolTip(tr("Back to the whole range after zooming (wheel) and panning (drag)"));
  connect(m_reset, &QPushButton::clicked, this, &TokenScatter::resetView);
  m_boxSelect->setCheckable(true);
  m_boxSelect->setToolTip(
      tr("Drag a box to select the tokens in it (a drag with Shift held does the same)"));
  m_note->setWordWrap(true);
  QFont small = m_note->font();
  small.setPointSizeF(small.pointSizeF() * 0.9);
  m_note->setFont(small);

  const geometry::PrincipalPlane& plane = m_detail->plane;
  m_plot->xAxis->setLabel(tr("PC1 (%1 % of variance)").arg(percentText(plane.explained[0])));
  m_plot->yAxis->setLabel(tr("PC2 (%1 % of variance)").arg(percentText(plane.explained[1])));
  for (int i = 0; i < 2 * kColourGroups; ++i) {  // inside the range, then at the edge
    QCPGraph* group = m_plot->addGraph();
    group->setLineStyle(QCPGraph::lsNone);
    group->setAdaptiveSampling(false);  // keep every point
  }
  m_colourScale = new QCPColorScale(m_plot);
  m_colourScale->setType(QCPAxis::atRight);
  m_colourScale->setGradient(QCPColorGradient(QCPColorGradient::gpSpectrum));
  m_colourScale->setBarWidth(10);
  m_plot->plotLayout()->addElement(1, 1, m_colourScale);
  auto* margins = new QCPMarginGroup(m_plot);
  m_plot->axisRect()->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
  m_colourScale->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
  m_boxMark = m_plot->addGraph();
  m_boxMark->setName(tr("box selection"));
  m_boxMark->setLineStyle(QCPGraph::lsNone);
  m_boxMark->setScatterStyle(
      QCPScatterStyle(QCPScatterStyle::ssSquare, QPen(Qt::black, 1), Qt::NoBrush, 8));
  // The selected token: a ring over its point, the last graph, above every other.
  m_selectionMark = m_plot->addGraph();
  m_selectionMark->setName(tr("selected token"));
  m_selectionMark->setLineStyle(QCPGraph::lsNone);
  m_selectionMark->setScatterStyle(
      QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(Qt::black, 2), Qt::NoBrush, 12));

  m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  m_plot->setMouseTracking(true);
  connect(m_plot, &QCustomPlot::mouseMove, this, &TokenScatter::mouseMove);
  connect(m_plot, &QCustomPlot::mousePress, this, &TokenScatter::mousePress);
  connect(m_plot, &QCustomPlot::mouseRelease, this, &TokenScatter::mouseRelease);
  connect(m_plot->selectionRect(), &QCPSelectionRect::accepted, this,
          [this](const QRect& box) { selectBox(box); });

  auto* tools = new QHBoxLayout;
  tools->setContentsMargins(0, 0, 0, 0);
  tools->addWidget(m_colourBy);
  tools->addWidget(m_rangeBox);
  tools->addWidget(m_reset);
  tools->addWidget(m_boxSelect);
  tools->addStretch(1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  layout->addLayout(tools);
  layout->addWidget(m_note);
  layout->addWidget(m_plot, 1);
  clip();
}

void TokenScatter::setColouring(Colouring colouring) {
  if (colouring == m_colouring) return;
  m_colouring = colouring;
  showChoice(m_colourBy, static_cast<int>(colouring));
  colourPoints();
}

void TokenScatter::setRange(Range range) {
  if (range == m_range) return;
  m_range = range;
  showChoice(m_rangeBox, static_cast<int>(range));
  clip();
  emit clippingChanged();
}

void TokenScatter::clip() {
  const std::vector<float>& xy = m_detail->plane.coordinates;
  if (xy.size() < 2) {
    m_clipping = {};
    m_placed.clear();
    m_note->setText(tr("No tokens to draw."));
    colourPoints();
    return;
  }
  m_clipping = geometry::clipScatter(xy, ruleOf(m_range));
  m_placed = geometry::edgePlacement(xy, m_clipping, kEdgeBand * widthOf(m_clipping.x),
                                     kEdgeBand * widthOf(m_clipping.y));
  const QString name = m_range == Range::Robust ? tr("the robust range") : tr("the 1–99 % range");
  const QString total = groupedText(static_cast<int64_t>(xy.size() / 2));
  if (m_range == Range::Full)
    m_note->setText(tr("Full range: all %1 points at their place.").arg(total));
  else if (m_clipping.clippedCount == 0)
    m_note->setText(tr("No point lies beyond %1.").arg(name));
  else
    m_note->setText(tr("%1 of %2 points lie beyond %3, drawn at its edge (◆): %4.")
                        .arg(groupedText(m_clipping.clippedCount), total, name, clippedTokens()));

  // A dashed line at each bound that some point passed: the strip beyond is not to scale.
  for (QCPItemStraightLine* line : m_boundLines) m_plot->removeItem(line);
  m_boundLines.clear();
  bool passed[4] = {false, false, false, false};  // left, right, bottom, top
  for (std::size_t i = 0; i + 1 < m_placed.size(); i += 2) {
    passed[0] |= m_placed[i] < m_clipping.x.low;
    passed[1] |= m_placed[i] > m_clipping.x.high;
    passed[2] |= m_placed[i + 1] < m_clipping.y.low;
    passed[3] |= m_placed[i + 1] > m_clipping.y.high;
  }
  const double at[4] = {m_clipping.x.low, m_clipping.x.high, m_clipping.y.low, m_clipping.y.high};
  for (int side = 0; side < 4; ++side) {
    if (!passed[side]) continue;
    auto* line = new QCPItemStraightLine(m_plot);
    const bool vertical = side < 2;
    line->point1->setCoords(vertical ? at[side] : 0, vertical ? 0 : at[side]);
    line->point2->setCoords(vertical ? at[side] : 1, vertical ? 1 : at[side]);
    line->setPen(QPen(QColor(110, 110, 110), 1, Qt::DashLine));
    m_boundLines.push_back(line);
  }
  colourPoints();
  markBoxSelection();
  markSelected(m_selectedRow);
  resetView();
}

QString TokenScatter::clippedTokens() const {
  constexpr std::size_t kNamed = 3;
  if (m_detail->tokenIds.size() != m_clipping.clipped.size()) return tr("see Outliers");
  std::vector<int64_t> rows;
  for (std::size_t r = 0; r < m_clipping.clipped.size(); ++r)
    if (m_clipping.clipped[r]) rows.push_back(static_cast<int64_t>(r));
  const std::vector<geometry::TokenCount> common =
      geometry::commonTokens(rows, m_detail->tokenIds, kNamed + 1);
  QStringList named;
  for (std::size_t i = 0; i < std::min(common.size(), kNamed); ++i)
    named << QStringLiteral("%1 ×%2").arg(TokenList::standaloneLabel(*m_detail, common[i].firstRow),
                                          groupedText(common[i].count));
  if (common.size() > kNamed) named << QStringLiteral("…");
  return named.join(QStringLiteral(", "));
}

void TokenScatter::resetView() {
  if (m_placed.empty()) return;
  const double pad = m_clipping.clippedCount > 0 ? kClippedPad : kPad;
  const double xPad = pad * widthOf(m_clipping.x), yPad = pad * widthOf(m_clipping.y);
  m_plot->xAxis->setRange(m_clipping.x.low - xPad, m_clipping.x.high + xPad);
  m_plot->yAxis->setRange(m_clipping.y.low - yPad, m_clipping.y.high + yPad);
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void TokenScatter::colourPoints() {
  const auto tokens = static_cast<int64_t>(m_placed.size() / 2);
  // Each colouring's value per row: position and token id linearly, ‖h‖ on a log scale (massive
  // activations are orders of magnitude above the rest).
  std::vector<double> values;
  const auto take = [&values, tokens](const auto& source) {
    if (static_cast<int64_t>(source.size()) == tokens) values.assign(source.begin(), source.end());
  };
  switch (m_colouring) {
    case Colouring::Position:
      take(m_detail->positions);
      break;
    case Colouring::TokenId:
      take(m_detail->tokenIds);
      break;
    case Colouring::Norm:
      take(m_detail->norms);
      break;
  }
  const bool logarithmic = m_colouring == Colouring::Norm;
  double low = logarithmic ? 1 : 0, high = logarithmic ? 10 : 1;
  if (!values.empty()) {
    low = std::numeric_limits<double>::infinity(), high = -low;
    for (const double v : values)
      if (!logarithmic || v > 0) low = std::min(low, v), high = std::max(high, v);
    if (!(low <= high)) low = 1, high = 10;  // no positive norm
    if (logarithmic ? !(high > low) : !(high >= low + 1)) high = logarithmic ? low * 10 : low + 1;
  }
  const QCPRange range(low, high);
  const auto fraction = [&](double v) {
    if (logarithmic) return v > 0 ? std::log(v / low) / std::log(high / low) : 0.0;
    return (v - low) / (high - low);
  };
  const auto bandValue = [&](int band) {
    const double f = (band + 0.5) / kColourGroups;
    return logarithmic ? low * std::pow(high / low, f) : low + f * (high - low);
  };
  QCPColorGradient gradient(QCPColorGradient::gpSpectrum);  // color() is not const
  // An even stride keeps the scatter responsive for big stores; every token when few.
  const int64_t stride = std::max<int64_t>(1, (tokens + kMaxPoints - 1) / kMaxPoints);
  QVector<double> keys[2 * kColourGroups], ys[2 * kColourGroups];
  m_drawnRows.clear();
  m_groupOf.assign(static_cast<std::size_t>(tokens), -1);
  for (int64_t t = 0; t < tokens; t += stride) {
    const auto r = static_cast<std::size_t>(t);
    const double c = values.empty() ? low : values[r];
    int group = std::clamp(static_cast<int>(fraction(c) * kColourGroups), 0, kColourGroups - 1);
    if (m_clipping.clipped[r]) group += kColourGroups;
    m_drawnRows.push_back(t);
    m_groupOf[r] = static_cast<int8_t>(group);
    keys[group] << m_placed[2 * r];
    ys[group] << m_placed[2 * r + 1];
  }
  for (int i = 0; i < 2 * kColourGroups; ++i) {
    QColor colour =
        QColor::fromRgb(gradient.color(bandValue(i % kColourGroups), range, logarithmic));
    QCPGraph* group = m_plot->graph(i);
    group->setData(keys[i], ys[i]);
    if (i < kColourGroups) {
      colour.setAlpha(170);
      group->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, colour, colour, 4));
    } else {  // at the edge: a diamond with a dark rim
      group->setScatterStyle(
          QCPScatterStyle(QCPScatterStyle::ssDiamond, QPen(colour.darker(170), 1), colour, 8));
    }
  }
  m_colourScale->setDataScaleType(logarithmic ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
  m_colourScale->setDataRange(range);
  if (logarithmic)
    m_colourScale->axis()->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
  else
    m_colourScale->axis()->setTicker(QSharedPointer<QCPAxisTicker>::create());
  m_colourScale->axis()->setLabel(m_colouring == Colouring::Position  ? tr("position")
                                  : m_colouring == Colouring::TokenId ? tr("token id")
                                                                      : tr("‖h‖ (log scale)"));
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

int TokenScatter::pointCount() const {
  int count = 0;
  for (int i = 0; i < 2 * kColourGroups; ++i) count += m_plot->graph(i)->dataCount();
  return count;
}

QColor TokenScatter::pointColour(int64_t row) const {
  const auto r = static_cast<std::size_t>(row);
  if (row < 0 || r >= m_groupOf.size() || m_groupOf[r] < 0) return {};
  return m_plot->graph(m_groupOf[r])->scatterStyle().brush().color();
}

QPointF TokenScatter::pixelOf(int64_t row) const {
  const auto r = static_cast<std::size_t>(row);
  if (row < 0 || 2 * r + 1 >= m_placed.size()) return {-1, -1};
  return {m_plot->xAxis->coordToPixel(m_placed[2 * r]),
          m_plot->yAxis->coordToPixel(m_placed[2 * r + 1])};
}

int64_t TokenScatter::rowAt(const QPoint& pixel) const {
  if (!m_plot->axisRect()->rect().contains(pixel)) return -1;
  // A linear pass over at most kMaxPoints points: well under a millisecond per move.
  int64_t nearest = -1;
  double best = kPickRadius * kPickRadius;
  for (const int64_t row : m_drawnRows) {
    const QPointF d = pixelOf(row) - QPointF(pixel);
    const double squared = d.x() * d.x() + d.y() * d.y();
    if (squared <= best) best = squared, nearest = row;
  }
  return nearest;
}

QString TokenScatter::tokenToolTip(int64_t row) const {
  const auto r = static_cast<std::size_t>(row);
  if (row < 0 || r >= m_detail->tokenIds.size()) return {};
  QStringList lines;
  const QString id = QString::number(m_detail->tokenIds[r]);
  lines << (r < m_detail->tokenTexts.size()
                ? tr("“%1” (id %2)").arg(TokenContextStrip::tokenLabel(*m_detail, row), id)
                : tr("token id %1").arg(id));
  const QString position = r < m_detail->positions.size() ? QString::number(m_detail->positions[r])
                                                          : QStringLiteral("?");
  lines << (r < m_detail->documents.size()
                ? tr("document %1, position %2").arg(m_detail->documents[r]).arg(position)
                : tr("position %1").arg(position));
  if (r < m_detail->norms.size()) lines << tr("‖h‖ %1").arg(m_detail->norms[r], 0, 'g', 4);
  if (r < m_clipping.clipped.size() && m_clipping.clipped[r])
    lines << tr("beyond the range, drawn at its edge: PC1 %1, PC2 %2")
                 .arg(m_detail->plane.coordinates[2 * r], 0, 'g', 4)
                 .arg(m_detail->plane.coordinates[2 * r + 1], 0, 'g', 4);
  if (r >= m_detail->tokenTexts.size() && !m_detail->tokenTextNote.empty())
    lines << QString::fromStdString(m_detail->tokenTextNote);
  return lines.join(QLatin1Char('\n'));
}

void TokenScatter::markSelected(int64_t row) {
  const auto r = static_cast<std::size_t>(row);
  m_selectedRow = row >= 0 && 2 * r + 1 < m_placed.size() ? row : -1;
  m_selectionMark->data()->clear();
  if (m_selectedRow >= 0) m_selectionMark->addData(m_placed[2 * r], m_placed[2 * r + 1]);
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void TokenScatter::selectBox(const QRect& box) {
  const QRect b = box.normalized();
  const double x1 = m_plot->xAxis->pixelToCoord(b.left()),
               x2 = m_plot->xAxis->pixelToCoord(b.right());
  const double y1 = m_plot->yAxis->pixelToCoord(b.top()),
               y2 = m_plot->yAxis->pixelToCoord(b.bottom());
  m_boxRows.clear();
  for (const int64_t row : geometry::rowsInBox(m_placed, {std::min(x1, x2), std::max(x1, x2)},
                                               {std::min(y1, y2), std::max(y1, y2)}))
    if (m_groupOf[static_cast<std::size_t>(row)] >= 0) m_boxRows.push_back(row);  // drawn ones
  markBoxSelection();
  emit boxSelected();
}

void TokenScatter::markBoxSelection() {
  QVector<double> keys, ys;
  for (const int64_t row : m_boxRows) {
    const auto r = static_cast<std::size_t>(row);
    if (2 * r + 1 >= m_placed.size()) continue;
    keys << m_placed[2 * r];
    ys << m_placed[2 * r + 1];
  }
  m_boxMark->setData(keys, ys, true);
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void TokenScatter::mousePress(QMouseEvent* event) {
  m_pressPosition = event->pos();
  // Emitted before the plot handles the press: a box with Shift or in Box Select, else a pan.
  const bool box = event->modifiers().testFlag(Qt::ShiftModifier) || m_boxSelect->isChecked();
  m_plot->setSelectionRectMode(box ? QCP::srmCustom : QCP::srmNone);
}

void TokenScatter::mouseMove(QMouseEvent* event) {
  if (event->buttons() != Qt::NoButton) return;  // panning or drawing a box
  const int64_t row = rowAt(event->pos());
  if (row == m_hovered && (row < 0 || QToolTip::isVisible())) return;
  m_hovered = row;
  if (row < 0)
    QToolTip::hideText();
  else
    QToolTip::showText(event->globalPosition().toPoint(), tokenToolTip(row), m_plot);
}

void TokenScatter::mouseRelease(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton ||
      (event->pos() - m_pressPosition).manhattanLength() > kClickSlopPixels)
    return;
  emit pointClicked(rowAt(event->pos()));  // empty space: −1
}

}  // namespace strata
