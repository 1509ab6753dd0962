#pragma once
// One form row of a path: its field (a line edit, or an editable combo box offering recent
// paths) with a Browse… button beside it.

class QPushButton;
class QWidget;

namespace strata {

QWidget* pathRow(QWidget* parent, QWidget* field, QPushButton* browse);

}  // namespace strata
