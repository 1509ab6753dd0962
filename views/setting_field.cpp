#include "setting_field.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QLocale>
#include <QMenu>
#include <QSpinBox>
#include <QStringList>
#include <QToolButton>
#include <limits>

namespace strata {
namespace {

constexpr double kIntMin = std::numeric_limits<int>::min();
constexpr double kIntMax = std::numeric_limits<int>::max();

QString qs(const std::string& text) { return QString::fromStdString(text); }

/** The shortest text that reads back equal. */
QString number(double value) { return QString::number(value, 'g', QLocale::FloatingPointShortest); }

/** A spin box holds the setting only when its bounds and default fit an int. */
bool fitsSpinBox(const engine::SettingSpec& spec) {
  const auto* value = std::get_if<int64_t>(&spec.defaultValue);
  return value && *value >= kIntMin && *value <= kIntMax &&
         spec.minimum.value_or(kIntMin) >= kIntMin && spec.maximum.value_or(kIntMax) <= kIntMax;
}

}  // namespace

QString settingValueText(const engine::SettingValue& value) {
  if (const auto* real = std::get_if<double>(&value)) return number(*real);
  return qs(engine::settingText(value));
}

QString settingToolTip(const engine::SettingSpec& spec) {
  QStringList lines{qs(spec.description)};
  if (!spec.choices.empty()) {
    QStringList choices;
    for (const std::string& choice : spec.choices) choices << qs(choice);
    lines << QObject::tr("One of: %1").arg(choices.join(QStringLiteral(", ")));
  } else if (spec.minimum && spec.maximum) {
    lines << QObject::tr("Range: %1 … %2").arg(number(*spec.minimum), number(*spec.maximum));
  } else if (spec.minimum) {
    lines << QObject::tr("At least %1").arg(number(*spec.minimum));
  } else if (spec.maximum) {
    lines << QObject::tr("At most %1").arg(number(*spec.maximum));
  }
  const QString value = settingValueText(spec.defaultValue);
  if (spec.required && value.isEmpty())
    lines << QObject::tr("Required");
  else
    lines << QObject::tr("Default: %1").arg(value.isEmpty() ? QObject::tr("(empty)") : value);
  lines << QObject::tr("Key: %1 (strata-cli --set %1=…)").arg(qs(spec.key));
  return lines.join(QLatin1Char('\n'));
}

QWidget* makeSettingField(const engine::SettingSpec& spec, QWidget* parent,
                          std::function<void()> changed) {
  QWidget* field = nullptr;
  const QString value = settingValueText(spec.defaultValue);
  if (spec.type == engine::SettingType::Integer && fitsSpinBox(spec)) {
    auto* box = new QSpinBox(parent);
    box->setRange(static_cast<int>(spec.minimum.value_or(kIntMin)),
                  static_cast<int>(spec.maximum.value_or(kIntMax)));
    box->setValue(static_cast<int>(std::get<int64_t>(spec.defaultValue)));
    box->setGroupSeparatorShown(true);
    QObject::connect(box, &QSpinBox::valueChanged, box, [changed] { changed(); });
    field = box;
  } else if (spec.type == engine::SettingType::Boolean) {
    auto* box = new QCheckBox(parent);
    box->setChecked(std::get<bool>(spec.defaultValue));
    QObject::connect(box, &QCheckBox::toggled, box, [changed] { changed(); });
    field = box;
  } else if (spec.type == engine::SettingType::Choice) {
    auto* box = new QComboBox(parent);
    for (const std::string& choice : spec.choices) box->addItem(qs(choice));
    box->setCurrentText(value);
    QObject::connect(box, &QComboBox::currentIndexChanged, box, [changed] { changed(); });
    field = box;
  } else {  // reals, wide integers, text, paths: typed, read back by engine::parseSetting
    auto* edit = new QLineEdit(value, parent);
    if (spec.required) edit->setPlaceholderText(QObject::tr("required"));
    QObject::connect(edit, &QLineEdit::textChanged, edit, [changed] { changed(); });
    field = edit;
  }
  field->setObjectName(qs(spec.key));
  field->setToolTip(settingToolTip(spec));
  return field;
}

QString settingFieldText(const QWidget* field, engine::SettingType type) {
  if (const auto* box = qobject_cast<const QSpinBox*>(field)) return QString::number(box->value());
  if (const auto* box = qobject_cast<const QCheckBox*>(field))
    return box->isChecked() ? QStringLiteral("true") : QStringLiteral("false");
  if (const auto* box = qobject_cast<const QComboBox*>(field)) return box->currentText();
  if (const auto* edit = qobject_cast<const QLineEdit*>(field))
    return type == engine::SettingType::Text ? edit->text() : edit->text().trimmed();
  return {};
}

void setSettingFieldText(QWidget* field, const QString& text) {
  if (auto* box = qobject_cast<QSpinBox*>(field)) {
    bool ok = false;
    const int value = text.toInt(&ok);
    if (ok) box->setValue(value);
  } else if (auto* box = qobject_cast<QCheckBox*>(field)) {
    const QString t = text.trimmed().toLower();
    box->setChecked(t == QLatin1String("true") || t == QLatin1String("1") ||
                    t == QLatin1String("yes") || t == QLatin1String("on"));
  } else if (auto* box = qobject_cast<QComboBox*>(field)) {
    box->setCurrentText(text);
  } else if (auto* edit = qobject_cast<QLineEdit*>(field)) {
    edit->setText(text);
  }
}

QWidget* makePathRow(QLineEdit* edit, QWidget* parent) {
  auto* row = new QWidget(parent);
  auto* layout = new QHBoxLayout(row);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(edit, 1);
  auto* browse = new QToolButton(row);
  browse->setText(QObject::tr("Browse…"));
  browse->setPopupMode(QToolButton::InstantPopup);
  auto* menu = new QMenu(browse);
  // A corpus may be a file or a folder: offer both.
  menu->addAction(QObject::tr("File…"), edit, [edit] {
    const QString file =
        QFileDialog::getOpenFileName(edit, QObject::tr("Choose a File"), edit->text());
    if (!file.isEmpty()) edit->setText(file);
  });
  menu->addAction(QObject::tr("Folder…"), edit, [edit] {
    const QString folder =
        QFileDialog::getExistingDirectory(edit, QObject::tr("Choose a Folder"), edit->text());
    if (!folder.isEmpty()) edit->setText(folder);
  });
  browse->setMenu(menu);
  layout->addWidget(browse);
  return row;
}

}  // namespace strata
