#include "store_summary_view.h"

#include <QFileInfo>
#include <QStringList>
#include <algorithm>

#include "display_text.h"

namespace strata {

QString layerRangesText(std::vector<int64_t> layers) {
  std::sort(layers.begin(), layers.end());
  layers.erase(std::unique(layers.begin(), layers.end()), layers.end());
  QStringList parts;
  for (std::size_t i = 0; i < layers.size();) {
    std::size_t j = i;
    while (j + 1 < layers.size() && layers[j + 1] == layers[j] + 1) ++j;
    parts << (j == i ? QString::number(layers[i])
                     : QStringLiteral("%1–%2").arg(layers[i]).arg(layers[j]));
    i = j + 1;
  }
  return parts.join(QStringLiteral(", "));
}

StoreSummaryView::StoreSummaryView(std::shared_ptr<const io::StoreSummary> summary, QWidget* parent)
    : SummaryForm(parent), m_summary(std::move(summary)) {
  const io::StoreSummary& s = *m_summary;
  const io::StoreMeta& meta = s.meta;
  setTitle(QFileInfo(path()).fileName(), path());

  addSection(tr("Source model"));
  addRow(tr("Model"), QString::fromStdString(meta.modelId));
  addRow(tr("Architecture"), QString::fromStdString(meta.architecture));

  // Layers 0..L are stored, 0 being the embedding output: L + 1 hidden states in all.
  const int64_t stored = meta.numLayers + 1;
  addSection(tr("Contents"));
  addRow(tr("Hidden size"), QString::number(meta.hiddenSize));
  addRow(tr("Layers"), tr("%1 (hidden states 0–%1, 0 = embedding output)").arg(meta.numLayers));
  addRow(tr("Tokens"),
         QStringLiteral("%1 (%2)").arg(countText(s.numTokens), groupedText(s.numTokens)));
  addRow(tr("Dtype"), QLatin1String(io::storeDTypeName(meta.dtype)));
  addRow(tr("Size"),
         bytesText(s.numTokens * meta.hiddenSize * stored *
                   (meta.dtype == io::StoreDType::Float16 ? 2 : 4)),
         tr("Uncompressed size of all layers"));

  addSection(tr("Capture"), 1);
  const auto done = static_cast<int64_t>(s.completedLayers.size());
  QString completed = tr("%1 of %2").arg(done).arg(stored);
  if (done > 0) completed += QStringLiteral(": ") + layerRangesText(s.completedLayers);
  addRow(tr("Completed layers"), completed,
         tr("Layers are written one by one; an interrupted capture keeps every finished layer."));
  addRow(tr("Corpus hash"), QString::fromStdString(meta.corpusHash));
  addRow(tr("Sampling"), QString::fromStdString(meta.samplingPolicy));
  addRow(tr("Created"),
         QString::fromStdString(meta.createdUtc) +
             (meta.strataVersion.empty()
                  ? QString()
                  : tr(" by Strata %1").arg(QString::fromStdString(meta.strataVersion))));
}

QString StoreSummaryView::path() const { return toQString(m_summary->file); }

}  // namespace strata
