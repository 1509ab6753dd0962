#pragma once
// The colour theme: Light and Dark are Qt's Fusion style with a fixed palette; System keeps
// the style and palette the platform gave the application at start-up, which follow the
// desktop's light or dark setting where the platform theme supports it. With Qt 6.5 and later,
// System also follows QStyleHints::colorScheme() (and its changes while running) when the
// platform palette itself does not. GUI thread only; affects the whole application.

#include <QPalette>

#include "preferences_dialog.h"  // ThemeChoice

namespace strata {

void applyTheme(ThemeChoice choice);

/** The theme applied last (System before any call). */
ThemeChoice currentTheme();

/** Fusion's dark palette as Strata uses it. */
QPalette darkPalette();

/** True when `palette`'s window colour is darker than its text (a dark theme). */
bool isDark(const QPalette& palette);

}  // namespace strata
