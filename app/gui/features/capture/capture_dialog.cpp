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
#include <QSpinBox>
#include <QVBoxLayout>
#include <limits>

#include "common/install_paths.h"
#include "display_text.h"
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

}  // namespace

CaptureDialog::CaptureDialog(const QString& modelFolder, QWidget* parent)
    : QDialog(parent),
      m_modelFolder(modelFolder),
      m_model(new QLabel(QDir::toNativeSeparators(modelFolder), this)),
      m_corpus(new QLineEdit(this)),
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
      m_problem(new QLabel(this)),
      m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this)) {
  setObjectName(QStringLiteral("CaptureDialog"));
  setWindowTitle(tr("Capture Activations"));

  m_model->setObjectName(QStringLiteral("model"));
  m_model->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_model->setToolTip(tr("The model whose hidden states are captured (the selected model)."));

  m_corpus->setPlaceholderText(tr("a .txt or .jsonl file, or a folder of .txt files"));
  m_corpus->setToolTip(
      tr("The text to sample: a plain-text file (documents are paragraphs), a "
         "JSONL file (the \"text\" field of each line) or a folder of .txt "
         "files (one document each)."));
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
  form->addRow(tr("Corpus:"), pathRow(this, m_corpus, browseCorpus));
  form->addRow(tr("Output:"), pathRow(this, m_output, browseOutput));
  form->addRow(tr("Tokens:"), m_tokens);
  form->addRow(tr("Sequence length:"), m_sequenceLength);
  form->addRow(tr("Skip first positions:"), m_skipFirst);
  form->addRow(tr("Seed:"), m_seed);
  form->addRow(tr("Store as:"), m_dtype);
  form->addRow(QString(), m_streamLayers);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
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
