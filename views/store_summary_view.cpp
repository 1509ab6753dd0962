#include "store_summary_view.h"

#include <QFileInfo>
#include <QStringList>
#include <algorithm>

#include "common/human_format.h"
#include "display_text.h"

namespace strata {

namespace {

/** `line` broken at spaces into pieces of at most `width` characters (a longer word stays
 *  whole), the pieces after the first indented: a form label of several lines cannot wrap. */
QStringList wrapped(const QString& line, int width) {
  QStringList pieces;
  QString piece;
  for (const QString& word : line.split(QLatin1Char(' '))) {
    const bool started = !piece.trimmed().isEmpty();
    if (started && piece.size() + 1 + word.size() > width) {
      pieces << piece;
      piece = QStringLiteral("    ");
    } else if (started) {
      piece += QLatin1Char(' ');
    }
    piece += word;
  }
  pieces << piece;
  return pieces;
}

}  // namespace

QString samplingText(const std::string& policy) {
  const auto fields = io::samplingPolicyFields(policy);
  if (fields.empty()) return QString::fromStdString(policy);  // free text: as it is
  QStringList lines;
  for (const auto& [key, value] : fields)
    lines << wrapped(
        QString::fromStdString(key) + QStringLiteral(": ") + QString::fromStdString(value), 80);
  return lines.join(QLatin1Char('\n'));
}

StoreSummaryView::StoreSummaryView(std::shared_ptr<const io::StoreSummary> summary, QWidget* parent)
    : SummaryForm(parent), m_summary(std::move(summary)) {
  const io::StoreSummary& s = *m_summary;
  const io::StoreMeta& meta = s.meta;
  setTitle(QFileInfo(path()).fileName(), path());

  // One column: a model path, the corpus hash and the sampling lines are too long to share
  // the width of a 1100 px window with another column without scrolling sideways.
  addWideSection(tr("Source model"));
  addRow(tr("Model"), QString::fromStdString(meta.modelId));
  addRow(tr("Architecture"), QString::fromStdString(meta.architecture));

  // Layers 0..L are stored, 0 being the embedding output: L + 1 hidden states in all.
  const int64_t stored = meta.numLayers + 1;
  addWideSection(tr("Contents"));
  addRow(tr("Hidden size"), QString::number(meta.hiddenSize));
  addRow(tr("Layers"), tr("%1 (hidden states 0–%1, 0 = embedding output)").arg(meta.numLayers));
  addRow(tr("Tokens"),
         QStringLiteral("%1 (%2)").arg(countText(s.numTokens), groupedText(s.numTokens)));
  addRow(tr("Dtype"), QLatin1String(io::storeDTypeName(meta.dtype)));
  addRow(tr("Size"),
         bytesText(s.numTokens * meta.hiddenSize * stored *
                   (meta.dtype == io::StoreDType::Float16 ? 2 : 4)),
         tr("Uncompressed size of all layers"));

  addWideSection(tr("Capture"));
  const auto done = static_cast<int64_t>(s.completedLayers.size());
  QString completed = tr("%1 of %2").arg(done).arg(stored);
  if (done > 0)
    completed +=
        QStringLiteral(": ") + QString::fromStdString(formatLayerRanges(s.completedLayers));
  addRow(tr("Completed layers"), completed,
         tr("Layers are written one by one; an interrupted capture keeps every finished layer."));
  addRow(tr("Corpus hash"), QString::fromStdString(meta.corpusHash));
  addRow(tr("Created"),
         QString::fromStdString(meta.createdUtc) +
             (meta.strataVersion.empty()
                  ? QString()
                  : tr(" by Strata %1").arg(QString::fromStdString(meta.strataVersion))));
  addRow(tr("Sampling"), samplingText(meta.samplingPolicy),
         tr("How the capture sampled the corpus (the store's /meta sampling_policy)"));
}

QString StoreSummaryView::path() const { return toQString(m_summary->file); }

}  // namespace strata
