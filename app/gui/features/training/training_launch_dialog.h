#pragma once
// TrainingLaunchDialog: the form behind Training ▸ Start Training…, generated from the recipe's
// ConfigSchema — one row per setting (setting_field.h picks the widget by type), grouped by
// SettingSpec::group, and the run folder. A recipe combo appears when there are
// several recipes. OK stays disabled while any field is invalid; the ConfigError of the first
// bad field is shown under the form.
//
// Plan Memory asks for the run's memory plan without the run (planRequested; the caller runs
// engine::planTraining as a job and shows the result with showPlan): the plan's line, green when
// the run fits this machine now, red with the refusal when not. Any edit clears it.
//
// The dialog only fills a TrainingRequest; the main window runs it. Remembered values go
// through a QSettings the caller passes ("training/<recipe>/<key>"). Each recipe keeps its own
// texts while the dialog is open: switching recipe and back finds what was typed. The texts a
// recipe's form starts from are, later winning: the schema's defaults, the remembered values,
// the values set for every recipe (setValueTextForEveryRecipe), what was typed. GUI thread only.

#include <QDialog>
#include <QHash>
#include <QString>
#include <vector>

#include "engine/config_schema.h"
#include "engine/training_run.h"

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSettings;
class QVBoxLayout;

namespace strata {

class TrainingLaunchDialog final : public QDialog {
  Q_OBJECT

 public:
  /** `schemas`: the recipes offered (the first is selected). `runsRoot`: where the default
   *  run folder "<recipe>-<yyyyMMdd-hhmmss>" goes. */
  TrainingLaunchDialog(std::vector<engine::ConfigSchema> schemas, const QString& runsRoot,
                       QWidget* parent = nullptr);

  /** The selected recipe's name. */
  QString recipe() const;
  /** Selects `recipe` (rebuilding the form with its defaults); false when it is not offered. */
  bool setRecipe(const QString& recipe);
  const engine::ConfigSchema& schema() const { return m_schemas[m_current]; }

  /** The typed config the form describes. Throws ConfigError when a field is invalid. */
  engine::ResolvedConfig config() const;
  QString runFolder() const;
  /** recipe, config and run folder, ready for startTraining. Throws ConfigError. */
  engine::TrainingRequest request() const;
  /** Empty when OK is enabled, else why not (a ConfigError's text, or the run folder's). */
  QString problem() const { return m_problemText; }

  /** The field of `key`: QSpinBox, QLineEdit, QCheckBox or QComboBox; nullptr if none. */
  QWidget* field(const QString& key) const { return m_fields.value(key); }
  /** Sets `key`'s field from text as the CLI would take it ("3e-4", "true", "cpu"). */
  void setValueText(const QString& key, const QString& text);
  /** setValueText for the shown recipe, and the same text for every other recipe that has
   *  `key`, used when its form is shown (the selected model, the Preferences' device). */
  void setValueTextForEveryRecipe(const QString& key, const QString& text);
  /** The field's text as parseSetting reads it. */
  QString valueText(const QString& key) const;
  void setRunFolder(const QString& folder);

  /** The remembered recipe and its values; `recipe`, when given, is selected instead of the
   *  remembered one (a launcher opened for one recipe: Bridge ▸ Train Bridge…). */
  void restoreSettings(const QSettings& settings, const QString& recipe = {});
  void saveSettings(QSettings& settings) const;

  /** The plan of the request the form describes, or what stopped planning it. */
  void showPlan(const QString& plan, bool fits, const QString& refusal);
  void showPlanFailure(const QString& error);

  QPushButton* okButton() const;
  QPushButton* planButton() const { return m_planButton; }
  QLabel* planLabel() const { return m_plan; }
  QComboBox* recipeBox() const { return m_recipe; }
  QLineEdit* runFolderEdit() const { return m_runFolder; }
  QLabel* problemLabel() const { return m_problem; }

 signals:
  /** Plan Memory was pressed on a valid form: plan `request`, then call showPlan. */
  void planRequested(const engine::TrainingRequest& request);

 private:
  void buildForm();
  /** Keeps the shown form's texts as its recipe's, for when that recipe is shown again. */
  void keepTexts();
  /** Fills the shown form with its recipe's kept texts. */
  void applyTexts();
  /** Labels of every group as wide as the widest, so the fields of all groups line up. */
  void alignLabels();
  QString defaultRunFolder() const;
  /** A requested plan's outcome, green when the run fits; dropped when the form changed. */
  void showPlanResult(const QString& text, bool fits);
  void updateState();

  std::vector<engine::ConfigSchema> m_schemas;
  std::size_t m_current = 0;
  QString m_runsRoot;
  bool m_folderChosen = false;  ///< the user typed or browsed a run folder: keep it
  QComboBox* m_recipe;
  QLabel* m_description;
  QWidget* m_form = nullptr;  ///< rebuilt when the recipe changes
  QVBoxLayout* m_formLayout;
  QLineEdit* m_runFolder;
  QLabel* m_problem;
  QLabel* m_plan;  ///< the last plan, until the form changes
  QDialogButtonBox* m_buttons;
  QPushButton* m_planButton;
  bool m_planning = false;  ///< a plan was requested and has not arrived
  QHash<QString, QWidget*> m_fields;
  QString m_formRecipe;  ///< the recipe whose form is shown (empty before the first)
  QHash<QString, QHash<QString, QString>> m_texts;  ///< recipe → key → text to show
  QString m_problemText;
};

}  // namespace strata
