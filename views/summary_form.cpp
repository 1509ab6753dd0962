#include "summary_form.h"

#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

namespace strata {

SummaryForm::SummaryForm(QWidget* parent)
    : QScrollArea(parent),
      m_title(new QLabel),
      m_subtitle(new QLabel),
      m_titleRow(new QHBoxLayout) {
  auto* page = new QWidget;
  auto* layout = m_page = new QVBoxLayout(page);
  QFont big = m_title->font();
  big.setPointSizeF(big.pointSizeF() * 1.4);
  big.setBold(true);
  m_title->setFont(big);
  m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_subtitle->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_subtitle->setForegroundRole(QPalette::PlaceholderText);
  m_subtitle->setWordWrap(true);
  m_titleRow->addWidget(m_title);
  m_titleRow->addStretch(1);  // title widgets sit just after the title, seen at any width
  layout->addLayout(m_titleRow);
  layout->addWidget(m_subtitle);
  auto* columns = new QHBoxLayout;
  for (QVBoxLayout*& column : m_columns) {
    column = new QVBoxLayout;
    column->addStretch(1);  // sections are inserted above it: they stay at the top
    columns->addLayout(column, 1);
  }
  layout->addLayout(columns);
  layout->addStretch(1);
  setWidget(page);
  setWidgetResizable(true);
  setFrameShape(QFrame::NoFrame);
}

void SummaryForm::setTitle(const QString& title, const QString& subtitle) {
  m_title->setText(title);
  m_subtitle->setText(subtitle);
  m_subtitle->setVisible(!subtitle.isEmpty());
}

QWidget* SummaryForm::section(const QString& title) {
  auto* box = new QGroupBox(title);
  m_current = new QFormLayout(box);
  m_current->setLabelAlignment(Qt::AlignRight);
  m_current->setFieldGrowthPolicy(QFormLayout::ExpandingFieldsGrow);
  return box;
}

void SummaryForm::addTitleWidget(QWidget* widget) {
  m_titleRow->insertWidget(m_titleRow->count() - 1, widget, 0, Qt::AlignVCenter);
}

void SummaryForm::addSection(const QString& title, int column) {
  QVBoxLayout* target = m_columns[column == 0 ? 0 : 1];
  target->insertWidget(target->count() - 1, section(title));
}

void SummaryForm::addWideSection(const QString& title) {
  m_page->insertWidget(m_page->count() - 1, section(title));  // above the closing stretch
}

void SummaryForm::addRow(const QString& label, const QString& value, const QString& toolTip) {
  if (!m_current) addSection(QString());
  auto* field = new QLabel(value);
  field->setTextInteractionFlags(Qt::TextSelectableByMouse);
  field->setTextFormat(Qt::PlainText);
  // Wrapping labels get too little height in a form (height-for-width), so only a long
  // single line (a warning) wraps; lists are one item per line.
  field->setWordWrap(value.size() > 100 && !value.contains(QLatin1Char('\n')));
  field->setToolTip(toolTip);
  m_current->addRow(label + QLatin1Char(':'), field);
  m_values.insert(label, field);
}

void SummaryForm::addWideWidget(QWidget* widget) {
  m_page->insertWidget(m_page->count() - 1, widget);  // above the closing stretch
}

QString SummaryForm::value(const QString& label) const {
  const QLabel* field = m_values.value(label);
  return field ? field->text() : QString();
}

}  // namespace strata
