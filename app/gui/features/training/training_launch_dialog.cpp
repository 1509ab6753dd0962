#include "training_launch_dialog.h"

#include <QComboBox>
#include <QDateTime>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QVBoxLayout>
#include <algorithm>

#include "clean_path.h"
#include "common/error.h"
#include "display_text.h"
#include "engine/run_folder.h"
#include "setting_field.h"

namespace strata {
namespace {

QString qs(const std::string& text) { return QString::fromStdString(text); }

}  // namespace

TrainingLaunchDialog::TrainingLaunchDialog(std::vector<engine::ConfigSchema> schemas,
                                           const QString& runsRoot, QWidget* parent)
    : QDialog(parent),
      m_schemas(std::move(schemas)),
      m_runsRoot(runsRoot),
      m_recipe(new QComboBox(this)),
      m_description(new QLabel(this)),
      m_formLayout(new QVBoxLayout),
      m_runFolder(new QLineEdit(this)),
      m_problem(new QLabel(this)),
      m_plan(new QLabel(this)),
      m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this)),
      // Beside the buttons, not among them: the style's order put it between Start and Cancel.
      m_planButton(new QPushButton(tr("Plan Memory"), this)) {
  if (m_schemas.empty()) throw Error("no training recipe is available");
  setObjectName(QStringLiteral("TrainingLaunchDialog"));
  setWindowTitle(tr("Start Training"));

  for (const engine::ConfigSchema& schema : m_schemas) m_recipe->addItem(qs(schema.recipe));
  m_recipe->setToolTip(tr("The training recipe; its settings fill the form below"));
  m_description->setWordWrap(true);
  m_description->setForegroundRole(QPalette::PlaceholderText);

  m_runFolder->setObjectName(QStringLiteral("runFolder"));
  m_runFolder->setToolTip(
      tr("The folder the run writes (run.json, metrics.jsonl, checkpoints/); it must not hold "
         "a run yet. Browse… picks the folder it goes in."));
  auto* browse = new QPushButton(tr("Browse…"), this);
  connect(browse, &QPushButton::clicked, this, [this] {
    const QString parentFolder = QFileDialog::getExistingDirectory(
        this, tr("Folder for the Run"), QFileInfo(m_runFolder->text()).absolutePath());
    if (parentFolder.isEmpty()) return;
    m_folderChosen = true;
    m_runFolder->setText(QDir(parentFolder).filePath(QFileInfo(defaultRunFolder()).fileName()));
  });
  connect(m_runFolder, &QLineEdit::textEdited, this, [this] { m_folderChosen = true; });
  connect(m_runFolder, &QLineEdit::textChanged, this, &TrainingLaunchDialog::updateState);

  auto* top = new QFormLayout;
  top->addRow(tr("Recipe:"), m_recipe);
  auto* folderRow = new QHBoxLayout;
  folderRow->addWidget(m_runFolder, 1);
  folderRow->addWidget(browse);
  top->addRow(tr("Run folder:"), folderRow);
  m_recipe->setVisible(m_schemas.size() > 1);
  top->labelForField(m_recipe)->setVisible(m_schemas.size() > 1);

  auto* scroll = new QScrollArea(this);
  scroll->setWidgetResizable(true);
  auto* holder = new QWidget(scroll);
  holder->setLayout(m_formLayout);
  scroll->setWidget(holder);

  m_problem->setObjectName(QStringLiteral("problem"));
  m_problem->setWordWrap(true);
  m_problem->setStyleSheet(QStringLiteral("color: #b00020"));

  m_plan->setObjectName(QStringLiteral("memoryPlan"));
  m_plan->setWordWrap(true);
  m_plan->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_plan->hide();
  m_planButton->setObjectName(QStringLiteral("planMemory"));
  m_planButton->setToolTip(
      tr("What the run would need of this machine's memory, planned as the run itself plans "
         "it (its settings, the model's header, the tokenizer), without starting it"));
  connect(m_planButton, &QPushButton::clicked, this, [this] {
    engine::TrainingRequest planned;
    try {
      planned = request();
    } catch (const Error&) {  // the button is enabled only on a valid form
      return;
    }
    m_planning = true;
    m_planButton->setEnabled(false);
    m_plan->setStyleSheet(QString());
    m_plan->setText(tr("Planning the run's memory…"));
    m_plan->show();
    emit planRequested(planned);
  });

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(top);
  layout->addWidget(m_description);
  layout->addWidget(scroll, 1);
  layout->addWidget(m_problem);
  layout->addWidget(m_plan);
  auto* buttonRow = new QHBoxLayout;
  buttonRow->addWidget(m_planButton);
  buttonRow->addStretch(1);
  buttonRow->addWidget(m_buttons);
  layout->addLayout(buttonRow);

  okButton()->setText(tr("Start"));
  connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(m_recipe, &QComboBox::currentIndexChanged, this, [this](int index) {
    if (index < 0) return;
    keepTexts();
    m_current = static_cast<std::size_t>(index);
    buildForm();
  });
  buildForm();
  // No taller than the window it opens over (the default window is 700 px high); the form
  // scrolls.
  int height = 620;
  if (parent) height = std::min(height, parent->window()->height() - 40);
  if (const QScreen* screen = this->screen())
    height = std::min(height, screen->availableGeometry().height() - 80);
  resize(620, std::max(height, 360));
}

QPushButton* TrainingLaunchDialog::okButton() const {
  return m_buttons->button(QDialogButtonBox::Ok);
}

QString TrainingLaunchDialog::recipe() const { return qs(schema().recipe); }

bool TrainingLaunchDialog::setRecipe(const QString& recipe) {
  const int index = m_recipe->findText(recipe);
  if (index < 0) return false;
  m_recipe->setCurrentIndex(index);
  return true;
}

QString TrainingLaunchDialog::defaultRunFolder() const {
  const QString name = recipe() + QLatin1Char('-') +
                       QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-hhmmss"));
  return QDir::cleanPath(QDir(m_runsRoot).absoluteFilePath(name));
}

void TrainingLaunchDialog::buildForm() {
  delete m_form;
  m_fields.clear();
  m_form = new QWidget;
  auto* groups = new QVBoxLayout(m_form);
  groups->setContentsMargins(0, 0, 0, 0);
  QHash<QString, QFormLayout*> forms;
  for (const engine::SettingSpec& spec : schema().settings) {
    const QString group = spec.group.empty() ? tr("settings") : qs(spec.group);
    QFormLayout*& form = forms[group];
    if (!form) {  // groups appear in the schema's order
      auto* box = new QGroupBox(group, m_form);
      form = new QFormLayout(box);
      groups->addWidget(box);
    }
    QWidget* field = makeSettingField(spec, m_form, [this] { updateState(); });
    auto* label = new QLabel(qs(spec.key) + QLatin1Char(':'), m_form);
    label->setObjectName(QStringLiteral("label.") + qs(spec.key));
    label->setToolTip(field->toolTip());
    if (spec.type == engine::SettingType::Path)
      form->addRow(label, makePathRow(static_cast<QLineEdit*>(field), m_form));
    else
      form->addRow(label, field);
    m_fields.insert(qs(spec.key), field);
  }
  groups->addStretch(1);
  m_formLayout->addWidget(m_form);
  alignLabels();
  m_formRecipe = recipe();
  applyTexts();
  m_description->setText(qs(schema().description));
  m_description->setVisible(!schema().description.empty());
  if (!m_folderChosen) m_runFolder->setText(defaultRunFolder());
  updateState();
}

void TrainingLaunchDialog::keepTexts() {
  if (m_formRecipe.isEmpty()) return;
  QHash<QString, QString>& texts = m_texts[m_formRecipe];
  for (const engine::SettingSpec& spec : schema().settings)
    texts.insert(qs(spec.key), valueText(qs(spec.key)));
}

void TrainingLaunchDialog::applyTexts() {
  const QHash<QString, QString> texts = m_texts.value(recipe());
  for (auto text = texts.begin(); text != texts.end(); ++text)
    if (m_fields.contains(text.key()))
      setSettingFieldText(m_fields.value(text.key()), text.value());
}

void TrainingLaunchDialog::alignLabels() {
  const QList<QLabel*> labels = m_form->findChildren<QLabel*>();
  int width = 0;
  for (const QLabel* label : labels)
    if (label->objectName().startsWith(QLatin1String("label.")))
      width = std::max(width, label->sizeHint().width());
  for (QLabel* label : labels)
    if (label->objectName().startsWith(QLatin1String("label."))) label->setMinimumWidth(width);
}

QString TrainingLaunchDialog::valueText(const QString& key) const {
  const engine::SettingSpec* spec = schema().find(key.toStdString());
  return spec ? settingFieldText(m_fields.value(key), spec->type) : QString();
}

void TrainingLaunchDialog::setValueText(const QString& key, const QString& text) {
  setSettingFieldText(m_fields.value(key), text);
}

void TrainingLaunchDialog::setValueTextForEveryRecipe(const QString& key, const QString& text) {
  for (const engine::ConfigSchema& other : m_schemas)
    if (other.find(key.toStdString())) m_texts[qs(other.recipe)].insert(key, text);
  setValueText(key, text);
}

void TrainingLaunchDialog::setRunFolder(const QString& folder) {
  m_folderChosen = true;
  m_runFolder->setText(folder);
}

QString TrainingLaunchDialog::runFolder() const { return m_runFolder->text().trimmed(); }

engine::ResolvedConfig TrainingLaunchDialog::config() const {
  engine::ResolvedConfig config(schema());
  for (const engine::SettingSpec& spec : schema().settings)
    config.set(spec.key, engine::parseSetting(spec, valueText(qs(spec.key)).toStdString(), {}));
  engine::validateConfig(schema(), config,
                         {});  // required settings, and whatever engine::parseSetting left
  return config;
}

engine::TrainingRequest TrainingLaunchDialog::request() const {
  engine::TrainingRequest request;
  request.recipe = schema().recipe;
  request.config = config();
  request.runFolder = toFsPath(cleanAbsolute(runFolder()));
  request.command = "strata (Training > Start Training)";
  return request;
}

void TrainingLaunchDialog::updateState() {
  QString problem;
  // Mark every bad field, report the first.
  for (const engine::SettingSpec& spec : schema().settings) {
    auto* edit = qobject_cast<QLineEdit*>(m_fields.value(qs(spec.key)));
    if (!edit) continue;
    QString why;
    try {
      engine::parseSetting(spec, valueText(qs(spec.key)).toStdString(), {});
    } catch (const Error& error) {
      why = QString::fromStdString(error.what());
    }
    edit->setStyleSheet(why.isEmpty() ? QString() : QStringLiteral("color: #b00020"));
    if (problem.isEmpty()) problem = why;
  }
  if (problem.isEmpty()) {
    try {
      config();
    } catch (const Error& error) {
      problem = QString::fromStdString(error.what());
    }
  }
  const QString folder = runFolder();
  if (problem.isEmpty() && folder.isEmpty()) problem = tr("Choose a run folder.");
  if (problem.isEmpty() && engine::isRunFolder(toFsPath(folder)))
    problem = tr("%1 already holds a run: choose another folder, or resume that run from the "
                 "Training tab.")
                  .arg(QDir::toNativeSeparators(folder));
  m_problemText = problem;
  m_problem->setText(problem);
  m_problem->setVisible(!problem.isEmpty());
  // The form changed: a plan shown was the plan of another request.
  m_planning = false;
  m_plan->hide();
  m_planButton->setEnabled(problem.isEmpty());
  okButton()->setEnabled(problem.isEmpty());
}

void TrainingLaunchDialog::restoreSettings(const QSettings& settings, const QString& recipe) {
  // Every recipe's remembered values, so that switching recipe shows them too.
  for (const engine::ConfigSchema& each : m_schemas) {
    const QString prefix = QStringLiteral("training/%1/").arg(qs(each.recipe));
    for (const engine::SettingSpec& spec : each.settings) {
      const QVariant value = settings.value(prefix + qs(spec.key));
      if (value.isValid()) m_texts[qs(each.recipe)].insert(qs(spec.key), value.toString());
    }
  }
  applyTexts();  // the shown form first: selecting another recipe keeps the shown one's texts
  setRecipe(recipe.isEmpty() ? settings.value(QStringLiteral("training/recipe")).toString()
                             : recipe);
}

void TrainingLaunchDialog::saveSettings(QSettings& settings) const {
  settings.setValue(QStringLiteral("training/recipe"), recipe());
  const QString prefix = QStringLiteral("training/%1/").arg(recipe());
  for (const engine::SettingSpec& spec : schema().settings)
    settings.setValue(prefix + qs(spec.key), valueText(qs(spec.key)));
}

void TrainingLaunchDialog::showPlan(const QString& plan, bool fits, const QString& refusal) {
  showPlanResult(fits ? plan : plan + QStringLiteral("\n") + refusal, fits);
}

void TrainingLaunchDialog::showPlanFailure(const QString& error) {
  showPlanResult(tr("Could not plan the run: %1").arg(error), false);
}

void TrainingLaunchDialog::showPlanResult(const QString& text, bool fits) {
  if (!m_planning) return;  // the form changed since: this result is not the form's
  m_planning = false;
  m_planButton->setEnabled(m_problemText.isEmpty());
  m_plan->setStyleSheet(fits ? QStringLiteral("color: #1b5e20") : QStringLiteral("color: #b00020"));
  m_plan->setText(text);
  m_plan->show();
}

}  // namespace strata
