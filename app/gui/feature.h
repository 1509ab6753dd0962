#pragma once
// Feature: one part of the workbench (app/gui/features/<feature>/) — its menu actions, its tabs,
// its jobs and its state. Each feature registers itself from its own .cpp with a
// FeatureRegistration, and MainWindow makes and installs every registered feature in menu
// order without naming any of them; the frame, tests and main.cpp find one through
// Workbench::feature<F>(), and features reach each other's services only through the
// interfaces of services.h (Workbench::service<S>()). GUI thread only.

#include <QObject>
#include <functional>
#include <vector>

namespace strata {

class Workbench;

class Feature : public QObject {
  Q_OBJECT

 public:
  using QObject::QObject;
  /** Declares the feature's menus and adds its menu actions, by id (Workbench::declareMenu,
   *  addMenuAction), and connects it to `workbench` (which outlives it). */
  virtual void install(Workbench& workbench) = 0;
};

/** A registered feature: its name (its folder's), where its menu entries go among the
 *  others' (lower first), and how the window makes it (a child of `parent`). */
struct FeatureEntry {
  const char* name;
  int menuOrder;
  std::function<Feature*(QObject* parent)> create;
};

/** Adds a feature to every window made after this call (at static initialisation: see
 *  FeatureRegistration). */
void registerFeature(FeatureEntry entry);
/** Every registered feature, by menu order. */
std::vector<FeatureEntry> registeredFeatures();

/**
 * Registers F at start-up; one per feature, at namespace scope in its .cpp:
 *
 *     const FeatureRegistration<CaptureFeature> registration("capture", 30);
 *
 * The menu orders of the built-in features are tens: open 10, default_geometry 20,
 * capture 30, verify 40, geometry 50, training 60, routing 70, alignment 80, studies 90,
 * bridge 100; preferences is last (1000), because its start-up line ends the log's first lines.
 * Each feature library is linked whole (app/gui/CMakeLists.txt), so a registration nothing
 * else refers to is kept.
 */
template <class F>
class FeatureRegistration {
 public:
  FeatureRegistration(const char* name, int menuOrder) {
    registerFeature({name, menuOrder, [](QObject* parent) -> Feature* { return new F(parent); }});
  }
};

}  // namespace strata
