#pragma once
// Where an installed Strata keeps its files, found relative to the running executable so that
// a package unpacked anywhere (dpkg-deb -x into a scratch root, /usr, /opt/strata) finds its
// own share/ and lib/ folders:
//
//   <prefix>/bin/strata, <prefix>/bin/strata-cli
//   <prefix>/share/strata/models/default     the built-in default model
//   <prefix>/share/strata/python             Python scripts Strata runs (verify's transformers
//   side) <prefix>/lib/strata/plugins              metric and recipe plugins
//
// In a build tree (not installed) the default model and the Python scripts are read from the
// source tree instead (resources/).

#include <filesystem>
#include <string>

namespace strata {

/** The running executable's file (/proc/self/exe), or empty when it cannot be read. */
std::filesystem::path executableFile();

/** <prefix> above: the parent of the executable's folder (empty when unknown). */
std::filesystem::path installPrefix();

/** <prefix>/share/strata; it exists only in an installed Strata. */
std::filesystem::path installedDataFolder();

/** <prefix>/lib/strata/plugins; it exists only in an installed Strata with plugins. */
std::filesystem::path installedPluginFolder();

/**
 * The small model trained here (a 0.3M-parameter Llama, for fast tests and as the default's
 * fallback; the real default is io/hf/default_model.h's): <prefix>/share/strata/models/default
 * when that holds a config.json, else the source tree's resources/models/default when this
 * binary runs from a build tree that still has it; empty when neither exists.
 */
std::filesystem::path smallModelFolder();

/**
 * A Python script shipped with Strata: <prefix>/share/strata/python/`name` when it exists, else
 * the source tree's resources/python/`name` in a build tree; empty when neither exists.
 */
std::filesystem::path bundledPythonScript(const std::string& name);

/**
 * The corpus the default model's geometry is measured on: $STRATA_DEFAULT_CORPUS when set, else
 * the Python standard library's argparse.py (the default model was trained on that library, so
 * every Debian machine has text in its domain): /usr/lib/python3.11/argparse.py, else the first
 * /usr/lib/python3.N/argparse.py found; empty when there is none.
 */
std::filesystem::path defaultCorpusFile();

/**
 * The project's shared data folder (corpora, tokenizers, small models): $STRATA_SHARED_DATA_DIR
 * when set, else `../shared/data` beside the source tree when this binary runs from a build tree
 * and that folder exists; empty otherwise. Studies find their default corpus there, wherever
 * they are run from.
 */
std::filesystem::path sharedDataFolder();

/**
 * The source tree this binary was built from, when it runs from a build tree and that tree
 * still exists (a study records its commit); empty for an installed Strata.
 */
std::filesystem::path sourceTreeFolder();

/**
 * Where Strata keeps what it computes for the user across sessions (the default model's cached
 * geometry): $STRATA_DATA_DIR when set, else $XDG_DATA_HOME/strata, else ~/.local/share/strata.
 * Not created here.
 */
std::filesystem::path userDataFolder();

}  // namespace strata
