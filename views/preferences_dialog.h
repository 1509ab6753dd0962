#pragma once
// PreferencesDialog: File ▸ Preferences… — the compute device and CPU threads jobs default to,
// the sampling sizes Capture… and Score Layers… start from, extra folders searched for
// plugins, and the colour theme. It only edits a PreferenceValues; the application loads,
// saves and applies them (app/gui/preferences.h). GUI thread only.

#include <QDialog>
#include <QString>
#include <QStringList>

class QComboBox;
class QListWidget;
class QPushButton;
class QSpinBox;

namespace strata {

enum class ThemeChoice { System, Light, Dark };

struct PreferenceValues {
  QString device = QStringLiteral("auto");  ///< "auto" (CUDA when present), "cpu" or "cuda"
  int threads = 0;            ///< CPU threads for compute; 0: automatic (STRATA_THREADS, else all)
  int captureTokens = 8192;   ///< Capture…'s token budget
  int anchors = 1024;         ///< Score Layers…'s M (anchors and difference directions)
  QStringList pluginFolders;  ///< searched for plugins besides the installed plugin folder
  ThemeChoice theme = ThemeChoice::System;

  bool operator==(const PreferenceValues&) const = default;
};

/** "system", "light", "dark" — the words the settings file stores. */
QString themeName(ThemeChoice theme);
/** The inverse of themeName(); unknown words give System. */
ThemeChoice themeFromName(const QString& name);

class PreferencesDialog final : public QDialog {
  Q_OBJECT

 public:
  explicit PreferencesDialog(QWidget* parent = nullptr);

  PreferenceValues values() const;
  void setValues(const PreferenceValues& values);

  /** Appends `folder` to the plugin folders (what Add… does after its folder dialog). */
  void addPluginFolder(const QString& folder);

  QComboBox* deviceBox() const { return m_device; }
  QSpinBox* threadsBox() const { return m_threads; }
  QSpinBox* tokensBox() const { return m_tokens; }
  QSpinBox* anchorsBox() const { return m_anchors; }
  QComboBox* themeBox() const { return m_theme; }
  QListWidget* pluginFolderList() const { return m_pluginFolders; }
  QPushButton* removePluginFolderButton() const { return m_removeFolder; }

 private:
  QComboBox* m_device;
  QSpinBox* m_threads;
  QSpinBox* m_tokens;
  QSpinBox* m_anchors;
  QComboBox* m_theme;
  QListWidget* m_pluginFolders;
  QPushButton* m_removeFolder;
};

}  // namespace strata
