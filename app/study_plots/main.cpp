// strata-study-plots DIR: draws DIR/study.json as PNGs in DIR/plots (see study_plots.h).
// Offscreen: no display is needed (QT_QPA_PLATFORM defaults to offscreen here).

#include <QApplication>
#include <cstdio>
#include <exception>

#include "study_plots.h"

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  if (argc != 2 || QString(argv[1]).startsWith("-")) {
    std::fprintf(stderr,
                 "usage: strata-study-plots DIR\n  draws DIR/study.json (strata-cli study) as PNGs "
                 "in DIR/plots\n");
    return argc == 2 && (QString(argv[1]) == "--help" || QString(argv[1]) == "-h") ? 0 : 2;
  }
  try {
    for (const QString& file : strata::writeStudyPlots(QString::fromLocal8Bit(argv[1])))
      std::printf("%s\n", qPrintable(file));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
