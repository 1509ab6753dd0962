#pragma once
// ScoreLayersDialog: the form behind Geometry ▸ Score Layers… — where the proxies are computed
// (auto / cpu / cuda), how the rows are normalised first (none / trace / standardise), and with
// which sampling (bootstrap resamples, M anchors and difference directions, k neighbours, seed)
// and, when plugin metrics with options are loaded, their options (a PluginOptionsForm). Defaults
// are DESIGN.md's. It only fills the settings; the main window runs scanStore in a background job.
// Settings are read and written through a QSettings the caller passes ("geometry/" keys; the plugin
// options as the options text in "geometry/pluginOptions"). GUI thread only.

#include <QDialog>
#include <QString>
#include <string>
#include <vector>

#include "geometry/backend.h"
#include "geometry/proxy_options.h"
#include "plugin/plugin_loader.h"

class QComboBox;
class QDialogButtonBox;
class QFormLayout;
class QSettings;
class QSpinBox;

namespace strata {

struct GeometryScanSettings {
  geometry::DeviceChoice device = geometry::DeviceChoice::Auto;
  geometry::ProxyOptions options;
  /** The plugin metrics' options as `strata-cli score --plugin-options` takes them
   *  ("METRIC:K=V;K=V,..."); empty: every default. */
  std::string pluginOptions;
};

class PluginOptionsForm;

class ScoreLayersDialog final : public QDialog {
  Q_OBJECT

 public:
  /** `storeFile`: the store to score, shown read-only; `numTokens` bounds M and k (0: unknown). */
  ScoreLayersDialog(const QString& storeFile, int64_t numTokens, QWidget* parent = nullptr);

  GeometryScanSettings settings() const;
  void setSettings(const GeometryScanSettings& settings);

  /** Adds the options form of `metrics` (the loaded plugin metrics); nothing when none of
   *  them declares an option. Call once, before restoreSettings(). */
  void setPluginMetrics(const std::vector<plugin::MetricEntry>& metrics);

  void restoreSettings(const QSettings& settings);
  void saveSettings(QSettings& settings) const;
  /** What restoreSettings() fills the form with: the "geometry/" keys of `settings` over the
   *  defaults (Score Layers… on a model scores with them without showing this form). */
  static GeometryScanSettings readSettings(const QSettings& settings);

  QComboBox* deviceBox() const { return m_device; }
  QComboBox* normalisationBox() const { return m_normalisation; }
  QSpinBox* bootstrapBox() const { return m_bootstrap; }
  QSpinBox* anchorsBox() const { return m_anchors; }
  QSpinBox* neighboursBox() const { return m_neighbours; }
  QSpinBox* seedBox() const { return m_seed; }
  /** The plugin options form, or nullptr (no plugin metric with options). */
  PluginOptionsForm* pluginOptionsForm() const { return m_pluginOptions; }

 private:
  QString m_storeFile;
  QComboBox* m_device;
  QComboBox* m_normalisation;
  QSpinBox* m_bootstrap;
  QSpinBox* m_anchors;
  QSpinBox* m_neighbours;
  QSpinBox* m_seed;
  QDialogButtonBox* m_buttons;
  QFormLayout* m_form;
  PluginOptionsForm* m_pluginOptions = nullptr;
};

}  // namespace strata
