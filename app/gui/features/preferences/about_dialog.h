#pragma once
// AboutDialog: Help ▸ About Strata — the version and build of Strata and the versions of the
// libraries it runs on (Qt, LibTorch, CUDA or "none", the BLAS actually loaded, HDF5, Eigen)
// and the compute device, with a button that copies them as plain text for bug reports.
// The application fills AboutInfo from core (engine/versions.h); this file only shows it.

#include <QDialog>
#include <QString>

class QLabel;
class QPushButton;

namespace strata {

struct AboutInfo {
  QString version;  ///< Strata's version
  QString build;    ///< "Release, GNU 12.2.0, with CUDA"
  QString qt;       ///< the Qt version running
  QString libtorch;
  QString cuda;  ///< "none" when built without CUDA
  QString blas;
  QString hdf5;
  QString eigen;
  QString device;  ///< the status bar's device line
};

/** The facts one per line, "Qt 6.4.2", "LibTorch 2.0.1", "CUDA none", "BLAS …", ... */
QString aboutPlainText(const AboutInfo& info);

class AboutDialog final : public QDialog {
  Q_OBJECT

 public:
  explicit AboutDialog(const AboutInfo& info, QWidget* parent = nullptr);

  /** What the dialog shows, as plain text (what Copy puts on the clipboard). */
  QString text() const { return m_plainText; }
  QPushButton* copyButton() const { return m_copy; }

 private:
  QString m_plainText;
  QPushButton* m_copy;
};

}  // namespace strata
