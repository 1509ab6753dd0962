#include "capture_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QRadioButton>
#include <QSettings>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>
#include <cmath>
#include <limits>

#include "common/install_paths.h"
#include "display_text.h"
#include "engine/compute_dtype.h"
#include "engine/cpu_bf16_speed.h"
#include "engine/memory_plan.h"
#include "path_row.h"

namespace strata {
namespace {

constexpr int kMaxInt = std::numeric_limits<int>::max();

QSpinBox* spinBox(QWidget* parent, int minimum, int maximum, int value, const QString& tip) {
  auto* box = new QSpinBox(parent);
  box->setRange(minimum, maximum);
  box->setValue(value);
  box->setGroupSeparatorShown(true);
  box->setToolTip(tip);
  return box;
}

bool isStoreName(const QString& path) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  return suffix == QLatin1String("h5") || suffix == QLatin1String("hdf5");
}

/** "about 40 s", "about 3 min", "about 1.5 h": an estimate, rounded as one. */
QString aboutText(double seconds) {
  if (seconds < 1.0) return CaptureDialog::tr("under a second");
  if (seconds < 90.0) return CaptureDialog::tr("about %1 s").arg(std::lround(seconds));
  if (seconds < 90.0 * 60.0)
    return CaptureDialog::tr("about %1 min").arg(std::lround(seconds / 60));
  return CaptureDialog::tr("about %1 h").arg(seconds / 3600.0, 0, 'f', 1);
}

QString clean(const QString& path) { return QDir::cleanPath(QFileInfo(path).absoluteFilePath()); }

}  // namespace

CaptureDialog::CaptureDialog(const QString& modelFolder, QWidget* parent)
    : QDialog(parent),
      m_modelFolder(modelFolder),
      m_model(new QLabel(QDir::toNativeSeparators(modelFolder), this)),
      m_corpusChoices(new QComboBox(this)),
      m_corpus(nullptr),
      m_output(new QLineEdit(this)),
      m_tokens(spinBox(this, 1, kMaxInt, 8192,
                       tr("How many token positions to store (N rows per layer), exactly. "
                          "Sequences are sampled from the corpus until the budget is met."))),
      m_sequenceLength(
          spinBox(this, 2, 1 << 20, 128,
                  tr("Tokens per sampled sequence (T), a BOS token included when the model's "
                     "convention adds one (add_bos_token). "
                     "Longer sequences give later positions more context."))),
      m_skipFirst(spinBox(this, 0, 1 << 20, 1,
                          tr("Positions 0…k−1 of every sequence are run but not stored: the first "
                             "positions (BOS, attention sinks) have atypical hidden states."))),
      m_seed(spinBox(this, 0, kMaxInt, 0,
                     tr("Seed of the sampler: the same corpus, tokenizer, options and seed give "
                        "the same tokens, which is what resuming a store relies on."))),
      m_dtype(new QComboBox(this)),
      m_streamLayers(new QCheckBox(tr("Stream layers"), this)),
      m_existing(new QGroupBox(tr("The output file exists"), this)),
      m_resume(new QRadioButton(tr("Resume it (capture only the missing layers)"), m_existing)),
      m_overwrite(new QRadioButton(tr("Overwrite it"), m_existing)),
      m_then(new QLabel(this)),
      m_estimate(new QLabel(this)),
      m_problem(new QLabel(this)),
      m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this)) {
  setObjectName(QStringLiteral("CaptureDialog"));
  setWindowTitle(tr("Capture Activations"));

  m_model->setObjectName(QStringLiteral("model"));
  m_model->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_model->setToolTip(tr("The model whose hidden states are captured (the selected model)."));

  // Editable: a path is typed or browsed as before, and the list offers the recent and the
  // built-in corpora (setCorpusChoices).
  m_corpusChoices->setEditable(true);
  m_corpusChoices->setInsertPolicy(QComboBox::NoInsert);
  m_corpusChoices->setObjectName(QStringLiteral("corpus"));
  m_corpusChoices->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  m_corpusChoices->setMinimumContentsLength(24);
  m_corpus = m_corpusChoices->lineEdit();
  m_corpus->setPlaceholderText(tr("a .txt or .jsonl file, or a folder of .txt files"));
  m_corpusChoices->setToolTip(
      tr("The text to sample: a plain-text file (documents are paragraphs), a "
         "JSONL file (the \"text\" field of each line) or a folder of .txt "
         "files (one document each). The list holds the corpora captured recently "
         "and the built-in ones."));
  auto* browseCorpus = new QPushButton(tr("Browse…"), this);
  browseCorpus->setToolTip(tr("Choose a corpus file or folder"));
  auto* corpusMenu = new QMenu(browseCorpus);
  corpusMenu->addAction(tr("File…"), this, &CaptureDialog::browseCorpusFile);
  corpusMenu->addAction(tr("Folder…"), this, &CaptureDialog::browseCorpusFolder);
  browseCorpus->setMenu(corpusMenu);

  m_output->setPlaceholderText(tr("activations.h5"));
  m_output->setToolTip(
      tr("The activation store to write (HDF5, .h5): one dataset per layer, "
         "written as soon as the layer is finished."));
  auto* browseOutput = new QPushButton(tr("Browse…"), this);
  browseOutput->setToolTip(tr("Choose where to save the activation store"));
  connect(browseOutput, &QPushButton::clicked, this, &CaptureDialog::browseOutput);

  m_dtype->addItem(QStringLiteral("float16"), static_cast<int>(io::StoreDType::Float16));
  m_dtype->addItem(QStringLiteral("float32"), static_cast<int>(io::StoreDType::Float32));
  m_dtype->setToolTip(
      tr("Precision of the stored hidden states: float16 halves the file; "
         "float32 keeps every bit of the forward pass."));
  m_streamLayers->setToolTip(
      tr("Keep only one transformer block's weights in memory at a time: "
         "for models larger than memory, at some cost in speed."));

  auto* existingLayout = new QVBoxLayout(m_existing);
  existingLayout->addWidget(m_resume);
  existingLayout->addWidget(m_overwrite);
  m_resume->setToolTip(
      tr("Keep the finished layers of an interrupted capture and compute only "
         "the missing ones. The corpus and options must be the same."));
  m_overwrite->setToolTip(tr("Delete the existing store and capture every layer again."));
  m_resume->setChecked(true);
  m_existing->setObjectName(QStringLiteral("existingOutput"));

  m_problem->setObjectName(QStringLiteral("problem"));
  m_problem->setForegroundRole(QPalette::PlaceholderText);
  m_problem->setWordWrap(true);

  auto* form = new QFormLayout;
  form->addRow(tr("Model:"), m_model);
  form->addRow(tr("Corpus:"), pathRow(this, m_corpusChoices, browseCorpus));
  form->addRow(tr("Output:"), pathRow(this, m_output, browseOutput));
  form->addRow(tr("Tokens:"), m_tokens);
  form->addRow(tr("Sequence length:"), m_sequenceLength);
  form->addRow(tr("Skip first positions:"), m_skipFirst);
  form->addRow(tr("Seed:"), m_seed);
  form->addRow(tr("Store as:"), m_dtype);
  form->addRow(QString(), m_streamLayers);

  m_then->setObjectName(QStringLiteral("then"));
  m_then->setWordWrap(true);
  m_then->hide();  // setFollowUp
  m_estimate->setObjectName(QStringLiteral("estimate"));
  m_estimate->setWordWrap(true);
  m_estimate->setToolTip(
      tr("Estimated from throughput measured on a 2-core CPU in float32 "
         "(docs/benchmarks.md): a GPU, more cores or bfloat16 are faster, a busy "
         "machine slower. The memory is the plan the capture itself follows: it "
         "streams the model's layers when it would not fit resident, and refuses "
         "what fits neither way."));
  m_estimate->hide();  // setModel

  auto* layout = new QVBoxLayout(this);
  layout->addWidget(m_then);  // why a capture comes first, above the form
  layout->addLayout(form);
  layout->addWidget(m_estimate);
  layout->addWidget(m_existing);
  layout->addWidget(m_problem);
  layout->addWidget(m_buttons);

  okButton()->setText(tr("Capture"));
  connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(m_corpus, &QLineEdit::textChanged, this, &CaptureDialog::corpusEdited);
  connect(m_output, &QLineEdit::textEdited, this, [this] { m_outputChosen = true; });
  connect(m_output, &QLineEdit::textChanged, this, &CaptureDialog::updateState);
  connect(m_sequenceLength, &QSpinBox::valueChanged, this, &CaptureDialog::updateState);
  connect(m_skipFirst, &QSpinBox::valueChanged, this, &CaptureDialog::updateState);
  connect(m_tokens, &QSpinBox::valueChanged, this, &CaptureDialog::updateState);
  connect(m_streamLayers, &QCheckBox::toggled, this, &CaptureDialog::updateState);
  updateState();
  resize(560, sizeHint().height());
}

QPushButton* CaptureDialog::okButton() const { return m_buttons->button(QDialogButtonBox::Ok); }

QString CaptureDialog::storesFolder() {
  return QDir::cleanPath(toQString(userDataFolder() / "activation-stores"));
}

QString CaptureDialog::defaultOutputFor(const QString& corpus) const {
  if (corpus.trimmed().isEmpty()) return {};
  const QString path = QDir::cleanPath(corpus.trimmed());
  // In Strata's data folder, where GGUF imports and the default model's geometry go too: the
  // corpus often lies in a read-only shared folder. Named after model and corpus, so two
  // corpora captured from one model do not meet.
  const QString model = QFileInfo(QDir::cleanPath(m_modelFolder)).fileName();
  const QString corpusName = QFileInfo(path).completeBaseName();
  QString name = model.isEmpty() ? QStringLiteral("activations") : model;
  if (!corpusName.isEmpty()) name += QLatin1Char('-') + corpusName;
  return QDir(storesFolder()).filePath(name + QStringLiteral(".h5"));
}

bool CaptureDialog::outputFolderUsable(const QString& output) {
  // The stores folder is made when the capture starts (CaptureFeature::startCapture).
  const QFileInfo out(output);
  return !out.isDir() && (out.absoluteDir().exists() || out.absolutePath() == storesFolder());
}

void CaptureDialog::setCorpus(const QString& path) { m_corpus->setText(path); }

QStringList CaptureDialog::builtInCorpora() {
  QStringList corpora;
  if (const auto corpus = defaultCorpusFile();
      !corpus.empty() && QFileInfo(toQString(corpus)).isFile())
    corpora << clean(toQString(corpus));
  if (const auto shared = sharedDataFolder(); !shared.empty()) {
    const QDir folder(toQString(shared / "corpora"));
    const QStringList files = folder.entryList(
        {QStringLiteral("*.txt"), QStringLiteral("*.jsonl"), QStringLiteral("*.ndjson")},
        QDir::Files | QDir::Readable, QDir::Name);
    for (const QString& file : files) corpora << clean(folder.filePath(file));
  }
  corpora.removeDuplicates();
  return corpora;
}

void CaptureDialog::setCorpusChoices(const QStringList& recent, const QStringList& builtIn) {
  const QString typed = m_corpus->text();
  {
    // Filling an editable box's list changes its text: keep what was typed, without signals.
    const QSignalBlocker blockBox(m_corpusChoices);
    const QSignalBlocker blockEdit(m_corpus);
    m_corpusChoices->clear();
    QStringList listed;
    const auto add = [this, &listed](const QString& path, const QString& tip) {
      const QString cleaned = clean(path);
      if (listed.contains(cleaned)) return;
      listed << cleaned;
      m_corpusChoices->addItem(QDir::toNativeSeparators(cleaned), cleaned);
      m_corpusChoices->setItemData(m_corpusChoices->count() - 1, tip, Qt::ToolTipRole);
    };
    for (const QString& path : recent) add(path, tr("Captured recently"));
    if (!listed.isEmpty() && !builtIn.isEmpty()) m_corpusChoices->insertSeparator(listed.size());
    const QString defaultCorpus = toQString(defaultCorpusFile());
    for (const QString& path : builtIn)
      add(path, !defaultCorpus.isEmpty() && clean(path) == clean(defaultCorpus)
                    ? tr("Built in: the default model's corpus (File ▸ Open Default Model)")
                    : tr("Built in: a corpus of the shared data folder"));
    m_corpusChoices->setCurrentIndex(-1);
    m_corpus->setText(typed);
  }
}

void CaptureDialog::proposeCorpus() {
  if (!m_corpus->text().trimmed().isEmpty()) return;
  for (int i = 0; i < m_corpusChoices->count(); ++i) {
    const QString path = m_corpusChoices->itemData(i).toString();
    if (!path.isEmpty()) {
      setCorpus(path);
      return;
    }
  }
}

void CaptureDialog::setModel(std::shared_ptr<const io::ModelSummary> summary, bool cuda) {
  m_summary = std::move(summary);
  m_cuda = cuda;
  m_estimate->setVisible(m_summary != nullptr);
  updateState();
}

void CaptureDialog::setFollowUp(const QString& description, bool scoresLayers) {
  m_scoresLayers = scoresLayers;
  setWindowTitle(tr("Score Layers — Capture First"));
  m_then->setText(tr("Scoring needs the model's hidden states first: Capture and Score captures "
                     "them over the corpus into the activation store, then, in the same "
                     "background job, goes on to %1. It ends on the store's Layer Geometry.")
                      .arg(description));
  m_then->show();
  okButton()->setText(tr("Capture and Score"));
  updateState();
}

engine::CaptureShape CaptureDialog::shape() const {
  engine::CaptureShape shape;
  shape.tokens = m_tokens->value();
  shape.sequenceLength = m_sequenceLength->value();
  shape.skipFirstPositions = m_skipFirst->value();
  shape.batchSequences = engine::CaptureConfig{}.batchSequences;
  shape.cuda = m_cuda;
  shape.streamLayers = m_streamLayers->isChecked();
  // The job computes in what --compute-dtype auto picks here (engine/compute_dtype.h), at the
  // speed measured for it.
  shape.computeBytes =
      engine::chooseComputeDType(engine::ComputeDType::Auto, m_cuda ? "cuda" : "cpu").dtype ==
              engine::ComputeDType::BFloat16
          ? 2
          : 4;
  if (shape.computeBytes == 2 && !m_cuda) shape.cpuBf16Speedup = engine::cpuBf16MatmulSpeedup();
  return shape;
}

QString CaptureDialog::problem() const {
  return m_problem->isHidden() ? QString() : m_problem->text();
}

QString CaptureDialog::updateEstimate() {
  if (!m_summary) return {};
  const engine::CaptureShape s = shape();
  const io::ModelConfig& config = m_summary->config;
  const double capture = engine::estimateCaptureSeconds(config, m_summary->parameterCount, s);
  QString time = m_scoresLayers
                     ? tr("%1 to capture, %2 to score")
                           .arg(aboutText(capture),
                                aboutText(engine::estimateScoringSeconds(config, s.tokens)))
                     : tr("%1 to capture").arg(aboutText(capture));
  time += m_cuda ? tr(" (estimated for a 2-core CPU: a GPU is faster)")
                 : tr(" (estimated from measured throughput)");
  time += s.computeBytes == 2 ? tr(", computing in bfloat16") : tr(", computing in float32");
  int64_t available = 0;
  try {
    available = engine::availableMemory(m_cuda);
  } catch (const std::exception& e) {
    // A malformed STRATA_MEMORY_AVAILABLE: the job itself would fail on it.
    m_estimate->setText(tr("Time: %1\nMemory: unknown").arg(time));
    return QString::fromUtf8(e.what());
  }
  const engine::MemoryPlan plan = engine::planMemory(
      engine::captureMemoryRequest(config, m_summary->parameterCount, s), available);
  const QString needs = tr("%1 of %2 available %3")
                            .arg(bytesText(plan.needed()), bytesText(plan.available),
                                 QString::fromStdString(plan.device));
  const QString memory = !plan.fits    ? tr("does not fit: %1").arg(needs)
                         : plan.stream ? tr("streams the model's layers (it does not fit "
                                            "resident, %1): %2")
                                             .arg(bytesText(plan.neededResident()), needs)
                                       : tr("%1, the model resident").arg(needs);
  m_estimate->setText(tr("Time: %1\nMemory: %2").arg(time, memory));
  return plan.fits ? QString() : QString::fromStdString(plan.refusal());
}

void CaptureDialog::setOutput(const QString& path) {
  m_outputChosen = true;
  m_output->setText(path);
}

void CaptureDialog::corpusEdited() {
  if (!m_outputChosen) m_output->setText(defaultOutputFor(m_corpus->text()));
  updateState();
}

void CaptureDialog::browseCorpusFile() {
  const QString file =
      QFileDialog::getOpenFileName(this, tr("Corpus File"), m_corpus->text(),
                                   tr("Text corpora (*.txt *.jsonl *.ndjson);;All files (*)"));
  if (!file.isEmpty()) m_corpus->setText(file);
}

void CaptureDialog::browseCorpusFolder() {
  const QString folder =
      QFileDialog::getExistingDirectory(this, tr("Corpus Folder"), m_corpus->text());
  if (!folder.isEmpty()) m_corpus->setText(folder);
}

void CaptureDialog::browseOutput() {
  // No overwrite prompt here: the form asks resume-or-overwrite itself.
  const QString file = QFileDialog::getSaveFileName(this, tr("Activation Store"), m_output->text(),
                                                    tr("Activation stores (*.h5 *.hdf5)"), nullptr,
                                                    QFileDialog::DontConfirmOverwrite);
  if (!file.isEmpty()) setOutput(isStoreName(file) ? file : file + QStringLiteral(".h5"));
}

bool CaptureDialog::pathsValid() const {
  const QString corpus = m_corpus->text().trimmed();
  const QString output = m_output->text().trimmed();
  if (corpus.isEmpty() || !QFileInfo::exists(corpus)) return false;
  const QFileInfo out(output);
  return !output.isEmpty() && isStoreName(output) && outputFolderUsable(output) &&
         out.absoluteFilePath() != QFileInfo(corpus).absoluteFilePath();
}

void CaptureDialog::updateState() {
  const QString corpus = m_corpus->text().trimmed();
  const QString output = m_output->text().trimmed();
  const QFileInfo out(output);
  QString problem;
  if (corpus.isEmpty())
    problem = tr("Choose a corpus to sample.");
  else if (!QFileInfo::exists(corpus))
    problem = tr("The corpus “%1” does not exist.").arg(corpus);
  else if (output.isEmpty())
    problem = tr("Choose where to save the activation store.");
  else if (!isStoreName(output))
    problem = tr("The output must be an .h5 or .hdf5 file.");
  else if (!outputFolderUsable(output))
    problem = tr("The output's folder “%1” does not exist.").arg(out.absolutePath());
  else if (out.absoluteFilePath() == QFileInfo(corpus).absoluteFilePath())
    problem = tr("The output would replace the corpus.");
  else if (m_skipFirst->value() >= m_sequenceLength->value())
    problem = tr("Skipping %1 positions of %2-token sequences stores nothing.")
                  .arg(m_skipFirst->value())
                  .arg(m_sequenceLength->value());
  // Always updated (the estimate follows every field), a refusal shown once the paths are set.
  const QString refusal = updateEstimate();
  if (problem.isEmpty() && !refusal.isEmpty()) problem = tr("Not enough memory: %1.").arg(refusal);
  m_problem->setText(problem);
  m_problem->setVisible(!problem.isEmpty());
  m_existing->setVisible(problem.isEmpty() && out.isFile());
  okButton()->setEnabled(problem.isEmpty());
}

engine::CaptureConfig CaptureDialog::config() const {
  engine::CaptureConfig config;
  config.modelFolder = toFsPath(m_modelFolder);
  config.corpus = toFsPath(m_corpus->text().trimmed());
  config.output = toFsPath(m_output->text().trimmed());
  config.sampling.tokenBudget = m_tokens->value();
  config.sampling.sequenceLength = m_sequenceLength->value();
  config.sampling.skipFirstPositions = m_skipFirst->value();
  config.sampling.seed = static_cast<uint64_t>(m_seed->value());
  config.dtype = static_cast<io::StoreDType>(m_dtype->currentData().toInt());
  config.streamLayers = m_streamLayers->isChecked();
  const bool exists = QFileInfo(m_output->text().trimmed()).isFile();
  config.resume = exists && m_resume->isChecked();
  config.overwrite = exists && m_overwrite->isChecked();
  return config;
}

void CaptureDialog::restoreSettings(const QSettings& settings) {
  const auto intValue = [&settings](const char* key, QSpinBox* box) {
    box->setValue(settings.value(QLatin1String(key), box->value()).toInt());
  };
  intValue("capture/tokens", m_tokens);
  intValue("capture/sequenceLength", m_sequenceLength);
  intValue("capture/skipFirstPositions", m_skipFirst);
  intValue("capture/seed", m_seed);
  const int dtype = m_dtype->findText(settings.value(QStringLiteral("capture/dtype")).toString());
  if (dtype >= 0) m_dtype->setCurrentIndex(dtype);
  m_streamLayers->setChecked(
      settings.value(QStringLiteral("capture/streamLayers"), m_streamLayers->isChecked()).toBool());
  const QString corpus = settings.value(QStringLiteral("capture/corpus")).toString();
  if (!corpus.isEmpty()) setCorpus(corpus);  // the output follows, named after this model
}

void CaptureDialog::saveSettings(QSettings& settings) const {
  settings.setValue(QStringLiteral("capture/corpus"), m_corpus->text().trimmed());
  settings.setValue(QStringLiteral("capture/tokens"), m_tokens->value());
  settings.setValue(QStringLiteral("capture/sequenceLength"), m_sequenceLength->value());
  settings.setValue(QStringLiteral("capture/skipFirstPositions"), m_skipFirst->value());
  settings.setValue(QStringLiteral("capture/seed"), m_seed->value());
  settings.setValue(QStringLiteral("capture/dtype"), m_dtype->currentText());
  settings.setValue(QStringLiteral("capture/streamLayers"), m_streamLayers->isChecked());
}

}  // namespace strata
