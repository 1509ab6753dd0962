#pragma once
// The geometry feature: Geometry ▸ Score Layers… runs core's scanStore in a background job and
// writes the report into the store as /geometry; a store that already holds one shows it as
// soon as it is opened. On a model (selected in the project dock, its tab current, or the only
// kind open; or the "Score Layers…" button of its tab) Score Layers… captures first: the capture
// dialog (CaptureService) with the corpus, tokens, sequence length and a time and memory
// estimate, then capture and scoring as one job, ending on the new store's Layer Geometry.
// The Layer Geometry tab re-ranks on its own (no job); a click on a layer computes that
// layer's principal plane in a job and opens its detail tab. Every loaded plugin
// metric is computed by the scan, with the options set in Score Layers… (the options text of
// strata-cli score --plugin-options), and shown beside the proxies. Plugins are loaded when
// this feature is installed, because the scan is what uses them.

#include <QObject>
#include <QStringList>
#include <memory>

#include "feature.h"
#include "job_controller.h"       // JobOutcome's metatype
#include "score_layers_dialog.h"  // GeometryScanSettings

class QAction;

namespace strata {

namespace geometry {
struct GeometryReport;
}
class LayerDetailView;
class LayerGeometryView;
class Workbench;

class GeometryFeature final : public Feature {
  Q_OBJECT

 public:
  using Feature::Feature;
  void install(Workbench& workbench) override;

  /** Geometry ▸ Score Layers… (Ctrl+Shift+G): enabled while a model or a store is open. */
  QAction* scoreLayersAction() const { return m_scoreLayersAction; }
  /** The open Layer Geometry tab of `storeFile`, or nullptr. */
  LayerGeometryView* geometryView(const QString& storeFile) const;
  /** The open detail tab of `layer` of `storeFile`, or nullptr. */
  LayerDetailView* layerDetailView(const QString& storeFile, qint64 layer) const;

  /** Score Layers… on what is selected: scoreModel() for a model (modelToScore()), else the
   *  (non-modal) Score Layers dialog for the current store, whose OK starts the scan. */
  void showScoreLayersDialog();
  /** The model Score Layers… captures first: the one selected in the project dock, else the
   *  one whose tab is current (unless a store is selected), else the current model when no
   *  store is open; empty: score the current store. */
  QString modelToScore() const;
  /** Offers the capture of `modelFolder` followed by the scoring of the store (with the
   *  remembered Score Layers settings) in the same job; the store then opens on its Layer
   *  Geometry. */
  void scoreModel(const QString& modelFolder);
  /**
   * Scores every completed layer of `storeFile` in a background job with progress and Cancel,
   * writes the report into the store as /geometry and opens (or refreshes) its Layer Geometry
   * tab. Failure shows the error dialog; cancelling writes nothing. A second scan of a store
   * already being scored is refused with a log line.
   */
  void startGeometryScan(const QString& storeFile, const GeometryScanSettings& settings);
  /** Opens the detail tab of `layer` (its PCA is computed in a background job first). */
  void showLayerDetail(const QString& storeFile, qint64 layer);

 signals:
  /** A geometry scan of `storeFile` ended (Succeeded: /geometry is written, the tab shown). */
  void geometryFinished(const QString& storeFile, strata::JobOutcome outcome);
  /** The detail tab of `layer` of `storeFile` is shown. */
  void layerDetailShown(const QString& storeFile, qint64 layer);

 private:
  /** After a path opened: when it is a store, reads its /geometry in the background and shows
   *  it when present. */
  void loadStoredGeometry(const QString& path);
  void showGeometry(const QString& storeFile,
                    std::shared_ptr<const geometry::GeometryReport> report);
  /** The store's model and corpus when it is open (store_names.h), else its file name. */
  QString storeName(const QString& storeFile) const;

  Workbench* m_workbench = nullptr;
  QAction* m_scoreLayersAction = nullptr;
  QStringList m_scanning;        ///< stores whose geometry scan is running
  QStringList m_loadingDetails;  ///< detail tab keys whose PCA job is running
};

}  // namespace strata
