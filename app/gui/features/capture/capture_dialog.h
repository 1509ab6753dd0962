#pragma once
// CaptureDialog: the form behind Capture… — which corpus to sample, where the activation store
// goes and how many tokens to take. It only fills a CaptureConfig; the main window runs the
// capture (core's runCapture) in a background job. OK stays disabled until the corpus exists
// and the output is a .h5/.hdf5 path in an existing folder (or in the stores folder it
// proposes); when the output already exists the user must choose between resuming it and
// overwriting it.
//
// Settings (last corpus, sampling options, dtype, streaming) are read and written through a
// QSettings the caller passes in, so the application uses its own settings and tests a
// throw-away file. GUI thread only.

#include <QDialog>
#include <QString>

#include "engine/capture.h"

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QRadioButton;
class QSettings;
class QSpinBox;

namespace strata {

class CaptureDialog final : public QDialog {
  Q_OBJECT

 public:
  /** `modelFolder`: the model to capture from, shown read-only. */
  explicit CaptureDialog(const QString& modelFolder, QWidget* parent = nullptr);

  /** The capture the form describes (meaningful when pathsValid()). */
  engine::CaptureConfig config() const;
  /** True when the corpus exists and the output can be written (OK is enabled). */
  bool pathsValid() const;

  /** Fills the form from the "capture/" keys of `settings` (the model stays as given). */
  void restoreSettings(const QSettings& settings);
  /** Writes the form's corpus and options under "capture/" in `settings`. */
  void saveSettings(QSettings& settings) const;

  void setCorpus(const QString& path);
  void setOutput(const QString& path);

  /** The output file the form proposes for `corpus`: "<model>-<corpus name>.h5" in
   *  storesFolder(), never beside the corpus (which may be read-only). */
  QString defaultOutputFor(const QString& corpus) const;
  /** Where proposed stores go: "activation-stores" in Strata's data folder (userDataFolder();
   *  created when a capture into it starts). */
  static QString storesFolder();

  QLineEdit* corpusEdit() const { return m_corpus; }
  QLineEdit* outputEdit() const { return m_output; }
  QSpinBox* tokensBox() const { return m_tokens; }
  QSpinBox* sequenceLengthBox() const { return m_sequenceLength; }
  QSpinBox* skipFirstBox() const { return m_skipFirst; }
  QSpinBox* seedBox() const { return m_seed; }
  QComboBox* dtypeBox() const { return m_dtype; }
  QCheckBox* streamLayersBox() const { return m_streamLayers; }
  QGroupBox* existingOutputBox() const { return m_existing; }
  QRadioButton* resumeButton() const { return m_resume; }
  QRadioButton* overwriteButton() const { return m_overwrite; }
  QPushButton* okButton() const;

 private:
  void corpusEdited();
  void browseCorpusFile();
  void browseCorpusFolder();
  void browseOutput();
  void updateState();
  /** The output's folder exists, or is storesFolder() (made when the capture starts). */
  static bool outputFolderUsable(const QString& output);

  QString m_modelFolder;
  QLabel* m_model;
  QLineEdit* m_corpus;
  QLineEdit* m_output;
  QSpinBox* m_tokens;
  QSpinBox* m_sequenceLength;
  QSpinBox* m_skipFirst;
  QSpinBox* m_seed;
  QComboBox* m_dtype;
  QCheckBox* m_streamLayers;
  QGroupBox* m_existing;
  QRadioButton* m_resume;
  QRadioButton* m_overwrite;
  QLabel* m_problem;
  QDialogButtonBox* m_buttons;
  /** The output follows the corpus until the user edits or browses for it. */
  bool m_outputChosen = false;
};

}  // namespace strata
