#include "runs_table.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QHeaderView>
#include <exception>

#include "clean_path.h"
#include "common/error.h"
#include "display_text.h"

namespace strata {

RunsTable::RunsTable(QWidget* parent)
    : QTableWidget(0, ColumnCount, parent),
      m_reads(
          this, [](const Request& r) { return listFolders(r.root, r.extraRuns); },
          [this](Listing listing) {
            showListing(std::move(listing));
            emit refreshed();
          }) {
  setHorizontalHeaderLabels({tr("Run"), tr("Recipe"), tr("State"), tr("Step"), tr("Updated")});
  setSelectionBehavior(QAbstractItemView::SelectRows);
  setSelectionMode(QAbstractItemView::SingleSelection);
  setEditTriggers(QAbstractItemView::NoEditTriggers);
  verticalHeader()->hide();
  // State, Step and Updated are read whole at every width; the run's name, long and also in the
  // tooltip, takes what is left and is elided in the middle (its date and time stay visible).
  horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  horizontalHeader()->setSectionResizeMode(RunColumn, QHeaderView::Stretch);
  horizontalHeader()->setStretchLastSection(false);
  setTextElideMode(Qt::ElideMiddle);
  setWordWrap(false);
  connect(this, &QTableWidget::itemSelectionChanged, this, [this] {
    const QList<QTableWidgetItem*> items = selectedItems();
    if (!items.isEmpty()) emit runSelected(m_folders.value(items.first()->row()));
  });
}

int RunsTable::widthFor(const QStringList& samples) const {
  const QFontMetrics metrics(font());
  int width = 2 * frameWidth() + metrics.horizontalAdvance(QStringLiteral("repr_a…")) +
              2 * kCellPadding;  // the least of a run's name
  for (const QString& sample : samples)
    width += metrics.horizontalAdvance(sample) + 2 * kCellPadding;
  return width;
}

QSize RunsTable::sizeHint() const {
  return {widthFor({QStringLiteral("repr_align-2026"), QStringLiteral("repr_align"),
                    QStringLiteral("interrupted"), QStringLiteral("1000 / 1000"),
                    QStringLiteral("2026-12-05")}),
          QTableWidget::sizeHint().height()};
}

QSize RunsTable::minimumSizeHint() const {
  // State, Step and Updated whole, always (the recipe is hidden first: resizeEvent).
  return {widthFor({QStringLiteral("interrupted"), QStringLiteral("1000 / 1000"),
                    QStringLiteral("2026-12-05")}),
          QTableWidget::minimumSizeHint().height()};
}

void RunsTable::resizeEvent(QResizeEvent* event) {
  QTableWidget::resizeEvent(event);
  // Narrower than the name, the recipe, State, Step and Updated need: the recipe goes (the
  // name usually begins with it, and the tooltip has the folder).
  setColumnHidden(
      RecipeColumn,
      width() < widthFor({QStringLiteral("repr_align"), QStringLiteral("interrupted"),
                          QStringLiteral("1000 / 1000"), QStringLiteral("2026-12-05")}));
}

QDateTime RunsTable::updatedTime(double seconds) {
  return QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(seconds * 1000));
}

QString RunsTable::updatedText(double seconds) {
  if (!(seconds > 0)) return {};
  // Short enough to show whole beside the other columns: the time today, the date before.
  const QDateTime time = updatedTime(seconds);
  return time.date() == QDate::currentDate() ? time.toString(QStringLiteral("hh:mm"))
                                             : time.toString(QStringLiteral("yyyy-MM-dd"));
}

RunsTable::Listing RunsTable::listFolders(const QString& root, const QStringList& extraRuns) {
  Listing listing;
  try {
    listing.runs = engine::listRuns(toFsPath(root));
  } catch (const std::exception&) {  // a root that cannot be listed offers nothing
  }
  for (const engine::RunInfo& run : listing.runs)
    listing.folders << cleanAbsolute(toQString(run.folder));
  for (const QString& extra : extraRuns) {
    try {
      if (listing.folders.contains(extra) || !engine::isRunFolder(toFsPath(extra))) continue;
      listing.runs.push_back(engine::readRunInfo(toFsPath(extra)));
      listing.folders << extra;
    } catch (const std::exception&) {  // an unreadable run.json is not listed, as listRuns does
    }
  }
  return listing;
}

void RunsTable::refresh(const QString& root, const QStringList& extraRuns) {
  m_reads.request({root, extraRuns});
}

void RunsTable::showListing(Listing listing) {
  if (listing.folders != m_folders) {
    // Rebuilt without selection signals; the selected run is selected again.
    const QString selected =
        selectedItems().isEmpty() ? QString() : m_folders.value(selectedItems().first()->row());
    const QSignalBlocker blocker(this);
    clearContents();
    setRowCount(static_cast<int>(listing.runs.size()));
    m_folders = std::move(listing.folders);
    m_runs = std::move(listing.runs);
    for (int row = 0; row < rowCount(); ++row) fillRow(row, m_runs[static_cast<std::size_t>(row)]);
    selectRun(selected);
    return;
  }
  m_runs = std::move(listing.runs);
  for (int row = 0; row < rowCount(); ++row) fillRow(row, m_runs[static_cast<std::size_t>(row)]);
}

const engine::RunInfo* RunsTable::info(const QString& folder) const {
  const int row = rowOf(folder);
  return row < 0 ? nullptr : &m_runs[static_cast<std::size_t>(row)];
}

int RunsTable::rowOf(const QString& folder) const {
  return static_cast<int>(m_folders.indexOf(folder));
}

void RunsTable::selectRun(const QString& folder) {
  const int row = rowOf(folder);
  if (row < 0) return;
  const QSignalBlocker blocker(this);
  selectRow(row);
}

void RunsTable::fillRow(int row, const engine::RunInfo& info) {
  const engine::RunStatus& status = info.status;
  const QString texts[ColumnCount] = {
      QFileInfo(toQString(info.folder)).fileName(), QString::fromStdString(info.recipe),
      QString::fromLatin1(engine::runStateName(status.state)),
      status.totalSteps > 0 ? QStringLiteral("%1 / %2").arg(status.step).arg(status.totalSteps)
                            : QString::number(status.step),
      updatedText(status.updated)};
  QString tip = QDir::toNativeSeparators(toQString(info.folder));
  if (status.updated > 0)
    tip += QLatin1Char('\n') +
           tr("Updated %1")
               .arg(updatedTime(status.updated).toString(QStringLiteral("yyyy-MM-dd hh:mm:ss")));
  if (!status.error.empty()) tip += QLatin1Char('\n') + QString::fromStdString(status.error);
  for (int column = 0; column < ColumnCount; ++column) {
    QTableWidgetItem* cell = item(row, column);
    if (!cell) setItem(row, column, cell = new QTableWidgetItem);
    if (cell->text() != texts[column]) cell->setText(texts[column]);  // no repaint when unchanged
    if (cell->toolTip() != tip) cell->setToolTip(tip);
  }
}

}  // namespace strata
