#pragma once
// The services one feature offers the others (and the frame): interfaces a feature implements
// beside Feature, found with Workbench::service<S>(), so that no feature includes another's
// header — Qt Creator's plugins find each other's objects the same way. GUI thread only.

#include <QMap>
#include <QString>
#include <filesystem>
#include <functional>

namespace strata {

class JobContext;

/** Opening paths; the open feature provides it. */
class OpenService {
 public:
  virtual ~OpenService() = default;
  /** A folder or a .gguf file opens as a model (a run folder in the Training tab), a
   *  .h5/.hdf5 file as an activation store; anything else is reported. */
  virtual void openPath(const QString& path) = 0;
  /** A model folder, or a .gguf file (imported into a folder the first time). */
  virtual void openModelFolder(const QString& folder) = 0;
  virtual void openActivationStore(const QString& file) = 0;
};

/** Work that follows a capture in the same background job (Score Layers… on a model: capture,
 *  then score the store). */
struct AfterCapture {
  /** What it does, for the dialog, the log and errors: "score every layer (…)". */
  QString description;
  /** Runs on the worker thread once the capture succeeded, with the finished store; reports
   *  progress 0…1 and checks cancellation through `job`, throws on failure. */
  std::function<void(const std::filesystem::path& store, JobContext& job)> work;
  /** Whether `work` scores the store's layers: the dialog then adds scoring to its estimate. */
  bool scoresLayers = false;
};

/** Capturing a model's hidden states; the capture feature provides it. */
class CaptureService {
 public:
  virtual ~CaptureService() = default;
  /** The capture dialog for `model` (corpus among recent and built-in ones, tokens, sequence
   *  length, output, a time and memory estimate) followed by `after`: OK runs the capture and
   *  then `after.work` as one background job, and opens the store when both succeeded. */
  virtual void offerCapture(const QString& model, const AfterCapture& after) = 0;
};

/** The Training tab and the training launcher; the training feature provides it. */
class TrainingService {
 public:
  virtual ~TrainingService() = default;
  /** Shows `run` in the Training tab (opening it), followed live while it trains. */
  virtual void showRun(const QString& run) = 0;
  /** The run the Training tab shows; empty when none (or the tab is closed). */
  virtual QString shownRun() const = 0;
  /** The launcher for every recipe, `recipe` preselected and `values` (key → CLI text) filled
   *  in over the remembered ones, in every recipe that has the key; OK trains it. */
  virtual void openTrainingLauncher(const QString& recipe,
                                    const QMap<QString, QString>& values) = 0;
};

}  // namespace strata
