#include "bridge_view.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include "bridge_metrics_plot.h"
#include "clean_path.h"
#include "common/error.h"
#include "display_text.h"
#include "engine/run_folder.h"
#include "metrics_follower.h"
#include "setting_field.h"

namespace strata {
namespace {

QLineEdit* makePathEdit(QWidget* parent, const char* name, const QString& tip) {
  auto* edit = new QLineEdit(parent);
  edit->setObjectName(QLatin1String(name));
  edit->setToolTip(tip);
  return edit;
}

}  // namespace

BridgeView::BridgeView(MetricsFeeds* feeds, QWidget* parent)
    : QWidget(parent),
      m_model(makePathEdit(this, "model", tr("The source model: a Hugging Face folder"))),
      m_corpus(makePathEdit(this, "corpus",
                            tr("The text the bridge learns from: a file, a folder of .txt "
                               "files, or a .jsonl file"))),
      m_store(makePathEdit(this, "store",
                           tr("An activation store of the same model: its scores suggest l*, "
                              "and its layer l* gives the normalisation statistics"))),
      m_layer(new QSpinBox(this)),
      m_useSuggested(new QToolButton(this)),
      m_layerSource(new QLabel(this)),
      m_train(new QPushButton(tr("Train Bridge…"), this)),
      m_sweepButton(new QPushButton(tr("Sweep…"), this)),
      m_generate(new QPushButton(tr("Generate…"), this)),
      m_showInTraining(new QPushButton(tr("Show in Training Tab"), this)),
      m_runLabel(new QLabel(tr("No bridge run followed: train one, or open a run folder."), this)),
      m_plot(new BridgeMetricsPlot(this)),
      m_metrics(new MetricsFollower(500, feeds, this)) {
  setObjectName(QStringLiteral("BridgeView"));
  m_layer->setObjectName(QStringLiteral("layer"));
  m_layer->setRange(0, 9999);
  m_layer->setToolTip(tr("l*: the bridge rebuilds h_{l*} and replaces layers 1..l*"));
  m_useSuggested->setText(tr("Use the score's l*"));
  m_useSuggested->setToolTip(tr("Set the layer back to the one the score suggests"));
  m_layerSource->setObjectName(QStringLiteral("layerSource"));
  m_layerSource->setWordWrap(true);
  m_layerSource->setForegroundRole(QPalette::PlaceholderText);
  connect(m_layer, &QSpinBox::valueChanged, this, [this] {
    if (!m_settingLayer) m_layerByHand = m_layer->value() != m_suggested;
    updateLayerSource();
  });
  connect(m_useSuggested, &QToolButton::clicked, this, [this] {
    m_layerByHand = false;
    setSuggestedLayer(m_suggested, m_suggestionSource);
  });

  // A store typed or browsed is suggested from once the typing stops, not per keystroke.
  auto* storeSettled = new QTimer(this);
  storeSettled->setSingleShot(true);
  storeSettled->setInterval(400);
  connect(m_store, &QLineEdit::textEdited, storeSettled, qOverload<>(&QTimer::start));
  connect(storeSettled, &QTimer::timeout, this, [this] {
    m_layerByHand = false;  // a layer chosen for another store says nothing about this one
    emit storeChanged(store());
  });

  m_train->setToolTip(
      tr("Open the training launcher on recipe “bridge” with this form's model, "
         "corpus, store and layer"));
  m_sweepButton->setToolTip(
      tr("Train an equal-budget bridge at every layer of a range and correlate the score with "
         "their validation losses"));
  m_generate->setToolTip(tr("Compare the original model's and the hybrid's continuations"));
  m_showInTraining->setToolTip(
      tr("Show the followed run's loss curves and log in the Training tab"));
  connect(m_train, &QPushButton::clicked, this, &BridgeView::trainRequested);
  connect(m_sweepButton, &QPushButton::clicked, this, &BridgeView::sweepRequested);
  connect(m_generate, &QPushButton::clicked, this, [this] { emit generateRequested(m_run); });
  connect(m_showInTraining, &QPushButton::clicked, this,
          [this] { emit showInTrainingRequested(m_run); });
  auto* openRunButton = new QPushButton(tr("Open Run…"), this);
  openRunButton->setToolTip(tr("Follow a bridge run kept anywhere (its folder holds run.json)"));
  connect(openRunButton, &QPushButton::clicked, this, &BridgeView::openRun);

  auto* form = new QFormLayout;
  form->addRow(tr("Model folder:"), makePathRow(m_model, this));
  form->addRow(tr("Corpus:"), makePathRow(m_corpus, this));
  form->addRow(tr("Store (scores):"), makePathRow(m_store, this));
  auto* layerRow = new QHBoxLayout;
  layerRow->addWidget(m_layer);
  layerRow->addWidget(m_useSuggested);
  layerRow->addWidget(m_layerSource, 1);
  form->addRow(tr("l*:"), layerRow);
  auto* buttons = new QHBoxLayout;
  for (QPushButton* button : {m_train, m_sweepButton, m_generate}) buttons->addWidget(button);
  buttons->addStretch(1);
  auto* setup = new QGroupBox(tr("Bridge"), this);
  auto* setupLayout = new QVBoxLayout(setup);
  setupLayout->addLayout(form);
  setupLayout->addLayout(buttons);

  m_runLabel->setObjectName(QStringLiteral("runLabel"));
  m_runLabel->setWordWrap(true);
  m_runLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* runRow = new QHBoxLayout;
  runRow->addWidget(m_runLabel, 1);
  runRow->addWidget(openRunButton);
  runRow->addWidget(m_showInTraining);
  runRow->addWidget(m_plot->exportButton());

  auto* layout = new QVBoxLayout(this);
  layout->addWidget(setup);
  layout->addLayout(runRow);
  layout->addWidget(m_plot, 1);

  connect(m_metrics, &MetricsFollower::due, this, &BridgeView::pollRun);
  updateLayerSource();
  updateButtons();
}

BridgeView::~BridgeView() = default;

void BridgeView::setRefreshInterval(int ms) { m_metrics->setInterval(ms); }

QString BridgeView::modelFolder() const { return m_model->text().trimmed(); }
void BridgeView::setModelFolder(const QString& folder) { m_model->setText(folder); }
QString BridgeView::corpus() const { return m_corpus->text().trimmed(); }
void BridgeView::setCorpus(const QString& corpus) { m_corpus->setText(corpus); }
QString BridgeView::store() const { return m_store->text().trimmed(); }
void BridgeView::setStore(const QString& store) { m_store->setText(store); }
qint64 BridgeView::layer() const { return m_layer->value(); }

void BridgeView::setSuggestedLayer(qint64 layer, const QString& source) {
  m_suggested = layer;
  m_suggestionSource = source;
  if (layer >= 0 && !m_layerByHand) {
    m_settingLayer = true;
    m_layer->setValue(static_cast<int>(layer));
    m_settingLayer = false;
  }
  updateLayerSource();
}

void BridgeView::updateLayerSource() {
  QString text;
  if (m_suggested < 0)
    text = m_suggestionSource.isEmpty() ? tr("No scored store: choose the layer.")
                                        : m_suggestionSource;
  else if (m_layerByHand && m_layer->value() != m_suggested)
    text = tr("Chosen by hand; the score of %1 suggests l* = %2.")
               .arg(m_suggestionSource)
               .arg(m_suggested);
  else
    text = tr("l* from the score of %1.").arg(m_suggestionSource);
  m_layerSource->setText(text);
  m_useSuggested->setVisible(m_suggested >= 0 && m_layer->value() != m_suggested);
}

void BridgeView::showRun(const QString& run) {
  m_sweep.clear();
  const QString clean = run.isEmpty() ? QString() : cleanAbsolute(run);
  if (clean == m_run && !m_metrics->runFolder().isEmpty()) return;
  m_run = clean;
  m_metrics->follow(clean);
  m_plot->clear();
  pollRun();
  updateButtons();
}

void BridgeView::followSweep(const QString& folder) {
  showRun({});
  m_sweep = cleanAbsolute(folder);
  m_runLabel->setText(tr("Sweep in %1: waiting for its first bridge").arg(m_sweep));
  if (isVisible()) m_metrics->start();
}

void BridgeView::pollRun() {
  if (!m_sweep.isEmpty()) {
    // The sweep (a study) trains one runs/layer-<l>-s<seed> at a time: follow whichever runs now.
    for (const engine::RunInfo& info : engine::listRuns(toFsPath(m_sweep) / "runs"))
      if (info.status.state == engine::RunState::Running && toQString(info.folder) != m_run) {
        const QString sweep = m_sweep;
        showRun(toQString(info.folder));
        m_sweep = sweep;
        return;
      }
  }
  if (m_metrics->runFolder().isEmpty()) return;
  const MetricsUpdate update = m_metrics->read();
  if (update.restarted)  // a resume truncated the log: what was plotted is gone
    m_plot->setRecords(update.records);
  else if (update.error.isEmpty())
    m_plot->appendRecords(update.records);
  const QString& problem = update.error;
  const engine::RunStatus status = engine::readRunStatus(toFsPath(m_run));
  QString text = tr("%1 — %2, step %3 of %4")
                     .arg(QDir::toNativeSeparators(m_run),
                          QString::fromLatin1(engine::runStateName(status.state)))
                     .arg(status.step)
                     .arg(status.totalSteps);
  if (!m_sweep.isEmpty()) text = tr("Sweep: ") + text;
  if (!status.error.empty()) text += QStringLiteral(": ") + QString::fromStdString(status.error);
  if (!problem.isEmpty()) text += QStringLiteral("\n") + problem;
  m_runLabel->setText(text);
}

void BridgeView::updateButtons() { m_showInTraining->setEnabled(!m_run.isEmpty()); }

void BridgeView::openRun() {
  const QString folder = QFileDialog::getExistingDirectory(this, tr("Open Bridge Run"), m_run);
  if (folder.isEmpty()) return;
  if (!engine::isRunFolder(toFsPath(folder))) {
    m_runLabel->setText(
        tr("%1 is not a run folder (it has no run.json)").arg(QDir::toNativeSeparators(folder)));
    return;
  }
  showRun(folder);
}

void BridgeView::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  pollRun();
  m_metrics->start();
}

void BridgeView::hideEvent(QHideEvent* event) {
  m_metrics->stop();  // a tab in the background reads no files
  QWidget::hideEvent(event);
}

}  // namespace strata
