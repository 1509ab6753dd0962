#include "layer_geometry_view_ticks.h"

#include <cmath>

namespace strata {

int LayerTicker::nextStep(int step) {
  int decade = 1;
  while (decade * 10 <= step) decade *= 10;
  return step == decade ? 2 * decade : step == 2 * decade ? 5 * decade : 10 * decade;
}

bool LayerTicker::fit(double pixelsPerLayer, double labelWidth, double gap, double minorRoom) {
  int step = 1;
  while (step * pixelsPerLayer < labelWidth * (1 + gap)) step = nextStep(step);
  int minor = 1;
  while (minor < step && (step % minor != 0 || minor * pixelsPerLayer < minorRoom))
    minor = nextStep(minor);
  const bool changed = step != m_step;
  m_step = step;
  m_subTicks = step / minor - 1;
  return changed;
}

QString LayerTicker::getTickLabel(double tick, const QLocale&, QChar, int) {
  return QString::number(std::llround(tick));
}

double ValueTicker::getTickStep(const QCPRange& range) {
  const double size = range.size();
  if (!(size > 0) || m_pixels <= 0) return QCPAxisTicker::getTickStep(range);
  const auto ticks = [&](double step) {
    return std::floor(range.upper / step) - std::ceil(range.lower / step) + 1;
  };
  const auto finest = [&](double labelSpacing) {
    // Coarse to fine: the last step whose labels stay apart and are at most kMaxTicks.
    double chosen = 0;
    double decade = std::pow(10.0, std::ceil(std::log10(size)));
    for (int k = 0; k < 4; ++k, decade /= 10)
      for (const double mantissa : {1.0, 0.8, 0.6, 0.5, 0.4, 0.3, 0.25, 0.2, 0.15}) {
        const double step = mantissa * decade;
        if (step * m_pixels / size < labelSpacing * m_labelHeight || ticks(step) > kMaxTicks)
          return chosen;
        chosen = step;
      }
    return chosen;
  };
  double step = finest(kLabelSpacing);
  if (step <= 0 || ticks(step) < 2) step = finest(1.0);  // two labels that just clear
  return step > 0 ? step : QCPAxisTicker::getTickStep(range);
}

}  // namespace strata
