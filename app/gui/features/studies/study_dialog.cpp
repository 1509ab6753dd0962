#include "study_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include "path_row.h"

namespace strata {
namespace {

/** What each study asks, in one line (docs/studies/<name>.md has the protocol). */
QString aboutStudy(const QString& study) {
  if (study == QLatin1String("dihal"))
    return StudyDialog::tr(
        "DiHAL: does the geometry score predict how well a bridge at each layer "
        "trains, beyond depth? (docs/studies/dihal.md)");
  if (study == QLatin1String("dcdm"))
    return StudyDialog::tr(
        "DCDM: does content-defined chunking beat fixed blocks and unstructured "
        "masked diffusion? (docs/studies/dcdm.md)");
  if (study == QLatin1String("dihal-pretrained"))
    return StudyDialog::tr(
        "DiHAL on a real pretrained model (SmolLM2-135M over WikiText-2): does the geometry "
        "score predict bridgeability beyond depth, for Gaussian and Brownian bridges? "
        "(docs/studies/dihal-pretrained.md)");
  if (study == QLatin1String("repr-align"))
    return StudyDialog::tr(
        "REPR-ALIGN: which alignment weight λ (and which aligned states) speeds up converting "
        "an autoregressive model into a diffusion LM, tested against λ = 0 on held-out "
        "windows? (docs/studies/repr-align.md)");
  return {};
}

}  // namespace

QStringList StudyChoice::overrides() const {
  QStringList list;
  if (!corpus.isEmpty()) list << QStringLiteral("corpus=") + corpus;
  return list + settings;
}

StudyDialog::StudyDialog(const QStringList& studies, const QString& runsRoot, QWidget* parent)
    : QDialog(parent),
      m_runsRoot(runsRoot),
      m_study(new QComboBox(this)),
      m_about(new QLabel(this)),
      m_folder(new QLineEdit(this)),
      m_corpus(new QLineEdit(this)),
      m_settings(new QLineEdit(this)),
      m_seeds(new QSpinBox(this)),
      m_budget(new QComboBox(this)),
      m_problem(new QLabel(this)),
      m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this)) {
  setWindowTitle(tr("Run Study"));
  m_study->addItems(studies);
  m_about->setWordWrap(true);
  m_seeds->setRange(1, 20);
  m_seeds->setValue(3);
  m_seeds->setToolTip(tr("Every arm is trained once per seed; intervals need at least 3"));
  m_budget->addItem(tr("full — the protocol's budget (about an hour on 2 cores)"),
                    QStringLiteral("full"));
  m_budget->addItem(tr("smoke — seconds, checks the pipeline only"), QStringLiteral("smoke"));
  m_problem->setStyleSheet(QStringLiteral("color: palette(bright-text)"));
  m_problem->setWordWrap(true);
  m_buttons->button(QDialogButtonBox::Ok)->setText(tr("Run"));
  m_corpus->setPlaceholderText(
      tr("the study's default: ../shared/data/corpora/tinyshakespeare.txt"));
  m_settings->setPlaceholderText(tr("e.g. threads=2 (key=value, separated by spaces)"));
  m_settings->setToolTip(
      tr("Settings for every run whose recipe has the key, as strata-cli study "
         "--set takes them; they become part of the protocol"));

  auto* browse = new QPushButton(tr("Browse…"), this);
  auto* browseCorpus = new QPushButton(tr("Browse…"), this);
  auto* form = new QFormLayout;
  form->addRow(tr("Study:"), m_study);
  form->addRow(QString(), m_about);
  form->addRow(tr("Folder:"), pathRow(this, m_folder, browse));
  form->addRow(tr("Corpus:"), pathRow(this, m_corpus, browseCorpus));
  form->addRow(tr("Seeds:"), m_seeds);
  form->addRow(tr("Budget:"), m_budget);
  form->addRow(tr("Settings:"), m_settings);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(new QLabel(tr("Running a study again in the same folder continues it: finished "
                                  "runs are kept, an interrupted one resumes."),
                               this));
  layout->addWidget(m_problem);
  layout->addWidget(m_buttons);

  connect(m_study, &QComboBox::currentTextChanged, this, &StudyDialog::studyChanged);
  connect(m_folder, &QLineEdit::textEdited, this, [this] {
    m_folderEdited = true;
    updateState();
  });
  connect(browse, &QPushButton::clicked, this, [this] {
    const QString folder =
        QFileDialog::getExistingDirectory(this, tr("Study Folder"), m_folder->text());
    if (folder.isEmpty()) return;
    m_folder->setText(QDir::toNativeSeparators(folder));
    m_folderEdited = true;
    updateState();
  });
  connect(browseCorpus, &QPushButton::clicked, this, [this] {
    const QString file = QFileDialog::getOpenFileName(this, tr("Study Corpus"), m_corpus->text());
    if (!file.isEmpty()) m_corpus->setText(QDir::toNativeSeparators(file));
    updateState();
  });
  connect(m_corpus, &QLineEdit::textChanged, this, &StudyDialog::updateState);
  connect(m_settings, &QLineEdit::textChanged, this, &StudyDialog::updateState);
  connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  studyChanged();
}

StudyChoice StudyDialog::choice() const {
  StudyChoice choice;
  choice.study = m_study->currentText();
  choice.folder = QDir::cleanPath(QDir::fromNativeSeparators(m_folder->text().trimmed()));
  const QString corpus = m_corpus->text().trimmed();
  if (!corpus.isEmpty()) choice.corpus = QDir::cleanPath(QDir::fromNativeSeparators(corpus));
  choice.seeds = m_seeds->value();
  choice.budget = m_budget->currentData().toString();
  choice.settings = m_settings->text().split(QLatin1Char(' '), Qt::SkipEmptyParts);
  return choice;
}

void StudyDialog::studyChanged() {
  m_about->setText(aboutStudy(m_study->currentText()));
  if (!m_folderEdited && !m_runsRoot.isEmpty())  // follow the study until the user picks a folder
    m_folder->setText(QDir::toNativeSeparators(
        QDir(m_runsRoot).filePath(QStringLiteral("study-") + m_study->currentText())));
  updateState();
}

void StudyDialog::updateState() {
  QString problem;
  if (m_study->count() == 0)
    problem = tr("This build knows no studies.");
  else if (m_folder->text().trimmed().isEmpty())
    problem = tr("Choose a folder for the study.");
  else if (const QString corpus = m_corpus->text().trimmed();
           !corpus.isEmpty() && !QFileInfo(QDir::fromNativeSeparators(corpus)).isFile())
    problem = tr("The corpus %1 is not a file.").arg(corpus);
  else
    for (const QString& setting : m_settings->text().split(QLatin1Char(' '), Qt::SkipEmptyParts))
      if (setting.indexOf(QLatin1Char('=')) <= 0) {
        problem = tr("The setting “%1” is not key=value.").arg(setting);
        break;
      }
  m_problem->setText(problem);
  m_problem->setVisible(!problem.isEmpty());
  m_buttons->button(QDialogButtonBox::Ok)->setEnabled(problem.isEmpty());
}

}  // namespace strata
