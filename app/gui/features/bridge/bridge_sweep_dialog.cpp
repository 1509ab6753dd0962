#include "bridge_sweep_dialog.h"

#include <QCheckBox>
#include <QDateTime>
#include <QDialogButtonBox>
#include <QDir>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QSpinBox>
#include <QVBoxLayout>

#include "common/error.h"
#include "display_text.h"
#include "engine/config_schema.h"
#include "engine/recipe_catalog.h"
#include "setting_field.h"

namespace strata {
namespace {

const char* const kWhere = "the bridgeability sweep";

QSpinBox* makeSpin(QWidget* parent, int low, int high, int value, const QString& tip) {
  auto* box = new QSpinBox(parent);
  box->setRange(low, high);
  box->setValue(value);
  box->setToolTip(tip);
  return box;
}

QStringList settingList(const QString& text) {
  return text.split(QRegularExpression(QStringLiteral("[\\s,]+")), Qt::SkipEmptyParts);
}

}  // namespace

BridgeSweepDialog::BridgeSweepDialog(const QString& runsRoot, QWidget* parent)
    : QDialog(parent),
      m_model(new QLineEdit(this)),
      m_corpus(new QLineEdit(this)),
      m_store(new QLineEdit(this)),
      m_first(makeSpin(this, 0, 9999, 1, tr("The first layer of the range"))),
      m_last(makeSpin(this, 0, 9999, 3, tr("The last layer of the range"))),
      m_steps(makeSpin(this, 1, 10000000, 300, tr("The training steps every bridge gets"))),
      m_folder(new QLineEdit(this)),
      m_settings(new QLineEdit(this)),
      m_baseline(new QCheckBox(tr("Also train the layer-0 baseline (not part of ρ)"), this)),
      m_problem(new QLabel(this)),
      m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this)) {
  setObjectName(QStringLiteral("BridgeSweepDialog"));
  setWindowTitle(tr("Bridgeability Sweep"));
  m_store->setToolTip(
      tr("An activation store of the model with scores; empty: the sweep "
         "captures the model over the corpus into <folder>/acts.h5 and scores it"));
  m_folder->setToolTip(
      tr("Holds runs/layer-<l>-s<seed>/ (one run per layer), sweep.json and sweep.csv; "
         "running a sweep into it again continues it"));
  m_folder->setText(QDir::cleanPath(QDir(runsRoot).absoluteFilePath(
      QStringLiteral("sweep-") +
      QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-hhmmss")))));
  m_settings->setPlaceholderText(QStringLiteral("width=64 depth=2 batch=8"));
  m_settings->setToolTip(
      tr("Further bridge settings, key=value separated by spaces, as "
         "`strata-cli train bridge --set` takes them"));
  m_baseline->setChecked(true);
  m_problem->setWordWrap(true);
  m_problem->setStyleSheet(QStringLiteral("color: #b00020"));

  auto* form = new QFormLayout;
  form->addRow(tr("Model folder:"), makePathRow(m_model, this));
  form->addRow(tr("Corpus:"), makePathRow(m_corpus, this));
  form->addRow(tr("Store (optional):"), makePathRow(m_store, this));
  auto* range = new QHBoxLayout;
  range->addWidget(m_first);
  range->addWidget(new QLabel(QStringLiteral(".."), this));
  range->addWidget(m_last);
  range->addStretch(1);
  form->addRow(tr("Layers:"), range);
  form->addRow(tr("Steps per bridge:"), m_steps);
  form->addRow(tr("Sweep folder:"), makePathRow(m_folder, this));
  form->addRow(tr("Bridge settings:"), m_settings);
  form->addRow(QString(), m_baseline);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(m_problem);
  layout->addWidget(m_buttons);
  okButton()->setText(tr("Start Sweep"));
  connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  for (QLineEdit* edit : {m_model, m_corpus, m_store, m_folder, m_settings})
    connect(edit, &QLineEdit::textChanged, this, &BridgeSweepDialog::updateState);
  for (QSpinBox* box : {m_first, m_last, m_steps})
    connect(box, &QSpinBox::valueChanged, this, &BridgeSweepDialog::updateState);
  resize(620, 360);
  updateState();
}

QPushButton* BridgeSweepDialog::okButton() const { return m_buttons->button(QDialogButtonBox::Ok); }

void BridgeSweepDialog::setModelFolder(const QString& folder) { m_model->setText(folder); }
void BridgeSweepDialog::setCorpus(const QString& corpus) { m_corpus->setText(corpus); }
void BridgeSweepDialog::setStore(const QString& store) { m_store->setText(store); }
void BridgeSweepDialog::setLayerRange(qint64 first, qint64 last) {
  m_first->setValue(static_cast<int>(first));
  m_last->setValue(static_cast<int>(last));
}

recipes::BridgeSweepConfig BridgeSweepDialog::config() const {
  recipes::BridgeSweepConfig c;
  const auto path = [](const QLineEdit* edit, const char* field) {
    const QString text = edit->text().trimmed();
    if (field && text.isEmpty()) throw ConfigError(kWhere, field, "is required");
    return toFsPath(text);
  };
  c.model = path(m_model, "model");
  c.corpus = path(m_corpus, "corpus");
  c.store = m_store->text().trimmed().isEmpty() ? std::filesystem::path() : path(m_store, nullptr);
  c.folder = path(m_folder, "folder");
  c.firstLayer = m_first->value();
  c.lastLayer = m_last->value();
  if (c.lastLayer - c.firstLayer < 1)
    throw ConfigError(kWhere, "layers", "needs at least two layers to correlate (a < b)");
  c.steps = m_steps->value();
  c.layerZeroBaseline = m_baseline->isChecked();
  // Checked here against the bridge schema, as the sweep will apply them.
  const engine::ConfigSchema schema = engine::recipeSchema("bridge");
  engine::ResolvedConfig probe(schema);
  for (const QString& setting : settingList(m_settings->text())) {
    engine::applyOverride(schema, setting.toStdString(), probe);
    c.settings.push_back(setting.toStdString());
  }
  return c;
}

void BridgeSweepDialog::updateState() {
  QString problem;
  try {
    config();
  } catch (const Error& error) {
    problem = QString::fromStdString(error.what());
  }
  m_problemText = problem;
  m_problem->setText(problem);
  m_problem->setVisible(!problem.isEmpty());
  okButton()->setEnabled(problem.isEmpty());
}

void BridgeSweepDialog::restoreSettings(const QSettings& settings) {
  m_steps->setValue(settings.value(QStringLiteral("bridgeSweep/steps"), m_steps->value()).toInt());
  m_settings->setText(settings.value(QStringLiteral("bridgeSweep/settings")).toString());
  m_baseline->setChecked(
      settings.value(QStringLiteral("bridgeSweep/baseline"), m_baseline->isChecked()).toBool());
}

void BridgeSweepDialog::saveSettings(QSettings& settings) const {
  settings.setValue(QStringLiteral("bridgeSweep/steps"), m_steps->value());
  settings.setValue(QStringLiteral("bridgeSweep/settings"), m_settings->text());
  settings.setValue(QStringLiteral("bridgeSweep/baseline"), m_baseline->isChecked());
}

}  // namespace strata
