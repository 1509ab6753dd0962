#pragma once
// The colour theme: Light and Dark are Qt's Fusion style with a fixed palette; System is the
// platform's style and palette, followed while Strata runs. GUI thread only; affects the whole
// application.
//
// System, by Qt version (docs/desktop.md, "Theme"):
//  - Qt 6.4 (Debian 12) has no colour-scheme hint. System is the platform theme's palette as it
//    is now; dark is detected from it (its window colour darker than its text). When the
//    platform reports a change (QEvent::ThemeChange to the windows, ApplicationPaletteChange
//    to the application) System is applied again, so a platform theme that changes its
//    palette with the desktop (KDE's, qt6ct) is followed at once.
//  - Qt 6.5 and later: also QStyleHints::colorScheme() and colorSchemeChanged. When the scheme
//    says dark but the platform palette is light (no platform theme that follows the desktop),
//    System turns to Fusion with Strata's dark palette.

#include <QPalette>

#include "preferences_dialog.h"  // ThemeChoice

namespace strata {

void applyTheme(ThemeChoice choice);

/** The theme applied last (System before any call). */
ThemeChoice currentTheme();

/**
 * Whether the desktop looks dark as far as this Qt can tell: on Qt ≥ 6.5 the colour scheme
 * when it is known, else (and always on 6.4) isDark() of the platform's palette. Updated by
 * every application of System (at start-up and on each platform theme change).
 */
bool systemLooksDark();

/** Fusion's dark palette as Strata uses it. */
QPalette darkPalette();

/** True when `palette`'s window colour is darker than its text (a dark theme). */
bool isDark(const QPalette& palette);

}  // namespace strata
