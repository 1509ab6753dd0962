#pragma once
// SummaryForm: titled sections of "label: value" rows, values selectable for copying. The
// summary views (model, activation store) are built from it; tests read values by label.

#include <QMap>
#include <QScrollArea>
#include <QString>

class QFormLayout;
class QHBoxLayout;
class QLabel;
class QVBoxLayout;

namespace strata {

class SummaryForm : public QScrollArea {
  Q_OBJECT

 public:
  explicit SummaryForm(QWidget* parent = nullptr);

  /** A heading line (e.g. the model's name) above the sections. */
  void setTitle(const QString& title, const QString& subtitle = {});
  /** A widget on the heading line, just after the title (e.g. the button of the view's next
   *  step), so a form wider than its tab still shows it. The form owns it. */
  void addTitleWidget(QWidget* widget);
  /** Starts a new section in column 0 (left) or 1 (right); following rows go into it. */
  void addSection(const QString& title, int column = 0);
  /** Starts a new section across both columns, below them (long values: paths, hashes). */
  void addWideSection(const QString& title);
  /** A row in the current section. Labels are unique across the form. */
  void addRow(const QString& label, const QString& value, const QString& toolTip = {});
  /** The value shown for `label`, or a null QString when there is no such row. */
  QString value(const QString& label) const;
  QStringList labels() const { return m_values.keys(); }
  /** A widget across both columns, below the sections (e.g. a table). The form owns it. */
  void addWideWidget(QWidget* widget);

 private:
  QLabel* m_title;
  QLabel* m_subtitle;
  QHBoxLayout* m_titleRow;
  QVBoxLayout* m_page;
  QVBoxLayout* m_columns[2] = {nullptr, nullptr};
  QFormLayout* m_current = nullptr;
  QWidget* section(const QString& title);  ///< a new section's box, made current
  QMap<QString, QLabel*> m_values;
};

}  // namespace strata
