#include "alignment_run.h"

#include <QDir>
#include <QFileInfo>
#include <cmath>

#include "clean_path.h"
#include "common/error.h"
#include "display_text.h"
#include "engine/run_folder.h"
#include "engine/run_manifest.h"

namespace strata {
namespace {

constexpr const char* kRecipe = "repr_align";

/** run.json's setting "lambda" as recorded (a display label needs no schema); NaN when absent. */
double lambdaOf(const QString& folder) {
  try {
    const std::optional<std::string> lambda =
        engine::readRunManifest(toFsPath(folder)).setting("lambda");
    bool ok = false;
    const double value = lambda ? QString::fromStdString(*lambda).toDouble(&ok) : 0.0;
    return ok ? value : std::nan("");
  } catch (const Error&) {
    return std::nan("");
  }
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
  const QString clean = cleanAbsolute(folder);
  const std::filesystem::path path = toFsPath(clean);
  engine::requireRun(path, kRecipe);
  return infoOf(clean);
}

QList<AlignmentRunInfo> alignmentRunsIn(const QString& root) {
  QList<AlignmentRunInfo> runs;
  for (const engine::RunInfo& run : engine::listRuns(toFsPath(root)))
    if (run.recipe == kRecipe) runs << infoOf(cleanAbsolute(toQString(run.folder)));
  return runs;
}

AlignmentRun::AlignmentRun(AlignmentRunInfo info) : m_info(std::move(info)) {}

bool AlignmentRun::absorb(const MetricsUpdate& update) {
  if (update.restarted) m_table.clear();  // a resume truncated the log: what we had is gone
  m_table.append(update.records);
  return update.restarted || !update.records.empty();
}

}  // namespace strata
