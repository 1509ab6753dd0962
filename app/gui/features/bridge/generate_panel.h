#pragma once
// GeneratePanel: DiHAL's hybrid generation beside the original model's, for a trained bridge
// run. A prompts box (one prompt a line), max new tokens, temperature (0 = greedy) and DDIM
// steps (0 = the run's sample_steps); Generate streams the tokens of both models into two
// panes, "Original" and "Hybrid (bridge at l* = …)", each prompt shown grey before its
// continuation; when the job ends each pane gets its Gen.PPL, diversity and ms/token, and a
// summary line says how much slower the hybrid is.
//
// The panel runs nothing itself: Generate emits generateRequested, the main window runs core's
// compareHybridGeneration in a job, hands the panel a TokenStream from beginGeneration() and the
// result to finishGeneration(). Tokens cross threads through the TokenStream (a mutex-guarded
// queue the worker pushes to and the panel drains every 50 ms), so no event is ever posted to
// the panel from the worker. GUI thread only, except TokenStream::push.

#include <QString>
#include <QStringList>
#include <QWidget>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "recipes/bridge/hybrid_generation.h"

class QDoubleSpinBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTextEdit;
class QTimer;

namespace strata {

/** Tokens on their way from the generation job to the panel. push: any thread. */
class TokenStream {
 public:
  struct Piece {
    std::size_t prompt = 0;
    recipes::GenerationSide side = recipes::GenerationSide::Original;
    std::string text;
  };
  void push(Piece piece);
  /** Everything pushed since the last take, in order. */
  std::vector<Piece> take();

 private:
  std::mutex m_mutex;
  std::vector<Piece> m_pending;
};

class GeneratePanel final : public QWidget {
  Q_OBJECT

 public:
  explicit GeneratePanel(const QString& bridgeRun, QWidget* parent = nullptr);
  ~GeneratePanel() override;

  const QString& bridgeRun() const { return m_run; }
  /** The bridge's l* (for the hybrid pane's title); -1 while unknown. */
  void setLayer(qint64 layer);
  /** l* from the run's run.json ("description" → "layer", as the recipe resolved it), or -1. */
  static qint64 layerOfRun(const QString& bridgeRun);

  /** The request the form describes. Throws strata::Error when there is no prompt. */
  recipes::HybridComparisonConfig config() const;
  /** Clears both panes and shows the prompts; returns the stream the job pushes tokens to. */
  std::shared_ptr<TokenStream> beginGeneration();
  /** Shows the finished comparison (final texts, per-side numbers, the summary). */
  void finishGeneration(std::shared_ptr<const recipes::HybridComparison> result);
  /** The job was cancelled or failed: keeps what streamed, says `why` in the summary. */
  void abortGeneration(const QString& why);
  bool generating() const { return m_stream != nullptr; }
  /** Tokens streamed into the panes by the current or last generation (both sides). */
  int streamedTokens() const { return m_streamedTokens; }

  /** "Gen.PPL 1.43 · diversity 0.0003 · 6.7 ms/token" of one side. */
  static QString sideText(double genPpl, double diversity, double msPerToken);
  /** "The hybrid is 30.4× slower than the original (204 vs 6.7 ms/token; …)" — or "faster"
   *  when a tiny bridge with few DDIM steps beats the original. */
  static QString summaryText(const recipes::HybridComparison& result);

  QPlainTextEdit* promptsEdit() const { return m_prompts; }
  QSpinBox* maxTokensBox() const { return m_maxTokens; }
  QDoubleSpinBox* temperatureBox() const { return m_temperature; }
  QSpinBox* stepsBox() const { return m_steps; }
  QPushButton* generateButton() const { return m_generate; }
  QPushButton* stopButton() const { return m_stop; }
  QTextEdit* originalPane() const { return m_original; }
  QTextEdit* hybridPane() const { return m_hybrid; }
  QLabel* hybridTitle() const { return m_hybridTitle; }
  QLabel* originalStats() const { return m_originalStats; }
  QLabel* hybridStats() const { return m_hybridStats; }
  QLabel* summaryLabel() const { return m_summary; }

 signals:
  void generateRequested();
  void stopRequested();

 private:
  void drain();
  void render();

  QString m_run;
  QPlainTextEdit* m_prompts;
  QSpinBox* m_maxTokens;
  QDoubleSpinBox* m_temperature;
  QSpinBox* m_steps;
  QPushButton* m_generate;
  QPushButton* m_stop;
  QLabel* m_originalTitle;
  QLabel* m_hybridTitle;
  QTextEdit* m_original;
  QTextEdit* m_hybrid;
  QLabel* m_originalStats;
  QLabel* m_hybridStats;
  QLabel* m_summary;
  QTimer* m_drain;

  std::shared_ptr<TokenStream> m_stream;  ///< while generating
  int m_streamedTokens = 0;
  QStringList m_shownPrompts;  ///< the prompts of the generation shown
  // Continuations, one per prompt, as bytes: a streamed token may end inside a UTF-8 character.
  std::vector<std::string> m_originalTexts, m_hybridTexts;
};

}  // namespace strata
