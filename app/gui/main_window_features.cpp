// MainWindow: installing the features (in menu order) and the Workbench services and public
// methods it forwards to them. Nothing here decides anything: each call lands in one feature.

#include "features/alignment/alignment_feature.h"
#include "features/bridge/bridge_feature.h"
#include "features/capture/capture_feature.h"
#include "features/geometry/default_geometry_feature.h"
#include "features/geometry/geometry_feature.h"
#include "features/open/open_feature.h"
#include "features/preferences/preferences_feature.h"
#include "features/routing/routing_feature.h"
#include "features/studies/studies_feature.h"
#include "features/training/training_feature.h"
#include "features/verify/verify_feature.h"
#include "main_window.h"

namespace strata {

void MainWindow::installFeatures() {
  // The order is the order of the menu entries each adds (File ▸ Open…, Model, Training).
  m_open = new OpenFeature(this);
  m_open->install(*this);
  m_defaultGeometry = new DefaultGeometryFeature(this);
  m_defaultGeometry->install(*this);
  m_capture = new CaptureFeature(this);
  m_capture->install(*this);
  m_verify = new VerifyFeature(this);
  m_verify->install(*this);
  m_geometry = new GeometryFeature(this);
  m_geometry->install(*this);
  m_training = new TrainingFeature(this);
  m_training->install(*this);
  m_routing = new RoutingFeature(this);
  m_routing->install(*this);
  m_alignment = new AlignmentFeature(this);
  m_alignment->install(*this);
  m_studies = new StudiesFeature(this);
  m_studies->install(*this);
  m_bridge = new BridgeFeature(this);
  m_bridge->install(*this);
  m_preferences = new PreferencesFeature(this);  // last: its start-up line ends the log's first
  m_preferences->install(*this);                 // lines (after the plugins)

  // The window's own signals, for main.cpp and the tests.
  connect(m_events, &WorkbenchEvents::pathOpened, this,
          [this](const QString& path) { m_recent.add(path); });
  connect(m_events, &WorkbenchEvents::pathOpened, this, &MainWindow::pathOpened);
  connect(m_events, &WorkbenchEvents::geometryShown, this, &MainWindow::geometryShown);
  connect(m_events, &WorkbenchEvents::trainingStarted, this, &MainWindow::trainingStarted);
  connect(m_open, &OpenFeature::openFailed, this, &MainWindow::openFailed);
  connect(m_defaultGeometry, &DefaultGeometryFeature::defaultGeometryFinished, this,
          &MainWindow::defaultGeometryFinished);
  connect(m_capture, &CaptureFeature::captureFinished, this, &MainWindow::captureFinished);
  connect(m_verify, &VerifyFeature::verificationFinished, this, &MainWindow::verificationFinished);
  connect(m_geometry, &GeometryFeature::geometryFinished, this, &MainWindow::geometryFinished);
  connect(m_geometry, &GeometryFeature::layerDetailShown, this, &MainWindow::layerDetailShown);
  connect(m_training, &TrainingFeature::trainingFinished, this, &MainWindow::trainingFinished);
  connect(m_bridge, &BridgeFeature::bridgeLayerSuggested, this, &MainWindow::bridgeLayerSuggested);
  connect(m_bridge, &BridgeFeature::bridgeSweepFinished, this, &MainWindow::bridgeSweepFinished);
  connect(m_bridge, &BridgeFeature::generationFinished, this, &MainWindow::generationFinished);
}

// Workbench services.
void MainWindow::openPath(const QString& path) { m_open->openPath(path); }
void MainWindow::openModelFolder(const QString& folder) { m_open->openModelFolder(folder); }
void MainWindow::openActivationStore(const QString& file) { m_open->openActivationStore(file); }
void MainWindow::showTrainingRun(const QString& run) { m_training->showRun(run); }
QString MainWindow::shownTrainingRun() const { return m_training->shownRun(); }
void MainWindow::openTrainingLauncher(const QString& recipe, const QMap<QString, QString>& values) {
  m_training->openTrainingLauncher(recipe, values);
}

// Forwarders.
QAction* MainWindow::preferencesAction() const { return m_preferences->preferencesAction(); }
QAction* MainWindow::aboutAction() const { return m_preferences->aboutAction(); }
QAction* MainWindow::openDefaultModelAction() const {
  return m_defaultGeometry->openDefaultModelAction();
}
QAction* MainWindow::captureAction() const { return m_capture->captureAction(); }
QAction* MainWindow::verifyAction() const { return m_verify->verifyAction(); }
QAction* MainWindow::scoreLayersAction() const { return m_geometry->scoreLayersAction(); }
std::shared_ptr<const TransformersVerification> MainWindow::verification(
    const QString& modelFolder) const {
  return m_verify->verification(modelFolder);
}
LayerGeometryView* MainWindow::geometryView(const QString& storeFile) const {
  return m_geometry->geometryView(storeFile);
}
LayerDetailView* MainWindow::layerDetailView(const QString& storeFile, qint64 layer) const {
  return m_geometry->layerDetailView(storeFile, layer);
}
void MainWindow::startGeometryScan(const QString& storeFile, const GeometryScanSettings& settings) {
  m_geometry->startGeometryScan(storeFile, settings);
}
void MainWindow::showLayerDetail(const QString& storeFile, qint64 layer) {
  m_geometry->showLayerDetail(storeFile, layer);
}
TrainingView* MainWindow::trainingView() const { return m_training->trainingView(); }
BridgeView* MainWindow::bridgeView() const { return m_bridge->bridgeView(); }
BridgeabilityView* MainWindow::bridgeabilityView(const QString& folder) const {
  return m_bridge->bridgeabilityView(folder);
}
GeneratePanel* MainWindow::generatePanel(const QString& bridgeRun) const {
  return m_bridge->generatePanel(bridgeRun);
}
ChunkRoutingView* MainWindow::chunkRoutingView(const QString& dcdmRun) const {
  return m_routing->chunkRoutingView(dcdmRun);
}
AlignmentView* MainWindow::alignmentView(const QString& alignRun) const {
  return m_alignment->alignmentView(alignRun);
}
QString MainWindow::sweepFolder() const { return m_bridge->sweepFolder(); }

void MainWindow::openDefaultModel() { m_defaultGeometry->openDefaultModel(); }
void MainWindow::showCaptureDialog() { m_capture->showCaptureDialog(); }
void MainWindow::startCapture(const CaptureConfig& config) { m_capture->startCapture(config); }
void MainWindow::verifyModel(const QString& modelFolder) { m_verify->verifyModel(modelFolder); }
void MainWindow::showTrainingView() { m_training->showTrainingView(); }
void MainWindow::showTrainingLaunchDialog() { m_training->showTrainingLaunchDialog(); }
bool MainWindow::startTrainingRun(TrainingRequest request) {
  return m_training->startTrainingRun(std::move(request));
}
void MainWindow::showBridgeView() { m_bridge->showBridgeView(); }
void MainWindow::openSweepFolder(const QString& folder) { m_bridge->openSweepFolder(folder); }
void MainWindow::showGeneratePanel(const QString& bridgeRun) {
  m_bridge->showGeneratePanel(bridgeRun);
}
void MainWindow::showChunkRouting(const QString& dcdmRun) { m_routing->showChunkRouting(dcdmRun); }
void MainWindow::showAlignment(const QString& alignRun) { m_alignment->showAlignment(alignRun); }

}  // namespace strata
