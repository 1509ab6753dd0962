#include "model_summary_view.h"

#include <QDir>
#include <QFileInfo>
#include <QGroupBox>
#include <QPushButton>
#include <QStringList>
#include <QVBoxLayout>

#include "display_text.h"
#include "engine/memory_plan.h"

namespace strata {
namespace {

QString qs(const std::string& text) { return QString::fromStdString(text); }

QString headsText(const io::ModelConfig& config) {
  QString text = ModelSummaryView::tr("%1 query / %2 key-value")
                     .arg(config.numHeads)
                     .arg(config.numKeyValueHeads);
  if (config.numKeyValueHeads == 1)
    text += ModelSummaryView::tr(" (multi-query)");
  else if (config.numKeyValueHeads > 0 && config.numKeyValueHeads < config.numHeads)
    text += ModelSummaryView::tr(" (grouped-query, %1 per group)")
                .arg(config.numHeads / config.numKeyValueHeads);
  return text;
}

QString dtypesText(const io::ModelSummary& summary) {
  QStringList lines;
  for (const auto& [dtype, count] : summary.parametersByDType) {
    const double share = summary.parameterCount > 0
                             ? 100.0 * static_cast<double>(count) / summary.parameterCount
                             : 0.0;
    lines << QStringLiteral("%1: %2 (%3%)")
                 .arg(qs(dtype), countText(count), QString::number(share, 'f', share < 1 ? 2 : 1));
  }
  return lines.isEmpty() ? ModelSummaryView::tr("no tensors") : lines.join(QLatin1Char('\n'));
}

QString weightFilesText(const io::ModelSummary& summary, QString* all) {
  constexpr int kShown = 6;  // a 30-shard model must not push everything else off screen
  QStringList names;
  for (const auto& file : summary.weightFiles) names << toQString(file.filename());
  *all = names.join(QLatin1Char('\n'));
  QStringList shown = names.mid(0, kShown);
  if (names.size() > kShown)
    shown << ModelSummaryView::tr("… and %1 more").arg(names.size() - kShown);
  QString text = shown.join(QLatin1Char('\n'));
  if (summary.sharded)
    text = (names.size() == 1 ? ModelSummaryView::tr("1 shard")
                              : ModelSummaryView::tr("%1 shards").arg(names.size())) +
           ModelSummaryView::tr(" (model.safetensors.index.json)") + QLatin1Char('\n') + text;
  return text;
}

QString ropeText(const io::ModelConfig& config) {
  if (config.positionEncoding == io::PositionEncoding::LearnedAbsolute)
    return ModelSummaryView::tr("none (learned positions)");
  QString text = QStringLiteral("θ = %1").arg(config.ropeTheta, 0, 'g', 8);
  if (config.rotaryFraction < 1.0)
    text += ModelSummaryView::tr(", %1% of head dim").arg(config.rotaryFraction * 100.0, 0, 'g', 4);
  if (config.ropeScaling)
    text += ModelSummaryView::tr(", scaling %1 ×%2")
                .arg(qs(config.ropeScaling->type))
                .arg(config.ropeScaling->factor, 0, 'g', 6);
  return text;
}

/** The plan of a default capture (4,096 tokens, batch 16 × 128, float32) on this machine now. */
engine::MemoryPlan capturePlan(const io::ModelSummary& s, int computeBytes) {
  engine::MemoryRequest request;
  request.config = s.config;
  request.parameterCount = s.parameterCount;
  request.computeBytes = computeBytes;
  request.batchSequences = 16;
  request.sequenceLength = 128;
  request.sampleTokens = 4096;
  int64_t available = 0;
  try {
    available = engine::availableMemory(false);
  } catch (const std::exception&) {
    available = 0;  // unknown: the plan then says it does not fit, which the tip explains
  }
  return engine::planMemory(request, available);
}

/** The verdict, then the figures, a line each: on one line (about 470 px) the row widened the
 *  summary past the default window's tab and brought a horizontal scrollbar. */
QString memoryText(const engine::MemoryPlan& plan) {
  const QString needs = ModelSummaryView::tr("%1 resident,\n%2 of %3 available")
                            .arg(bytesText(plan.neededResident()), bytesText(plan.needed()),
                                 bytesText(plan.available));
  if (!plan.fits) return ModelSummaryView::tr("does not fit this machine:\n%1").arg(needs);
  return (plan.stream ? ModelSummaryView::tr("streams its layers:\n%1")
                      : ModelSummaryView::tr("fits resident:\n%1"))
      .arg(needs);
}

QString memoryTip(const engine::MemoryPlan& float32, const engine::MemoryPlan& bfloat16) {
  return ModelSummaryView::tr(
             "A capture of 4,096 tokens (batch 16 × 128) on the CPU:\n"
             "float32: %1\nbfloat16: %2")
      .arg(qs(float32.describe()), qs(bfloat16.describe()));
}

}  // namespace

ModelSummaryView::ModelSummaryView(std::shared_ptr<const io::ModelSummary> summary, QWidget* parent)
    : SummaryForm(parent),
      m_summary(std::move(summary)),
      m_scoreLayers(new QPushButton(tr("Score Layers…"))) {
  const io::ModelSummary& s = *m_summary;
  const io::ModelConfig& c = s.config;
  const auto yesNo = [](bool value) { return value ? tr("yes") : tr("no"); };

  setTitle(QFileInfo(QDir::cleanPath(path())).fileName(), path());
  m_scoreLayers->setObjectName(QStringLiteral("scoreLayers"));
  m_scoreLayers->setToolTip(
      tr("Capture this model's hidden states over a corpus and score every layer (Geometry ▸ "
         "Score Layers…); the dialog shows the time and memory it needs first"));
  connect(m_scoreLayers, &QPushButton::clicked, this, &ModelSummaryView::scoreLayersRequested);
  addTitleWidget(m_scoreLayers);

  addSection(tr("Architecture"));
  addRow(tr("Architecture"),
         qs(c.architectureName) +
             (c.modelType.empty() ? QString() : QStringLiteral(" (%1)").arg(qs(c.modelType))));
  addRow(tr("Layers"), QString::number(c.numLayers));
  addRow(tr("Hidden size"), QString::number(c.hiddenSize));
  addRow(tr("Heads"), headsText(c));
  addRow(tr("Head dim"), QString::number(c.headDim));
  addRow(tr("MLP size"), QString::number(c.intermediateSize));
  addRow(tr("Vocabulary"), groupedText(c.vocabSize));
  addRow(tr("Context"), groupedText(c.maxPositions) + tr(" positions"));
  addRow(tr("Positions"), ropeText(c));
  addRow(tr("Activation"), qs(c.hiddenAct));
  addRow(tr("Tied embeddings"), yesNo(c.tieWordEmbeddings));

  addSection(tr("Weights"), 1);
  addRow(tr("Parameters"),
         QStringLiteral("%1 (%2)").arg(countText(s.parameterCount), groupedText(s.parameterCount)));
  addRow(tr("Size on disk"), bytesText(s.weightBytes));
  addRow(
      tr("Dtypes"), dtypesText(s),
      c.torchDtype.empty() ? QString() : tr("config.json torch_dtype: %1").arg(qs(c.torchDtype)));
  QString allFiles;
  const QString files = weightFilesText(s, &allFiles);
  addRow(tr("Weight files"), files, allFiles);
  const engine::MemoryPlan float32 = capturePlan(s, 4);
  addRow(tr("Memory"), memoryText(float32), memoryTip(float32, capturePlan(s, 2)));

  addSection(tr("Tokenizer"), 1);
  addRow(tr("Tokenizer"), qs(s.tokenizerKind));

  if (!s.warnings.empty()) {
    QStringList warnings;
    for (const auto& warning : s.warnings) warnings << qs(warning);
    addSection(tr("Warnings"), 1);
    addRow(tr("Warnings"), warnings.join(QLatin1Char('\n')));
  }
}

void ModelSummaryView::showVerification(
    std::shared_ptr<const verify::TransformersVerification> result) {
  delete m_verificationBox;  // and the view inside it
  auto* box = new QGroupBox(tr("Verified against transformers"));
  auto* layout = new QVBoxLayout(box);
  m_verification = new TransformersVerificationView(std::move(result), box);
  layout->addWidget(m_verification);
  addWideWidget(box);
  m_verificationBox = box;
}

QString ModelSummaryView::path() const { return toQString(m_summary->folder); }

}  // namespace strata
