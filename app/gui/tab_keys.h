#pragma once
// The keys of the workbench's tabs (Workbench::tab, focusTab, addTab): a model folder or a store
// file is the key of its own summary tab; views of a file or run add "#<view>" to its path;
// the window's single tabs have "strata:" keys. Every feature spells its keys here, so one
// feature can find another's tab (the Bridge tab reads the Layer Geometry tab's l*).

#include <QString>

namespace strata::tabkey {

inline QString geometry(const QString& store) { return store + QStringLiteral("#geometry"); }
inline QString layerDetail(const QString& store, qint64 layer) {
  return store + QStringLiteral("#layer-%1").arg(layer);
}
inline QString sweep(const QString& folder) { return folder + QStringLiteral("#bridgeability"); }
inline QString generate(const QString& run) { return run + QStringLiteral("#generate"); }
inline QString routing(const QString& run) { return run + QStringLiteral("#routing"); }
inline QString alignment(const QString& run) { return run + QStringLiteral("#alignment"); }
inline QString study(const QString& folder) { return folder + QStringLiteral("#study"); }
inline const QString kTraining = QStringLiteral("strata:training");
inline const QString kBridge = QStringLiteral("strata:bridge");

/** The file or folder a key belongs to (the key itself for a summary tab). */
inline QString pathOf(const QString& key) { return key.section(QLatin1Char('#'), 0, 0); }

}  // namespace strata::tabkey
