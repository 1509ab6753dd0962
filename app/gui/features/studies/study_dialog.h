#pragma once
// StudyDialog: the form behind Training ▸ Run Study… — which study (DiHAL, DCDM, REPR-ALIGN),
// its folder, the corpus (empty: the study's default), the number of seeds, the budget (the
// protocol's "full", about an hour each on two cores, or a "smoke" run of seconds that checks the
// pipeline) and further run settings ("key=value", as `strata-cli study --set` takes them). Running
// a study again in the same folder continues it. The dialog only fills a StudyChoice; the window
// runs the study. GUI thread only.

#include <QDialog>
#include <QString>
#include <QStringList>

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace strata {

struct StudyChoice {
  QString study;   ///< "dihal", "dcdm" or "repr-align"
  QString folder;  ///< the study folder (created, or continued when it holds the same study)
  QString corpus;  ///< empty: the study's default corpus
  int seeds = 3;
  QString budget;        ///< "full" or "smoke"
  QStringList settings;  ///< "key=value" for every run whose recipe has the key
  /** corpus=… (when chosen) then the settings: the study's --set list. */
  QStringList overrides() const;
};

class StudyDialog final : public QDialog {
  Q_OBJECT

 public:
  /** `studies`: the names the core knows; `runsRoot`: where "study-<name>" folders go. */
  StudyDialog(const QStringList& studies, const QString& runsRoot, QWidget* parent = nullptr);

  StudyChoice choice() const;

  QComboBox* studyBox() const { return m_study; }
  QLineEdit* folderEdit() const { return m_folder; }
  QLineEdit* corpusEdit() const { return m_corpus; }
  QLineEdit* settingsEdit() const { return m_settings; }
  QSpinBox* seedsBox() const { return m_seeds; }
  QComboBox* budgetBox() const { return m_budget; }

 private:
  void studyChanged();
  void updateState();

  QString m_runsRoot;
  QComboBox* m_study;
  QLabel* m_about;
  QLineEdit* m_folder;
  QLineEdit* m_corpus;
  QLineEdit* m_settings;
  QSpinBox* m_seeds;
  QComboBox* m_budget;
  QLabel* m_problem;
  QDialogButtonBox* m_buttons;
  bool m_folderEdited = false;
};

}  // namespace strata
