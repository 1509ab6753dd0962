#include "plugin_options_form.h"

#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpressionValidator>
#include <QVBoxLayout>
#include <map>

#include "plugin/metric_options_text.h"

namespace strata {

PluginOptionsForm::PluginOptionsForm(const std::vector<plugin::MetricEntry>& metrics,
                                     QWidget* parent)
    : QWidget(parent), m_reset(new QPushButton(tr("Restore Plugin Defaults"), this)) {
  setObjectName(QStringLiteral("PluginOptionsForm"));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  // ',' separates metrics and ';' options in the options text: a value can hold neither.
  const QRegularExpression allowed(QStringLiteral("[^,;\\n]*"));
  for (const plugin::MetricEntry& metric : metrics) {
    if (metric.options.empty()) continue;
    const QString name = QString::fromStdString(metric.info.name);
    auto* group = new QGroupBox(name, this);
    group->setToolTip(QString::fromStdString(metric.info.description) + QLatin1Char('\n') +
                      QString::fromStdString(metric.info.source));
    auto* form = new QFormLayout(group);
    for (const plugin::OptionInfo& option : metric.options) {
      const QString optionName = QString::fromStdString(option.name);
      auto* edit = new QLineEdit(group);
      edit->setObjectName(name + QLatin1Char('.') + optionName);
      edit->setPlaceholderText(QString::fromStdString(option.defaultValue));
      edit->setToolTip(QString::fromStdString(option.description) +
                       tr("\nEmpty: the default (%1)").arg(edit->placeholderText()));
      edit->setValidator(new QRegularExpressionValidator(allowed, edit));
      connect(edit, &QLineEdit::textChanged, this, &PluginOptionsForm::optionsChanged);
      form->addRow(optionName, edit);
      m_fields.append({name, optionName, edit});
    }
    layout->addWidget(group);
  }
  m_reset->setToolTip(tr("Every plugin metric option back to its default"));
  connect(m_reset, &QPushButton::clicked, this, &PluginOptionsForm::resetToDefaults);
  auto* buttons = new QHBoxLayout;
  buttons->addStretch();
  buttons->addWidget(m_reset);
  layout->addLayout(buttons);
  m_reset->setVisible(!m_fields.isEmpty());
}

QString PluginOptionsForm::optionsText() const {
  std::map<std::string, std::string> perMetric;
  for (const Field& f : m_fields) {
    const QString value = f.edit->text().trimmed();
    if (value.isEmpty()) continue;
    std::string& text = perMetric[f.metric.toStdString()];
    if (!text.empty()) text += ';';
    text += f.option.toStdString() + '=' + value.toStdString();
  }
  return QString::fromStdString(plugin::metricOptionsText(perMetric));
}

void PluginOptionsForm::setOptionsText(const QString& text) {
  std::map<std::string, std::string> perMetric;
  try {
    perMetric = plugin::parseMetricOptionsText(text.toStdString());
  } catch (const std::exception&) {
    // A damaged settings value: every option at its default rather than a form that fails.
  }
  for (const Field& f : m_fields) {
    QString value;
    const auto found = perMetric.find(f.metric.toStdString());
    if (found != perMetric.end())
      for (const auto& [name, v] : plugin::optionPairs(found->second))
        if (QString::fromStdString(name) == f.option)
          value = QString::fromStdString(v.value_or(std::string()));
    f.edit->setText(value);
  }
}

void PluginOptionsForm::resetToDefaults() {
  for (const Field& f : m_fields) f.edit->clear();
}

QLineEdit* PluginOptionsForm::field(const QString& metric, const QString& option) const {
  for (const Field& f : m_fields)
    if (f.metric == metric && f.option == option) return f.edit;
  return nullptr;
}

}  // namespace strata
