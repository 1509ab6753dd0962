#pragma once
// Several series over a shared x axis (e.g. a metric over training steps), each a line with an
// optional shaded band (an interval per point) and a legend entry. Knows nothing of studies.
// GUI thread only.

#include <QString>
#include <QVector>

namespace strata::charts {

struct CurveSeries {
  QString name;
  QVector<double> x, y;
  QVector<double> low, high;  ///< empty: no band
};

struct CurveChart {
  QString title;
  QString xLabel, yLabel;
  QVector<CurveSeries> series;
};

/** Draws `chart` and writes it as a PNG of width × height pixels (throws on failure). */
void writeCurveChart(const CurveChart& chart, const QString& file, int width = 900,
                     int height = 600);

}  // namespace strata::charts
