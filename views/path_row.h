#pragma once
// One form row of a path: a line edit with a Browse… button beside it.

class QLineEdit;
class QPushButton;
class QWidget;

namespace strata {

QWidget* pathRow(QWidget* parent, QLineEdit* edit, QPushButton* browse);

}  // namespace strata
