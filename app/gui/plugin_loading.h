#pragma once
// The workbench's side of plugins: they are loaded once at start-up (core's installedPlugins)
// and what happened is written to the log dock — each plugin loaded with its metrics and
// recipes, each one skipped with its file and reason. A failing plugin never stops the window.

namespace strata {

class LogDock;

/** Loads the plugins (first call in the process) and reports them in `log`. GUI thread. */
void loadPluginsIntoLog(LogDock& log);

}  // namespace strata
