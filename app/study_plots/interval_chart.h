#pragma once
// A chart of one number per category with its interval: a marker at the estimate, error bars
// from low to high, the individual observations (e.g. seeds) as small dots beside it, and
// optional labelled horizontal reference lines (a baseline, 0 for differences). Knows nothing
// of studies. GUI thread only.

#include <QString>
#include <QVector>

namespace strata::charts {

struct IntervalCategory {
  QString label;
  double estimate = 0;
  double low = 0, high = 0;  ///< the interval (NaN: no error bar)
  QVector<double> observations;
};

struct ReferenceLine {
  QString label;
  double value = 0;
};

struct IntervalChart {
  QString title;
  QString valueLabel;  ///< the y axis
  QVector<IntervalCategory> categories;
  QVector<ReferenceLine> references;
};

/** Draws `chart` and writes it as a PNG of width × height pixels (throws on failure). */
void writeIntervalChart(const IntervalChart& chart, const QString& file, int width = 900,
                        int height = 600);

}  // namespace strata::charts
