#pragma once
// The preferences feature: File ▸ Preferences…, Help ▸ About Strata, and the status bar's
// device line (the device jobs default to under the preferences), which it also writes into
// the log when the window opens.

#include <QObject>

#include "feature.h"

class QAction;
class QLabel;

namespace strata {

class Workbench;

class PreferencesFeature final : public Feature {
  Q_OBJECT

 public:
  using Feature::Feature;
  void install(Workbench& workbench) override;

  /** File ▸ Preferences… (Ctrl+,). */
  QAction* preferencesAction() const { return m_preferencesAction; }
  /** Help ▸ About Strata (opens an AboutDialog child of the window). */
  QAction* aboutAction() const { return m_aboutAction; }
  /** Opens the (non-modal) Preferences dialog; OK applies them and, in persistSettings
   *  windows, saves them. */
  void showPreferences();
  /** Opens the (non-modal) About dialog. */
  void showAbout();

 private:
  QString deviceLine() const;

  Workbench* m_workbench = nullptr;
  QAction* m_preferencesAction = nullptr;
  QAction* m_aboutAction = nullptr;
  QLabel* m_deviceLabel = nullptr;
};

}  // namespace strata
