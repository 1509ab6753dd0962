#include "path_row.h"

#include <QHBoxLayout>
#include <QPushButton>
#include <QWidget>

namespace strata {

QWidget* pathRow(QWidget* parent, QWidget* field, QPushButton* browse) {
  auto* row = new QWidget(parent);
  auto* layout = new QHBoxLayout(row);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(field, 1);
  layout->addWidget(browse);
  return row;
}

}  // namespace strata
