#pragma once
// PluginOptionsForm: the options of the loaded plugin metrics as a form, generated from what
// each metric declares (core/plugin/plugin_loader.h's OptionInfo) — one group per metric with
// options, one line edit per option: the option's name as label, its default as placeholder,
// its description as tooltip. An empty field means "the default". Restore Plugin Defaults
// empties every field (named like the Score Layers dialog's own Restore Defaults). The form
// reads and writes the very options text `strata-cli score --plugin-options` takes
// (core/plugin/metric_options_text.h), so the GUI scan and the CLI compute the same metrics
// from the same text. GUI thread only.

#include <QList>
#include <QString>
#include <QWidget>
#include <vector>

#include "plugin/plugin_loader.h"

class QLineEdit;
class QPushButton;

namespace strata {

class PluginOptionsForm final : public QWidget {
  Q_OBJECT

 public:
  /** A form for every metric of `metrics` that declares options (the others have none). */
  explicit PluginOptionsForm(const std::vector<plugin::MetricEntry>& metrics,
                             QWidget* parent = nullptr);

  /** True when no metric declares an option (the form shows nothing to edit). */
  bool isEmpty() const { return m_fields.isEmpty(); }

  /** "METRIC:K=V;K=V,METRIC:K=V" with the fields the user filled, in metric-name order;
   *  empty when every option is at its default. */
  QString optionsText() const;
  /**
   * Fills the fields from an options text; every other field is emptied (its default). Options
   * no loaded metric declares are dropped (a plugin removed or updated since the text was
   * saved), and so is a text that does not parse.
   */
  void setOptionsText(const QString& text);
  /** Empties every field: every option at its default. */
  void resetToDefaults();

  /** The field of `option` of `metric`, or nullptr. */
  QLineEdit* field(const QString& metric, const QString& option) const;
  QPushButton* resetButton() const { return m_reset; }

 signals:
  void optionsChanged();

 private:
  struct Field {
    QString metric;
    QString option;
    QLineEdit* edit;
  };
  QList<Field> m_fields;  ///< in metric then declaration order
  QPushButton* m_reset;
};

}  // namespace strata
