#include "plugin_loading.h"

#include <QString>
#include <QStringList>

#include "common/job.h"
#include "log_dock.h"
#include "plugin/plugin_loader.h"

namespace strata {

void loadPluginsIntoLog(LogDock& log) {
  const plugin::PluginSet& set = plugin::installedPlugins();
  for (const plugin::LoadedPlugin& p : set.plugins) {
    QStringList offers;
    for (const auto& m : p.metrics)
      offers << QStringLiteral("metric %1").arg(QString::fromStdString(m.info.name));
    for (const auto& r : p.recipes)
      offers << QStringLiteral("recipe %1 (Training ▸ Start Training…)")
                    .arg(QString::fromStdString(r.name));
    log.append(
        MessageLevel::Info,
        QObject::tr("Plugin %1 %2 loaded from %3: %4")
            .arg(QString::fromStdString(p.name), QString::fromStdString(p.version),
                 QString::fromStdString(p.file.string()), offers.join(QStringLiteral(", "))));
  }
  for (const plugin::PluginFailure& f : set.failures)
    log.append(MessageLevel::Warning,
               QObject::tr("Plugin %1 (%2) skipped: %3")
                   .arg(QString::fromStdString(f.name), QString::fromStdString(f.file.string()),
                        QString::fromStdString(f.reason)));
}

}  // namespace strata
