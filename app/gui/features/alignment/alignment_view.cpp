#include "alignment_view.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QSplitter>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "alignment_plots.h"
#include "clean_path.h"
#include "common/error.h"
#include "display_text.h"
#include "error_dialog.h"
#include "metrics_follower.h"
#include "plot_export.h"

namespace strata {
namespace {

// The comparison box's last item: pick a run folder anywhere.
const QString kOtherFolder = QStringLiteral("strata:other-folder");

QString sourceName(CosineSource source) {
  return source == CosineSource::Training ? AlignmentView::tr("training")
                                          : AlignmentView::tr("validation");
}

bool differentLambda(const AlignmentRunInfo& a, const AlignmentRunInfo& b) {
  return !std::isnan(a.lambda) && !std::isnan(b.lambda) && a.lambda != b.lambda;
}

}  // namespace

AlignmentView::AlignmentView(AlignmentRunInfo run, MetricsFeeds* feeds, QWidget* parent)
    : QWidget(parent),
      m_run(std::make_unique<AlignmentRun>(std::move(run))),
      m_title(new QLabel(this)),
      m_sourceBox(new QComboBox(this)),
      m_comparisonBox(new QComboBox(this)),
      m_note(new QLabel(this)),
      m_metrics(new MetricsFollower(1000, feeds, this)),
      m_comparisonMetrics(new MetricsFollower(1000, feeds, this)),
      m_candidateReads(this, &AlignmentView::listCandidates, [this](QList<AlignmentRunInfo> runs) {
        if (showCandidates(std::move(runs))) refresh();
      }) {
  setObjectName(QStringLiteral("AlignmentView"));
  m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_title->setWordWrap(true);  // never wider than the window
  m_title->setToolTip(QDir::toNativeSeparators(runFolder()));
  m_sourceBox->addItem(tr("Training"), static_cast<int>(CosineSource::Training));
  m_sourceBox->addItem(tr("Validation"), static_cast<int>(CosineSource::Validation));
  m_sourceBox->setToolTip(
      tr("The cosines of the training records (align_cos_<l>, every logged step) or of the "
         "evaluations (val_align_cos_<l>)"));
  connect(m_sourceBox, &QComboBox::currentIndexChanged, this, &AlignmentView::refresh);
  m_comparisonBox->setToolTip(
      tr("A second repr_align run, drawn dashed in the same layer colours (λ = 0 against "
         "λ = 10, say)"));
  // Long run names are elided in the box, not allowed to widen the window.
  m_comparisonBox->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  m_comparisonBox->setMinimumContentsLength(24);
  connect(m_comparisonBox, &QComboBox::activated, this, &AlignmentView::comparisonActivated);
  m_note->setWordWrap(true);
  m_note->setForegroundRole(QPalette::PlaceholderText);
  m_note->hide();

  auto* exportButton = new QToolButton(this);
  exportButton->setText(tr("Export"));
  exportButton->setPopupMode(QToolButton::InstantPopup);
  auto* top = new QHBoxLayout;
  top->addWidget(m_title, 1);
  top->addWidget(new QLabel(tr("Cosines:"), this));
  top->addWidget(m_sourceBox);
  top->addSpacing(12);
  top->addWidget(new QLabel(tr("Compare with:"), this));
  top->addWidget(m_comparisonBox);
  top->addSpacing(12);
  top->addWidget(exportButton);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(top);
  layout->addWidget(m_note);
  layout->addWidget(buildPlots(), 1);
  buildExportMenu(exportButton);

  m_metrics->follow(runFolder());
  connect(m_metrics, &MetricsFollower::due, this, &AlignmentView::poll);
  pollRun(*m_run, *m_metrics);
  showCandidates(listCandidates(runsRoot()));
  refresh();
}

AlignmentView::~AlignmentView() = default;

QWidget* AlignmentView::buildPlots() {
  m_curvesPlot = makeLayerCurvesPlot(this);
  m_heatmapPlot = makeCosineMapPlot(this, m_cosineMap);
  m_lossPlot = makeLossComparisonPlot(this);
  auto* lower = new QSplitter(Qt::Horizontal, this);
  lower->addWidget(m_heatmapPlot);
  lower->addWidget(m_lossPlot);
  // Halves: the loss plot's legend takes a column per run, and its axes keep their height.
  lower->setStretchFactor(0, 1);
  lower->setStretchFactor(1, 1);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(m_curvesPlot);
  split->addWidget(lower);
  // The lower row the larger: the loss plot's title, legend and axes share its height (the
  // curves' legend is beside them).
  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 3);
  return split;
}

void AlignmentView::buildExportMenu(QToolButton* button) {
  const QString name = m_run->info().name;
  auto* menu = new QMenu(button);
  addPlotExportActions(menu->addMenu(tr("Layer Curves")), m_curvesPlot,
                       name + QStringLiteral("-alignment-curves"));
  addPlotExportActions(menu->addMenu(tr("Cosine Heatmap")), m_heatmapPlot,
                       name + QStringLiteral("-alignment-heatmap"));
  addPlotExportActions(menu->addMenu(tr("Loss Comparison")), m_lossPlot,
                       name + QStringLiteral("-alignment-losses"));
  menu->addSeparator();
  menu->addAction(tr("Save Per-Layer Table as CSV…"), this, [this, name] {
    askToSave(this, tr("Save Per-Layer Table as CSV"), tr("CSV files (*.csv)"),
              name + QStringLiteral("-alignment.csv"), QStringLiteral("csv"),
              [this](const QString& file) { saveCsv(file); });
  });
  button->setMenu(menu);
}

void AlignmentView::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  poll();  // a tab shown again catches up at once
  m_metrics->start();
}

void AlignmentView::hideEvent(QHideEvent* event) {
  m_metrics->stop();  // a tab in the background reads no files
  QWidget::hideEvent(event);
}

void AlignmentView::setPollInterval(int ms) { m_metrics->setInterval(ms); }

CosineSource AlignmentView::requestedSource() const {
  return static_cast<CosineSource>(m_sourceBox->currentData().toInt());
}

void AlignmentView::setRequestedSource(CosineSource source) {
  m_sourceBox->setCurrentIndex(m_sourceBox->findData(static_cast<int>(source)));
}

QCPGraph* AlignmentView::curve(int layer) const {
  return !m_curves.isEmpty() && layer >= 0 && layer < m_curves[0].size() ? m_curves[0][layer]
                                                                         : nullptr;
}

QCPGraph* AlignmentView::comparisonCurve(int layer) const {
  return m_curves.size() > 1 && layer >= 0 && layer < m_curves[1].size() ? m_curves[1][layer]
                                                                         : nullptr;
}

void AlignmentView::poll() {
  bool changed = pollRun(*m_run, *m_metrics);
  if (m_comparison && pollRun(*m_comparison, *m_comparisonMetrics)) changed = true;
  m_candidateReads.request(runsRoot());  // shows what it finds when the worker is done
  if (changed) refresh();
}

bool AlignmentView::pollRun(AlignmentRun& run, MetricsFollower& metrics) {
  const QString& folder = run.info().folder;
  const MetricsUpdate update = metrics.read();
  if (update.error.isEmpty()) {
    m_errors.remove(folder);
    return run.absorb(update);
  }
  // Reported once: the timer retries every second, and the dialog must not pile up.
  if (m_errors.value(folder) != update.error)
    reportError(tr("Cannot read the metrics of “%1”.").arg(run.info().name), update.error, folder);
  m_errors.insert(folder, update.error);
  return false;
}

void AlignmentView::setComparison(std::unique_ptr<AlignmentRun> run) {
  m_comparison = std::move(run);
  m_comparisonMetrics->follow(m_comparison ? m_comparison->info().folder : QString());
  if (m_comparison) pollRun(*m_comparison, *m_comparisonMetrics);
}

QString AlignmentView::runsRoot() const { return QFileInfo(runFolder()).absolutePath(); }

QList<AlignmentRunInfo> AlignmentView::listCandidates(const QString& runsRoot) {
  try {
    return alignmentRunsIn(runsRoot);
  } catch (const std::exception&) {
    return {};  // listRuns skips what it cannot read; a runs folder gone away offers nothing
  }
}

bool AlignmentView::showCandidates(QList<AlignmentRunInfo> runs) {
  runs.removeIf([this](const AlignmentRunInfo& info) { return info.folder == runFolder(); });
  if (m_comparison && std::none_of(runs.begin(), runs.end(), [this](const AlignmentRunInfo& i) {
        return i.folder == m_comparison->info().folder;
      }))
    runs << m_comparison->info();  // a folder chosen outside the runs folder

  QStringList items;
  for (const AlignmentRunInfo& info : runs) items << info.folder + QLatin1Char('\n') + info.label();
  if (items != m_candidates) {
    m_candidates = items;
    const QSignalBlocker blocker(m_comparisonBox);
    m_comparisonBox->clear();
    m_comparisonBox->addItem(tr("None"), QString());
    for (const AlignmentRunInfo& info : runs) {
      m_comparisonBox->addItem(info.label(), info.folder);
      m_comparisonBox->setItemData(m_comparisonBox->count() - 1,
                                   QDir::toNativeSeparators(info.folder), Qt::ToolTipRole);
    }
    m_comparisonBox->addItem(tr("Other Run Folder…"), kOtherFolder);
  }

  bool picked = false;
  if (!m_comparisonChosen && !m_comparison && !runs.isEmpty()) {
    // Both runs exist: compare at once, with a run of another λ when there is one.
    const auto other = std::find_if(runs.begin(), runs.end(), [this](const AlignmentRunInfo& i) {
      return differentLambda(i, m_run->info());
    });
    setComparison(std::make_unique<AlignmentRun>(other != runs.end() ? *other : runs.first()));
    picked = true;
  }
  selectComparisonItem();
  return picked;
}

void AlignmentView::selectComparisonItem() {
  const QSignalBlocker blocker(m_comparisonBox);
  const int index = m_comparison ? m_comparisonBox->findData(m_comparison->info().folder) : 0;
  m_comparisonBox->setCurrentIndex(std::max(index, 0));
}

void AlignmentView::comparisonActivated(int index) {
  const QString folder = m_comparisonBox->itemData(index).toString();
  if (folder == kOtherFolder)
    chooseComparisonFolder();
  else if (folder.isEmpty())
    clearComparison();
  else
    setComparisonRun(folder);
}

void AlignmentView::chooseComparisonFolder() {
  const QString folder = QFileDialog::getExistingDirectory(
      this, tr("Compare with a repr_align Run"), QFileInfo(runFolder()).absolutePath());
  if (folder.isEmpty() || !setComparisonRun(folder)) selectComparisonItem();
}

bool AlignmentView::setComparisonRun(const QString& folder) {
  AlignmentRunInfo info;
  try {
    info = readAlignmentRun(folder);
    if (info.folder == runFolder())
      throw Error(folder.toStdString() + " is the run shown: choose another run to compare");
  } catch (const std::exception& error) {
    reportError(tr("Cannot compare with “%1”.").arg(QFileInfo(folder).fileName()),
                QString::fromStdString(error.what()), folder);
    selectComparisonItem();
    return false;
  }
  m_comparisonChosen = true;
  setComparison(std::make_unique<AlignmentRun>(std::move(info)));
  showCandidates(listCandidates(runsRoot()));  // lists a folder from outside the runs folder too
  refresh();
  return true;
}

void AlignmentView::clearComparison() {
  m_comparisonChosen = true;
  setComparison(nullptr);
  selectComparisonItem();
  refresh();
}

void AlignmentView::refresh() {
  const AlignmentTable& table = m_run->table();
  // Only like with like: training cosines when every shown run has them, else evaluations'.
  CosineSource shown = requestedSource();
  QStringList missing;
  if (shown == CosineSource::Training) {
    if (!table.hasCosines(CosineSource::Training)) missing << m_run->info().label();
    if (m_comparison && !m_comparison->table().hasCosines(CosineSource::Training))
      missing << m_comparison->info().label();
    if (!missing.isEmpty()) shown = CosineSource::Validation;
  }
  m_shown = shown;
  m_note->setText(missing.isEmpty()
                      ? QString()
                      : tr("No training cosines in %1 (a run with λ = 0 runs no teacher while "
                           "training, and a new run may have logged none yet): showing the "
                           "validation cosines.")
                            .arg(missing.join(tr(" and "))));
  m_note->setVisible(!missing.isEmpty());

  QList<AlignmentCurvesRun> runs{
      {&table, m_run->info().label(), Qt::SolidLine, m_run->info().lambda}};
  QStringList title{tr("Mean cosine(student, teacher) per layer — %1").arg(sourceName(shown))};
  if (m_comparison) {
    runs.append({&m_comparison->table(), m_comparison->info().label(), Qt::DashLine,
                 m_comparison->info().lambda});
    title << tr("solid: %1").arg(m_run->info().label())
          << tr("dashed: %1").arg(m_comparison->info().label());
  }
  m_curves = drawLayerCurves(*m_curvesPlot, runs, shown, title);
  fillCosineMap(*m_cosineMap, table, shown,
                // The run is the tab's (named above); "solid" says which of two compared.
                m_comparison
                    ? QStringList{tr("Mean %1 cosine per layer and step").arg(sourceName(shown)),
                                  tr("(the solid run)")}
                    : QStringList{tr("Mean %1 cosine per layer and step").arg(sourceName(shown))});
  drawLossComparison(*m_lossPlot, runs);
  m_title->setText(tr("<b>%1</b> — %2 hidden states, %3 evaluations")
                       .arg(m_run->info().label().toHtmlEscaped())
                       .arg(std::max(table.layerCount(CosineSource::Training),
                                     table.layerCount(CosineSource::Validation)))
                       .arg(table.steps(CosineSource::Validation).size()));
  emit refreshed();
}

QString AlignmentView::csvText() const { return m_run->table().csv(m_shown); }

void AlignmentView::saveCsv(const QString& file) const { saveTextFile(file, csvText()); }

void AlignmentView::reportError(const QString& summary, const QString& error,
                                const QString& folder) {
  ErrorReport report;
  report.summary = summary;
  report.error = error;
  report.details = tr("Alignment view of %1\nRun folder: %2\nError: %3")
                       .arg(runFolder(), cleanAbsolute(folder), error);
  showErrorDialog(this, report);
}

}  // namespace strata
