#pragma once
// One form field per SettingSpec of a ConfigSchema, so that any form built from a schema (the
// training launcher; recipe and metric plugins' options) offers the same widgets: a spin box for
// integers that fit one, a line edit for reals (read back by parseSetting, so 3e-4 survives,
// which a QDoubleSpinBox with a few decimals would round to 0), a check box, a combo box of the
// choices, a line edit for text and paths. Tooltips give the description, the range or the
// choices, the default and the CLI key. GUI thread only.

#include <QString>
#include <functional>

#include "engine/config_schema.h"

class QLineEdit;
class QWidget;

namespace strata {

/** A field showing `spec`'s default, named after its key; `changed` runs on every edit. */
QWidget* makeSettingField(const engine::SettingSpec& spec, QWidget* parent,
                          std::function<void()> changed);
/** The field's value as parseSetting reads it (numbers and paths trimmed, text as typed). */
QString settingFieldText(const QWidget* field, engine::SettingType type);
/** Sets the field from text as the CLI takes it ("3e-4", "true", "cpu"); a spin box ignores
 *  text that is not an integer. */
void setSettingFieldText(QWidget* field, const QString& text);
/** `edit` with a Browse… button (File… or Folder…) beside it, for Path settings. */
QWidget* makePathRow(QLineEdit* edit, QWidget* parent);

/** A value as a field shows it: settingText, but reals in their shortest form ("10", not
 *  "1e+01"). */
QString settingValueText(const engine::SettingValue& value);
/** Description, range or choices, default (or "Required") and the key, one per line. */
QString settingToolTip(const engine::SettingSpec& spec);

}  // namespace strata
