#include "generate_panel.h"

#include <QDoubleSpinBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTextEdit>
#include <QTimer>
#include <QVBoxLayout>
#include <utility>

#include "common/error.h"
#include "display_text.h"
#include "engine/run_manifest.h"

namespace strata {
namespace {

QString html(const QString& text) { return text.toHtmlEscaped(); }

/** Each prompt grey, its continuation black, prompts a blank line apart. */
QString paneHtml(const QStringList& prompts, const std::vector<std::string>& continuations) {
  QString out = QStringLiteral("<div style=\"white-space: pre-wrap\">");
  for (qsizetype i = 0; i < prompts.size(); ++i) {
    if (i > 0) out += QStringLiteral("<br><br>");
    out += QStringLiteral("<span style=\"color: gray\">") + html(prompts[i]) +
           QStringLiteral("</span>");
    if (static_cast<std::size_t>(i) < continuations.size())
      out += html(QString::fromStdString(continuations[static_cast<std::size_t>(i)]));
  }
  return out + QStringLiteral("</div>");
}

QTextEdit* makePane(QWidget* parent, const char* name) {
  auto* pane = new QTextEdit(parent);
  pane->setObjectName(QLatin1String(name));
  pane->setReadOnly(true);
  pane->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  return pane;
}

}  // namespace

void TokenStream::push(Piece piece) {
  const std::lock_guard lock(m_mutex);
  m_pending.push_back(std::move(piece));
}

std::vector<TokenStream::Piece> TokenStream::take() {
  const std::lock_guard lock(m_mutex);
  return std::exchange(m_pending, {});
}

GeneratePanel::GeneratePanel(const QString& bridgeRun, QWidget* parent)
    : QWidget(parent),
      m_run(bridgeRun),
      m_prompts(new QPlainTextEdit(this)),
      m_maxTokens(new QSpinBox(this)),
      m_temperature(new QDoubleSpinBox(this)),
      m_steps(new QSpinBox(this)),
      m_generate(new QPushButton(tr("Generate"), this)),
      m_stop(new QPushButton(tr("Stop"), this)),
      m_originalTitle(new QLabel(tr("<b>Original</b>"), this)),
      m_hybridTitle(new QLabel(this)),
      m_original(makePane(this, "original")),
      m_hybrid(makePane(this, "hybrid")),
      m_originalStats(new QLabel(this)),
      m_hybridStats(new QLabel(this)),
      m_summary(new QLabel(this)),
      m_drain(new QTimer(this)) {
  setObjectName(QStringLiteral("GeneratePanel"));
  m_prompts->setPlaceholderText(tr("One prompt a line"));
  m_prompts->setMaximumHeight(90);
  m_maxTokens->setRange(1, 4096);
  m_maxTokens->setValue(32);
  m_maxTokens->setToolTip(tr("Tokens generated per prompt at most (fewer at the end of text)"));
  m_temperature->setRange(0, 5);
  m_temperature->setDecimals(2);
  m_temperature->setSingleStep(0.1);
  m_temperature->setToolTip(
      tr("0: greedy; above 0, sampled from softmax(logits / T) — the same "
         "seed for both models"));
  m_steps->setRange(0, 1000);
  m_steps->setSpecialValueText(tr("the run's"));
  m_steps->setToolTip(
      tr("DDIM steps S per hybrid token (0: the run's sample_steps). Each token "
         "costs S denoiser passes: the hybrid's latency grows with S."));
  m_stop->setEnabled(false);
  connect(m_generate, &QPushButton::clicked, this, &GeneratePanel::generateRequested);
  connect(m_stop, &QPushButton::clicked, this, &GeneratePanel::stopRequested);

  auto* header = new QLabel(tr("Bridge run: %1").arg(bridgeRun), this);
  header->setTextInteractionFlags(Qt::TextSelectableByMouse);
  header->setWordWrap(true);
  auto* form = new QFormLayout;
  form->addRow(tr("Prompts:"), m_prompts);
  auto* settings = new QHBoxLayout;
  settings->addWidget(new QLabel(tr("Max new tokens:"), this));
  settings->addWidget(m_maxTokens);
  settings->addWidget(new QLabel(tr("Temperature:"), this));
  settings->addWidget(m_temperature);
  settings->addWidget(new QLabel(tr("DDIM steps:"), this));
  settings->addWidget(m_steps);
  settings->addStretch(1);
  settings->addWidget(m_generate);
  settings->addWidget(m_stop);

  const auto column = [this](QLabel* title, QTextEdit* pane, QLabel* stats) {
    auto* widget = new QWidget(this);
    auto* layout = new QVBoxLayout(widget);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(title);
    layout->addWidget(pane, 1);
    layout->addWidget(stats);
    stats->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return widget;
  };
  auto* panes = new QSplitter(Qt::Horizontal, this);
  panes->addWidget(column(m_originalTitle, m_original, m_originalStats));
  panes->addWidget(column(m_hybridTitle, m_hybrid, m_hybridStats));
  m_summary->setObjectName(QStringLiteral("summary"));
  m_summary->setWordWrap(true);
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);

  auto* layout = new QVBoxLayout(this);
  layout->addWidget(header);
  layout->addLayout(form);
  layout->addLayout(settings);
  layout->addWidget(panes, 1);
  layout->addWidget(m_summary);

  m_drain->setInterval(50);
  connect(m_drain, &QTimer::timeout, this, &GeneratePanel::drain);
  setLayer(layerOfRun(bridgeRun));
}

GeneratePanel::~GeneratePanel() = default;

void GeneratePanel::setLayer(qint64 layer) {
  m_hybridTitle->setText(layer >= 0 ? tr("<b>Hybrid</b> (bridge at l* = %1)").arg(layer)
                                    : tr("<b>Hybrid</b> (bridge)"));
}

qint64 GeneratePanel::layerOfRun(const QString& bridgeRun) {
  // The description holds the layer the recipe resolved (config.layer may be -1 = "from store").
  try {
    const engine::RunManifest run = engine::readRunManifest(toFsPath(bridgeRun));
    const auto layer = run.description.find("layer");
    bool ok = false;
    const qint64 value =
        layer == run.description.end() ? -1 : QString::fromStdString(layer->second).toLongLong(&ok);
    return ok ? value : -1;
  } catch (const Error&) {
    return -1;
  }
}

recipes::HybridComparisonConfig GeneratePanel::config() const {
  recipes::HybridComparisonConfig config;
  config.bridgeRun = toFsPath(m_run);
  for (const QString& line : m_prompts->toPlainText().split(QLatin1Char('\n')))
    if (!line.trimmed().isEmpty()) config.prompts.push_back(line.toStdString());
  if (config.prompts.empty()) throw Error("write at least one prompt (one a line)");
  config.sampling.maxNewTokens = m_maxTokens->value();
  config.sampling.temperature = m_temperature->value();
  config.sampleSteps = m_steps->value();
  return config;
}

std::shared_ptr<TokenStream> GeneratePanel::beginGeneration() {
  m_shownPrompts.clear();
  for (const std::string& prompt : config().prompts)
    m_shownPrompts << QString::fromStdString(prompt);
  m_originalTexts.assign(static_cast<std::size_t>(m_shownPrompts.size()), {});
  m_hybridTexts.assign(static_cast<std::size_t>(m_shownPrompts.size()), {});
  for (QLabel* label : {m_originalStats, m_hybridStats}) label->clear();
  m_summary->setText(tr("Generating…"));
  m_stream = std::make_shared<TokenStream>();
  m_streamedTokens = 0;
  m_generate->setEnabled(false);
  m_stop->setEnabled(true);
  render();
  m_drain->start();
  return m_stream;
}

void GeneratePanel::drain() {
  if (!m_stream) return;
  const std::vector<TokenStream::Piece> pieces = m_stream->take();
  if (pieces.empty()) return;
  m_streamedTokens += static_cast<int>(pieces.size());
  for (const TokenStream::Piece& piece : pieces) {
    auto& texts = piece.side == recipes::GenerationSide::Original ? m_originalTexts : m_hybridTexts;
    if (piece.prompt < texts.size()) texts[piece.prompt] += piece.text;
  }
  render();
}

void GeneratePanel::render() {
  m_original->setHtml(paneHtml(m_shownPrompts, m_originalTexts));
  m_hybrid->setHtml(paneHtml(m_shownPrompts, m_hybridTexts));
}

void GeneratePanel::finishGeneration(std::shared_ptr<const recipes::HybridComparison> result) {
  drain();
  m_drain->stop();
  m_stream.reset();
  // The whole continuation decoded at once: a byte-level token split across UTF-8 characters
  // shows right only here.
  for (std::size_t i = 0; i < result->prompts.size() && i < m_originalTexts.size(); ++i) {
    m_originalTexts[i] = result->prompts[i].original.text;
    m_hybridTexts[i] = result->prompts[i].hybrid.text;
  }
  render();
  setLayer(result->layer);
  m_originalStats->setText(
      sideText(result->originalGenPpl, result->originalDiversity, result->originalMsPerToken));
  m_hybridStats->setText(
      sideText(result->hybridGenPpl, result->hybridDiversity, result->hybridMsPerToken) +
      tr(" · S = %1 DDIM steps").arg(result->sampleSteps));
  m_summary->setText(summaryText(*result));
  m_generate->setEnabled(true);
  m_stop->setEnabled(false);
}

void GeneratePanel::abortGeneration(const QString& why) {
  drain();
  m_drain->stop();
  m_stream.reset();
  m_summary->setText(why);
  m_generate->setEnabled(true);
  m_stop->setEnabled(false);
}

QString GeneratePanel::sideText(double genPpl, double diversity, double msPerToken) {
  return tr("Gen.PPL %1 · diversity %2 · %3 ms/token")
      .arg(QString::number(genPpl, 'g', 3), QString::number(diversity, 'g', 2),
           QString::number(msPerToken, 'g', 3));
}

QString GeneratePanel::summaryText(const recipes::HybridComparison& result) {
  if (result.slowdown() <= 0)
    return tr("Hybrid: %1 ms/token (the original model did not generate).")
        .arg(QString::number(result.hybridMsPerToken, 'g', 3));
  const double ratio = result.slowdown();
  const QString speed = ratio >= 1 ? tr("%1× slower").arg(QString::number(ratio, 'f', 1))
                                   : tr("%1× faster").arg(QString::number(1 / ratio, 'f', 1));
  return tr("The hybrid is %1 than the original (%2 vs %3 ms/token; Gen.PPL judged by the "
            "original model).")
      .arg(speed, QString::number(result.hybridMsPerToken, 'g', 3),
           QString::number(result.originalMsPerToken, 'g', 3));
}

}  // namespace strata
