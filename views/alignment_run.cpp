#include "alignment_run.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <cmath>

#include "common/error.h"
#include "display_text.h"
#include "engine/run_folder.h"

namespace strata {
namespace {

constexpr const char* kRecipe = "repr_align";

/** run.json's config "lambda". Core reads a run's config only through its recipe's schema,
 *  which a display label does not need (nor should a view fail on a schema change for it). */
double lambdaOf(const QString& folder) {
  QFile file(folder + QStringLiteral("/run.json"));
  if (!file.open(QIODevice::ReadOnly)) return std::nan("");
  const QJsonValue lambda = QJsonDocument::fromJson(file.readAll())
                                .object()
                                .value(QStringLiteral("config"))
                                .toObject()
                                .value(QStringLiteral("lambda"));
  return lambda.isDouble() ? lambda.toDouble() : std::nan("");
}

AlignmentRunInfo infoOf(const QString& folder) {
  AlignmentRunInfo info;
  info.folder = folder;
  info.name = QFileInfo(folder).fileName();
  info.lambda = lambdaOf(folder);
  return info;
}

}  // namespace

QString AlignmentRunInfo::label() const {
  if (std::isnan(lambda)) return name;
  return QStringLiteral("%1 (λ = %2)").arg(name, QString::number(lambda, 'g', 6));
}

AlignmentRunInfo readAlignmentRun(const QString& folder) {
  const QString clean = QDir::cleanPath(QFileInfo(folder).absoluteFilePath());
  const std::filesystem::path path = toFsPath(clean);
  if (!isRunFolder(path)) throw IoError(path, "is not a run folder (it has no run.json)");
  const std::string recipe = readRunInfo(path).recipe;  // throws FormatError for bad JSON
  if (recipe != kRecipe)
    throw FormatError(path / "run.json",
                      "is a " + (recipe.empty() ? std::string("recipe-less") : recipe) +
                          " run, not a repr_align run");
  return infoOf(clean);
}

QList<AlignmentRunInfo> alignmentRunsIn(const QString& root) {
  QList<AlignmentRunInfo> runs;
  for (const RunInfo& run : listRuns(toFsPath(root)))
    if (run.recipe == kRecipe)
      runs << infoOf(QDir::cleanPath(QFileInfo(toQString(run.folder)).absoluteFilePath()));
  return runs;
}

AlignmentRun::AlignmentRun(AlignmentRunInfo info)
    : m_info(std::move(info)), m_tail(toFsPath(m_info.folder) / "metrics.jsonl") {}

bool AlignmentRun::poll() {
  std::vector<MetricsRecord> records = m_tail.readNew();
  const bool restarted = m_tail.restarted();  // a resume truncated the log: what we had is gone
  if (restarted) m_table.clear();
  m_table.append(records);
  return restarted || !records.empty();
}

}  // namespace strata
