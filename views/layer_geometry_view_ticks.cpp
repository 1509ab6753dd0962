#include "layer_geometry_view_ticks.h"

#include <algorithm>
#include <cmath>
#include <vector>

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
      for (const double mantissa : {1.0, 0.5, 0.2}) {  // steps a reader adds up at a glance
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

QVector<double> LogValueTicker::createTickVector(double, const QCPRange& range) {
  const double low = range.lower, high = range.upper;
  if (!(low > 0) || !(high > low)) return {};
  const double pixelsPerDecade = m_pixels / std::log10(high / low);
  // The least room between neighbours (pixels), or 0 for fewer than two ticks.
  const auto room = [&](const QVector<double>& ticks) {
    double least = ticks.size() < 2 ? 0 : HUGE_VAL;
    for (qsizetype i = 1; i < ticks.size(); ++i)
      least = std::min(least, std::log10(ticks[i] / ticks[i - 1]) * pixelsPerDecade);
    return least;
  };
  const int firstDecade = static_cast<int>(std::floor(std::log10(low)));
  const int lastDecade = static_cast<int>(std::ceil(std::log10(high)));
  std::vector<QVector<double>> candidates;
  // One mark a decade (or every 2nd, 5th, … decade), at 1, else 2 or 5 times it: on a short
  // panel over several decades, 0.02 and 0.2 when 0.01 and 1 lie outside the range.
  for (const double mantissa : {1.0, 2.0, 5.0})
    for (int stride = 1; stride <= lastDecade - firstDecade;
         stride = LayerTicker::nextStep(stride)) {
      QVector<double> decades;
      for (int d = firstDecade; d <= lastDecade; ++d)
        if (const double tick = mantissa * std::pow(10.0, d);
            d % stride == 0 && range.contains(tick))
          decades << tick;
      candidates.push_back(decades);
    }
  QVector<double> oneTwoFive;
  for (int d = firstDecade; d <= lastDecade; ++d)
    for (const double mantissa : {1.0, 2.0, 5.0})
      if (const double tick = mantissa * std::pow(10.0, d); range.contains(tick))
        oneTwoFive << tick;
  candidates.push_back(oneTwoFive);
  // A range narrower than 1-2-5 spacing: multiples of one step of 1, 2, 2.5 or 5 times a power of
  // ten (0.5 and 0.75 on 0.35 to 0.99).
  for (int d = lastDecade; d >= firstDecade - 2; --d)
    for (const double mantissa : {5.0, 2.5, 2.0, 1.0}) {
      const double step = mantissa * std::pow(10.0, d);
      QVector<double> multiples;
      for (double k = std::ceil(low / step); k * step <= high && multiples.size() <= kMaxTicks; ++k)
        multiples << k * step;
      candidates.push_back(multiples);
    }
  // The most labels that stay a label's spacing apart (the coarser kind first on a tie); two
  // labels that just clear each other when that spacing leaves fewer than two.
  const auto most = [&](double labelSpacing) {
    QVector<double> chosen;
    for (const QVector<double>& ticks : candidates)
      if (ticks.size() > chosen.size() && ticks.size() <= kMaxTicks &&
          (ticks.size() < 2 || room(ticks) >= labelSpacing * m_labelHeight))
        chosen = ticks;
    return chosen;
  };
  const QVector<double> chosen = most(kLabelSpacing);
  return chosen.size() >= 2 ? chosen : most(1.0);
}

}  // namespace strata
