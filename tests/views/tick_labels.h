#pragma once
// Whether a plot axis's tick labels keep apart, measured from the axis's tick vector and the
// labels' font as the axis draws them (shared by the view tests of "labels never crowd").

#include <qcustomplot.h>

#include <QFontMetrics>
#include <QString>
#include <algorithm>
#include <utility>
#include <vector>

namespace strata::testing {

/** Why `axis`'s tick labels touch each other (empty: they keep 2 px apart). */
inline QString crowdedTickLabels(QCPAxis* axis) {
  const QFontMetrics metrics(axis->tickLabelFont());
  const bool vertical = axis->orientation() == Qt::Vertical;
  std::vector<std::pair<double, double>> spans;  // along the axis, sorted
  QString texts;
  for (int i = 0; i < axis->tickVector().size(); ++i) {
    const double at = axis->tickVector()[i];
    if (!axis->range().contains(at)) continue;
    const QString text = axis->tickVectorLabels()[i];
    texts += text + QLatin1Char(' ');
    const double half = (vertical ? metrics.height() : metrics.horizontalAdvance(text)) / 2.0;
    spans.emplace_back(axis->coordToPixel(at) - half, axis->coordToPixel(at) + half);
  }
  std::sort(spans.begin(), spans.end());
  const int length = vertical ? axis->axisRect()->height() : axis->axisRect()->width();
  for (std::size_t i = 1; i < spans.size(); ++i)
    if (spans[i].first < spans[i - 1].second + 2)
      return QStringLiteral("labels %1on a %2 px axis").arg(texts).arg(length);
  return spans.size() < 2 ? QStringLiteral("fewer than two labels: %1").arg(texts) : QString();
}

}  // namespace strata::testing
