#include <algorithm>
#include <cmath>

#include "geometry_plot.h"
#include "geometry_plot_style.h"
#include "layer_geometry_view_ticks.h"

// What GeometryPlot draws: the report's series and bands, S and l*, the shading outside the
// candidates, and the value axes' ranges.

namespace strata {
using geometry_plot_style::kBestRing;
using geometry_plot_style::kBestStar;
namespace {

// Room above and below the data of a panel, a share of its height (more on short panels).
constexpr double kRangePadding = 0.07;

}  // namespace

void GeometryPlot::setReport(std::shared_ptr<const geometry::GeometryReport> report) {
  m_report = std::move(report);
  m_series = geometry::metricSeries(*m_report);
  rebuildPluginPanels();
  QVector<double> keys;
  for (const geometry::LayerGeometry& layer : m_report->layers)
    keys << static_cast<double>(layer.layer);
  // One line per series: a proxy on its panel with its band, a plugin metric on its own panel.
  // Undefined values (docs/geometry.md, "Degenerate layers") are never handed to the plot: each
  // line and band holds only its layers with a defined value, so no NaN point is drawn.
  std::size_t plugin = 0;
  for (std::size_t s = 0; s < m_series.size(); ++s) {
    const geometry::MetricSeries& series = m_series[s];
    QVector<double> valueKeys, values, bandKeys, lows, highs;
    for (std::size_t i = 0; i < series.values.size(); ++i) {
      if (geometry::isDefined(series.values[i]))
        valueKeys << keys[int(i)], values << series.values[i];
      if (i < series.intervals.size() && geometry::isDefined(series.intervals[i].low) &&
          geometry::isDefined(series.intervals[i].high))
        bandKeys << keys[int(i)], lows << series.intervals[i].low,
            highs << series.intervals[i].high;
    }
    if (!series.builtIn) {
      m_pluginPanels[plugin++].values->setData(valueKeys, values, true);
      continue;
    }
    const auto panel = static_cast<Panel>(s);  // CurvaturePanel = kCurvatureSeries, …
    m_values[panel]->setData(valueKeys, values, true);
    m_bandLow[panel]->setData(bandKeys, lows, true);
    m_bandHigh[panel]->setData(bandKeys, highs, true);
  }
  if (!keys.isEmpty())
    m_panels[0]->axis(QCPAxis::atBottom)->setRange(keys.front() - 0.5, keys.back() + 0.5);
  rescaleValueAxes();
  replot(rpQueuedReplot);
}

void GeometryPlot::setScores(const geometry::LayerScores& scores,
                             const geometry::LayerRange& candidates) {
  QVector<double> keys, values;
  const std::size_t n = m_report ? m_report->layers.size() : 0;
  for (std::size_t i = 0; i < n && i < scores.score.size(); ++i) {
    // Only layers with a score: outside the candidates and excluded (undefined) layers are
    // skipped, so the curve joins the scored layers and no NaN point is drawn.
    if (!geometry::isDefined(scores.score[i])) continue;
    keys << static_cast<double>(m_report->layers[i].layer);
    values << scores.score[i];
  }
  m_values[ScorePanel]->setData(keys, values, true);

  const bool hasBest = scores.bestIndex >= 0 && static_cast<std::size_t>(scores.bestIndex) < n &&
                       static_cast<std::size_t>(scores.bestIndex) < scores.score.size();
  const auto best = static_cast<std::size_t>(std::max<int64_t>(scores.bestIndex, 0));
  const double bestKey = hasBest ? static_cast<double>(m_report->layers[best].layer) : 0;
  const double bestValue = hasBest ? scores.score[best] : 0;
  m_bestPoint->data()->clear();
  if (hasBest) m_bestPoint->addData(bestKey, bestValue);
  // A ring on every metric's value at l*, so it stands out among many layers.
  const auto ring = [&](QCPGraph* marker, const geometry::MetricSeries& series) {
    marker->data()->clear();
    if (hasBest && best < series.values.size() && geometry::isDefined(series.values[best]))
      marker->addData(bestKey, series.values[best]);
  };
  std::size_t plugin = 0;
  for (std::size_t s = 0; s < m_series.size(); ++s) {
    if (m_series[s].builtIn)
      ring(m_bestMarkers[s], m_series[s]);  // CurvaturePanel = kCurvatureSeries, …
    else
      ring(m_pluginPanels[plugin++].bestMarker, m_series[s]);
  }
  for (int p = 0; p < PanelCount; ++p) {
    m_bestLines[p]->setVisible(hasBest);
    m_bestLines[p]->point1->setCoords(bestKey, 0);
    m_bestLines[p]->point2->setCoords(bestKey, 1);
  }
  for (const PluginPanel& panel : m_pluginPanels) {
    panel.bestLine->setVisible(hasBest);
    panel.bestLine->point1->setCoords(bestKey, 0);
    panel.bestLine->point2->setCoords(bestKey, 1);
  }
  m_bestLabel->setVisible(hasBest);

  const double middle =
      n ? 0.5 * static_cast<double>(m_report->layers.front().layer + m_report->layers.back().layer)
        : 0;
  // In the right half the label goes left of the star, so it never runs off the panel
  // (placeBestLabel moves it off S's markers once the panel is laid out).
  m_bestLabelLeft = bestKey > middle;
  m_bestLabel->setText(tr("l* = %1").arg(static_cast<qlonglong>(bestKey)));

  // Shade what lies outside first..last in every panel.
  const double low = n ? static_cast<double>(m_report->layers.front().layer) - 0.5 : 0;
  const double high = n ? static_cast<double>(m_report->layers.back().layer) + 0.5 : 0;
  for (int p = 0; p < PanelCount; ++p) {
    const double first = static_cast<double>(candidates.first) - 0.5;
    const double last = static_cast<double>(candidates.last) + 0.5;
    m_shadeBefore[p]->setVisible(n > 0 && first > low);
    m_shadeBefore[p]->topLeft->setCoords(low, 0);
    m_shadeBefore[p]->bottomRight->setCoords(first, 1);
    m_shadeAfter[p]->setVisible(n > 0 && last < high);
    m_shadeAfter[p]->topLeft->setCoords(last, 0);
    m_shadeAfter[p]->bottomRight->setCoords(high, 1);
  }
  rescaleValueAxes();
  replot(rpQueuedReplot);
}

void GeometryPlot::setLogScale(bool logarithmic) {
  m_logScale = logarithmic;
  for (int p = 0; p < ScorePanel; ++p) {
    QCPAxis* y = m_panels[p]->axis(QCPAxis::atLeft);
    y->setScaleType(logarithmic ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    if (logarithmic)
      y->setTicker(QSharedPointer<LogValueTicker>::create());  // never crowds a short panel
    else
      y->setTicker(QSharedPointer<ValueTicker>::create());
  }
  rescaleValueAxes();
  replot(rpQueuedReplot);
}

void GeometryPlot::rescaleValueAxes() {
  // Room at both ends of every value axis, a share of the panel's data height: a fixed share,
  // or more on a short panel, so that the l* ring (and on S the star) is never cut by the edge.
  const auto share = [this](double pixels, double least) {
    return m_dataHeight > 0 ? std::max(least, pixels / m_dataHeight) : least;
  };
  const double ring = share(kBestRing / 2 + 2, kRangePadding);
  const double star = share(kBestStar / 2 + 2, 2 * kRangePadding);
  std::vector<QCPAxis*> axes;
  for (int p = 0; p < PanelCount; ++p) axes.push_back(m_panels[p]->axis(QCPAxis::atLeft));
  for (const PluginPanel& panel : m_pluginPanels) axes.push_back(panel.rect->axis(QCPAxis::atLeft));
  for (std::size_t p = 0; p < axes.size(); ++p) {
    QCPAxis* y = axes[p];
    y->rescale(true);
    const QCPRange range = y->range();
    const bool logarithmic = y->scaleType() == QCPAxis::stLogarithmic;
    const auto toAxis = [&](double v) { return logarithmic ? std::log10(v) : v; };
    const auto fromAxis = [&](double v) { return logarithmic ? std::pow(10.0, v) : v; };
    double low = toAxis(range.lower), high = toAxis(range.upper);
    if (!(high - low > 0)) {  // one value (or none): a band around it
      const double pad = logarithmic ? 0.05 : std::max(1e-9, std::abs(0.5 * (low + high)) * 0.1);
      low -= pad;
      high += pad;
    }
    const double bottom = ring;
    const double top = p == std::size_t(ScorePanel) ? star : ring;
    // The data fill 1 − bottom − top of the height; the rest is the room above and below.
    const double whole = (high - low) / std::max(0.2, 1.0 - bottom - top);
    y->setRange(fromAxis(low - bottom * whole), fromAxis(high + top * whole));
  }
}

}  // namespace strata
