#pragma once
// The workbench's preferences (File ▸ Preferences…): where they live in the settings file, and
// what applying them does. Other parts of the application read them through these functions;
// the plugin loader in particular calls pluginFolders() for the folders to search besides the
// installed one (<prefix>/lib/strata/plugins, core/common/install_paths.h).
//
// Settings keys (guiSettings()): preferences/device, preferences/threads, preferences/theme,
// preferences/pluginFolders, and capture/tokens and geometry/anchors, which are the very keys
// the Capture… and Score Layers… dialogs start from (so a preference and the value a dialog
// remembers are one value). GUI thread only.

#include <QStringList>
#include <string>

#include "preferences_dialog.h"  // PreferenceValues, ThemeChoice

namespace strata {

/** The saved preferences; defaults for whatever was never saved. */
PreferenceValues loadPreferences();

/** Saves `values`; the device is also written as Score Layers…'s device (geometry/device). */
void savePreferences(const PreferenceValues& values);

/** The Preferences' device ("auto", "cpu" or "cuda") that every job the workbench starts
 *  runs on: capture, scoring, training, generation and the sweeps. */
std::string jobDevice();

/** The extra plugin folders the user listed, in order (absolute paths; may not exist). */
QStringList pluginFolders();

/** Applies what takes effect at once: the theme and the CPU thread count. */
void applyPreferences(const PreferenceValues& values);

}  // namespace strata
