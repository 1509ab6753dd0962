#pragma once
// BridgeSweepDialog: the form behind Bridge ▸ Bridgeability Sweep… — the model, the corpus, an
// optional store with scores (without one the sweep captures and scores the model first), the
// layer range a..b, the steps every bridge gets, the sweep folder, further bridge settings
// ("key=value" as `--set` takes them) and the layer-0 baseline. OK stays disabled while the form
// cannot make a sweep; the first problem is shown under it. The dialog only fills a
// BridgeSweepConfig; the main window runs it. GUI thread only.

#include <QDialog>
#include <QString>

#include "recipes/bridge/bridge_sweep.h"

class QCheckBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSettings;
class QSpinBox;

namespace strata {

class BridgeSweepDialog final : public QDialog {
  Q_OBJECT

 public:
  /** `runsRoot`: where the default sweep folder "sweep-<yyyyMMdd-hhmmss>" goes. */
  BridgeSweepDialog(const QString& runsRoot, QWidget* parent = nullptr);

  void setModelFolder(const QString& folder);
  void setCorpus(const QString& corpus);
  void setStore(const QString& store);
  /** The layers offered by default, a..b. */
  void setLayerRange(qint64 first, qint64 last);

  /** The sweep the form describes. Throws ConfigError naming the bad field. */
  recipes::BridgeSweepConfig config() const;
  /** Empty when OK is enabled, else why not. */
  QString problem() const { return m_problemText; }

  void restoreSettings(const QSettings& settings);
  void saveSettings(QSettings& settings) const;

  QLineEdit* modelEdit() const { return m_model; }
  QLineEdit* corpusEdit() const { return m_corpus; }
  QLineEdit* storeEdit() const { return m_store; }
  QSpinBox* firstLayerBox() const { return m_first; }
  QSpinBox* lastLayerBox() const { return m_last; }
  QSpinBox* stepsBox() const { return m_steps; }
  QLineEdit* folderEdit() const { return m_folder; }
  QLineEdit* settingsEdit() const { return m_settings; }
  QCheckBox* baselineBox() const { return m_baseline; }
  QPushButton* okButton() const;

 private:
  void updateState();

  QLineEdit* m_model;
  QLineEdit* m_corpus;
  QLineEdit* m_store;
  QSpinBox* m_first;
  QSpinBox* m_last;
  QSpinBox* m_steps;
  QLineEdit* m_folder;
  QLineEdit* m_settings;
  QCheckBox* m_baseline;
  QLabel* m_problem;
  QDialogButtonBox* m_buttons;
  QString m_problemText;
};

}  // namespace strata
