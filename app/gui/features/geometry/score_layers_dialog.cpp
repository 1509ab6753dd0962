#include "score_layers_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QStandardItemModel>
#include <algorithm>
#include <climits>
#include <string>

#include "display_text.h"
#include "plugin_options_form.h"

namespace strata {
namespace {

QSpinBox* makeSpinBox(QWidget* parent, int minimum, int maximum, const QString& tip) {
  auto* box = new QSpinBox(parent);
  box->setRange(minimum, maximum);
  box->setToolTip(tip);
  return box;
}

}  // namespace

ScoreLayersDialog::ScoreLayersDialog(const QString& storeFile, int64_t numTokens, QWidget* parent)
    : QDialog(parent), m_storeFile(storeFile) {
  setWindowTitle(tr("Score Layers"));
  auto* form = new QFormLayout(this);
  m_form = form;

  auto* store = new QLabel(QFileInfo(storeFile).fileName(), this);
  store->setObjectName(QStringLiteral("store"));
  store->setToolTip(storeFile);
  form->addRow(tr("Activation store"), store);
  if (numTokens > 0) form->addRow(tr("Tokens"), new QLabel(countText(numTokens), this));

  m_device = new QComboBox(this);
  m_device->addItem(tr("auto (CUDA when available)"),
                    static_cast<int>(geometry::DeviceChoice::Auto));
  m_device->addItem(tr("cpu"), static_cast<int>(geometry::DeviceChoice::Cpu));
  m_device->addItem(tr("cuda"), static_cast<int>(geometry::DeviceChoice::Cuda));
  std::string why;
  if (!geometry::cudaBackendAvailable(&why)) {  // offered, but greyed out with the reason
    auto* model = qobject_cast<QStandardItemModel*>(m_device->model());
    if (QStandardItem* cuda = model ? model->item(2) : nullptr) {
      cuda->setEnabled(false);
      cuda->setToolTip(QString::fromStdString(why));
    }
  }
  form->addRow(tr("Device"), m_device);

  m_normalisation = new QComboBox(this);
  m_normalisation->addItem(tr("standardise (unit variance per dimension)"),
                           static_cast<int>(geometry::Normalisation::Standardise));
  m_normalisation->addItem(tr("trace (tr Σ = d)"),
                           static_cast<int>(geometry::Normalisation::Trace));
  m_normalisation->addItem(tr("none (raw scale)"), static_cast<int>(geometry::Normalisation::None));
  m_normalisation->setToolTip(
      tr("How the centred rows are scaled before every proxy (docs/geometry.md, "
         "\"Normalisation\"). none: m_curv and m_mono follow the residual stream's norm, "
         "hence depth; trace: scale-free, shape kept; standardise (default): every dimension "
         "at unit variance — the one whose S predicted bridgeability beyond depth on "
         "Gemma-3-270M and SmolLM2"));
  form->addRow(tr("Normalisation"), m_normalisation);

  const int maxRows =
      numTokens > 0 ? static_cast<int>(std::min<int64_t>(numTokens, 1 << 24)) : 1 << 24;
  m_bootstrap = makeSpinBox(this, 0, 1000,
                            tr("Token resamples for the bootstrap intervals (0: no intervals)"));
  m_anchors = makeSpinBox(this, 1, 1 << 24,
                          tr("M: anchors for m_curv and difference directions for m_mono"));
  m_neighbours = makeSpinBox(this, 1, std::max(1, maxRows - 1),
                             tr("k: nearest neighbours of each anchor (the anchor excluded)"));
  m_seed = makeSpinBox(this, 0, INT_MAX, tr("Seed of the anchors, directions and resamples"));
  form->addRow(tr("Bootstrap resamples"), m_bootstrap);
  form->addRow(tr("Anchors M"), m_anchors);
  form->addRow(tr("Neighbours k"), m_neighbours);
  form->addRow(tr("Seed"), m_seed);

  m_buttons = new QDialogButtonBox(
      QDialogButtonBox::Ok | QDialogButtonBox::Cancel | QDialogButtonBox::RestoreDefaults, this);
  m_buttons->button(QDialogButtonBox::Ok)->setText(tr("Score"));
  connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(m_buttons->button(QDialogButtonBox::RestoreDefaults), &QPushButton::clicked, this,
          [this] { setSettings({}); });
  form->addRow(m_buttons);
  setSettings({});
}

GeometryScanSettings ScoreLayersDialog::settings() const {
  GeometryScanSettings s;
  s.device = static_cast<geometry::DeviceChoice>(m_device->currentData().toInt());
  s.options.normalisation =
      static_cast<geometry::Normalisation>(m_normalisation->currentData().toInt());
  s.options.bootstrapResamples = m_bootstrap->value();
  s.options.anchors = m_anchors->value();
  s.options.directions = m_anchors->value();  // one M for both, as in DESIGN.md
  s.options.neighbours = m_neighbours->value();
  s.options.seed = static_cast<uint64_t>(m_seed->value());
  if (m_pluginOptions) s.pluginOptions = m_pluginOptions->optionsText().toStdString();
  return s;
}

void ScoreLayersDialog::setSettings(const GeometryScanSettings& settings) {
  m_device->setCurrentIndex(std::max(0, m_device->findData(static_cast<int>(settings.device))));
  m_normalisation->setCurrentIndex(
      std::max(0, m_normalisation->findData(static_cast<int>(settings.options.normalisation))));
  m_bootstrap->setValue(static_cast<int>(settings.options.bootstrapResamples));
  m_anchors->setValue(static_cast<int>(settings.options.anchors));
  m_neighbours->setValue(static_cast<int>(settings.options.neighbours));
  m_seed->setValue(static_cast<int>(std::min<uint64_t>(settings.options.seed, INT_MAX)));
  if (m_pluginOptions)
    m_pluginOptions->setOptionsText(QString::fromStdString(settings.pluginOptions));
}

void ScoreLayersDialog::setPluginMetrics(const std::vector<plugin::MetricEntry>& metrics) {
  if (m_pluginOptions) return;
  auto* form = new PluginOptionsForm(metrics, this);
  if (form->isEmpty()) {
    delete form;
    return;
  }
  m_pluginOptions = form;
  form->setToolTip(
      tr("Options of the plugin metrics the scan computes; an empty field is the "
         "option's default (strata-cli score --plugin-options)"));
  m_form->insertRow(m_form->rowCount() - 1, tr("Plugin metric options"), form);
}

void ScoreLayersDialog::restoreSettings(const QSettings& settings) {
  setSettings(readSettings(settings));
}

GeometryScanSettings ScoreLayersDialog::readSettings(const QSettings& settings) {
  GeometryScanSettings s;
  const QString device = settings.value(QStringLiteral("geometry/device")).toString();
  try {
    if (!device.isEmpty()) s.device = geometry::parseDeviceChoice(device.toStdString());
  } catch (const std::exception&) {
    // An unknown device name in an old settings file: keep the default.
  }
  const QString normalisation = settings.value(QStringLiteral("geometry/normalisation")).toString();
  try {
    if (!normalisation.isEmpty())
      s.options.normalisation = geometry::parseNormalisation(normalisation.toStdString());
  } catch (const std::exception&) {
    // An unknown name in an old settings file: keep the default.
  }
  s.options.bootstrapResamples =
      settings.value(QStringLiteral("geometry/bootstrap"), int(s.options.bootstrapResamples))
          .toInt();
  s.options.anchors =
      settings.value(QStringLiteral("geometry/anchors"), int(s.options.anchors)).toInt();
  s.options.neighbours =
      settings.value(QStringLiteral("geometry/neighbours"), int(s.options.neighbours)).toInt();
  s.options.seed = settings.value(QStringLiteral("geometry/seed"), 0).toULongLong();
  s.pluginOptions =
      settings.value(QStringLiteral("geometry/pluginOptions")).toString().toStdString();
  return s;
}

void ScoreLayersDialog::saveSettings(QSettings& settings) const {
  const GeometryScanSettings s = this->settings();
  const char* device = s.device == geometry::DeviceChoice::Cpu    ? "cpu"
                       : s.device == geometry::DeviceChoice::Cuda ? "cuda"
                                                                  : "auto";
  settings.setValue(QStringLiteral("geometry/device"), QLatin1String(device));
  settings.setValue(QStringLiteral("geometry/normalisation"),
                    QLatin1String(geometry::normalisationName(s.options.normalisation)));
  settings.setValue(QStringLiteral("geometry/bootstrap"), int(s.options.bootstrapResamples));
  settings.setValue(QStringLiteral("geometry/anchors"), int(s.options.anchors));
  settings.setValue(QStringLiteral("geometry/neighbours"), int(s.options.neighbours));
  settings.setValue(QStringLiteral("geometry/seed"), static_cast<qulonglong>(s.options.seed));
  // Without the form (no plugin with options loaded now) the saved options stay as they were.
  if (m_pluginOptions)
    settings.setValue(QStringLiteral("geometry/pluginOptions"),
                      QString::fromStdString(s.pluginOptions));
}

}  // namespace strata
