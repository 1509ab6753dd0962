#pragma once
// The Layer Geometry plot's axis tickers (GeometryPlot), chosen for the pixels they have so that
// labels never overlap, from the 5-layer toy model to 80-layer models:
// * LayerTicker, the shared layer axis: a label every 1st, 2nd, 5th, 10th, 20th, … layer, the
//   finest step that keeps a free label width between neighbours, minor ticks between them.
// * ValueTicker, a panel's linear value axis: as many labels (two to five) as the panel's data
//   height holds with a label's height between them, at steps of 1, 2 or 5 times a power of ten.
// * LogValueTicker, a panel's logarithmic value axis: labels at decades (every 1st, 2nd, 5th, …;
//   or at 2 or 5 times each), at 1, 2 and 5 times each decade, or on a narrow range at multiples
//   of one step of 1, 2, 2.5 or 5 times a power of ten; the set with the most labels that still
//   keeps 1.3 label heights between any two of them.
// GUI thread only (like the plot that asks them).

#include <qcustomplot.h>

namespace strata {

class LayerTicker final : public QCPAxisTicker {
 public:
  /** Layers between two labelled ticks (1, 2, 5, 10, 20, …). */
  int step() const { return m_step; }
  /**
   * The step for `pixelsPerLayer` on the axis and labels `labelWidth` pixels wide: the finest of
   * 1, 2, 5, 10, … whose labels leave `gap` label widths free between them; minor ticks on the
   * finest of those steps that divides it and keeps `minorRoom` pixels between minor ticks.
   * True if the step changed.
   */
  bool fit(double pixelsPerLayer, double labelWidth, double gap, double minorRoom);

  /** The steps the layer axis may label, in order: 1, 2, 5, 10, 20, 50, 100, … */
  static int nextStep(int step);

 protected:
  double getTickStep(const QCPRange&) override { return m_step; }
  int getSubTickCount(double) override { return m_subTicks; }
  QString getTickLabel(double tick, const QLocale&, QChar, int) override;

 private:
  int m_step = 1;
  int m_subTicks = 0;
};

/** A value axis's ticker that is told the pixels it has (GeometryPlot, before each layout). */
class RoomTicker : public QCPAxisTicker {
 public:
  /** The panel's data height and a label's height in pixels. */
  void setRoom(double pixels, double labelHeight) {
    m_pixels = pixels;
    m_labelHeight = labelHeight;
  }

 protected:
  static constexpr double kLabelSpacing = 1.3;  // label heights from one label to the next
  static constexpr int kMaxTicks = 5;
  double m_pixels = 0;
  double m_labelHeight = 0;
};

class ValueTicker final : public RoomTicker {
 protected:
  double getTickStep(const QCPRange& range) override;
};

class LogValueTicker final : public RoomTicker {
 protected:
  QVector<double> createTickVector(double tickStep, const QCPRange& range) override;
  int getSubTickCount(double) override { return 0; }
};

}  // namespace strata
