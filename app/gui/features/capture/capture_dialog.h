#pragma once
// CaptureDialog: the form behind Capture… and behind Score Layers… on a model — which corpus to
// sample (typed, browsed, or picked among the recent and the built-in corpora), where the
// activation store goes and how many tokens to take, with a live estimate of the time and the
// memory it needs (engine/capture_estimate.h: the memory plan the job itself follows, so a
// capture the plan would refuse cannot be started). It only fills a CaptureConfig; the capture
// feature runs the capture (core's runCapture) in a background job, followed by the scoring when
// the dialog was opened from Score Layers…. OK stays disabled until the corpus exists, the output
// is a .h5/.hdf5 path in an existing folder (or in the stores folder it proposes) and the plan
// fits; when the output already exists the user must choose between resuming it and overwriting
// it.
//
// Settings (last corpus, sampling options, dtype, streaming) are read and written through a
// QSettings the caller passes in, so the application uses its own settings and tests a
// throw-away file. GUI thread only.

#include <QDialog>
#include <QString>
#include <QStringList>
#include <memory>

#include "engine/capture.h"
#include "engine/capture_estimate.h"
#include "io/hf/model_folder.h"

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

  /** Offers `recent` corpora (newest first) and then the `builtIn` ones in the corpus box's
   *  list; the typed text stays as it is. */
  void setCorpusChoices(const QStringList& recent, const QStringList& builtIn);
  /** When no corpus is set: the first offered one (recent before built-in). */
  void proposeCorpus();
  /** The corpora Strata has without a choice: the default model's corpus (defaultCorpusFile)
   *  and the .txt/.jsonl files of the shared data folder's corpora/ (sharedDataFolder), those
   *  that exist. */
  static QStringList builtInCorpora();

  /** The model's shape, for the estimate (none is shown without it); `cuda`: the capture will
   *  run on a GPU, so its memory is planned against the GPU's. */
  void setModel(std::shared_ptr<const io::ModelSummary> summary, bool cuda);
  /** Opened from Score Layers…: titled so, "Then: `description`" under the form, OK reads
   *  "Capture and Score" and the estimate adds the scoring (`scoresLayers`). */
  void setFollowUp(const QString& description, bool scoresLayers);
  /** The shape the form describes, as the estimate sees it. */
  engine::CaptureShape shape() const;

  /** The output file the form proposes for `corpus`: "<model>-<corpus name>.h5" in
   *  storesFolder(), never beside the corpus (which may be read-only). */
  QString defaultOutputFor(const QString& corpus) const;
  /** Where proposed stores go: "activation-stores" in Strata's data folder (userDataFolder();
   *  created when a capture into it starts). */
  static QString storesFolder();

  /** The corpus box's text field (the box lists the recent and built-in corpora). */
  QLineEdit* corpusEdit() const { return m_corpus; }
  QComboBox* corpusBox() const { return m_corpusChoices; }
  /** The time and memory estimate (hidden until setModel). */
  QLabel* estimateLabel() const { return m_estimate; }
  /** Why OK is disabled; empty when it is enabled. */
  QString problem() const;
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
  /** Updates the estimate; returns the memory plan's refusal (empty when it fits). */
  QString updateEstimate();
  /** The output's folder exists, or is storesFolder() (made when the capture starts). */
  static bool outputFolderUsable(const QString& output);

  QString m_modelFolder;
  QLabel* m_model;
  QComboBox* m_corpusChoices;
  QLineEdit* m_corpus;  ///< m_corpusChoices' text field
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
  QLabel* m_then;
  QLabel* m_estimate;
  QLabel* m_problem;
  QDialogButtonBox* m_buttons;
  std::shared_ptr<const io::ModelSummary> m_summary;  ///< for the estimate; null: none
  bool m_cuda = false;
  bool m_scoresLayers = false;
  /** The output follows the corpus until the user edits or browses for it. */
  bool m_outputChosen = false;
};

}  // namespace strata
