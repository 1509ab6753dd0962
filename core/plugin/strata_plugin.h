/*
 * strata_plugin.h — the C ABI between Strata and its plugins (docs/plugins.md).
 *
 * A plugin is a shared object (`*.so`) that exports one symbol, `strata_plugin_entry`, returning
 * a pointer to a static StrataPlugin description. Plugins include this header only; they never
 * link strata_core (core is a static library inside each executable, so a plugin linking it
 * would carry a second, unrelated copy). Everything here is plain C: structs, strings and
 * function pointers, so a plugin may be written in C, C++ or anything with a C FFI.
 *
 * Rules a plugin must keep:
 *  - Every pointer it hands out (names, descriptions, option tables) stays valid until the
 *    shared object is unloaded, i.e. for the life of the process: Strata never unloads plugins.
 *  - No exception may leave a function of the ABI. Report failures by returning non-zero and
 *    writing a message into `error` (at most `error_size` bytes including the terminating 0).
 *    Strata additionally catches C++ exceptions that escape anyway, reports them by plugin
 *    name and skips the metric; but a crash (segfault, abort) takes the process down: a plugin
 *    runs in Strata's address space and cannot be isolated there.
 *  - Functions may be called from any thread, but never concurrently for the same metric or
 *    the same run folder.
 *
 * The ABI version changes whenever a struct's layout or a function's meaning changes. Strata
 * loads plugins built against STRATA_PLUGIN_ABI_OLDEST up to STRATA_PLUGIN_ABI_VERSION and
 * refuses (reports and skips) any other.
 */
#ifndef STRATA_PLUGIN_H
#define STRATA_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Version 1 since Strata 0.1 (running recipes, StrataRecipe::run and StrataRecipeHost, added
 * no field and changed no meaning). Version 2 added StrataRecipeHost::plan_memory at the end of
 * the struct Strata hands out: a version-1 plugin reads only what it knew, so it still loads
 * (its recipes run unplanned, and Strata says so in the run's log). */
#define STRATA_PLUGIN_ABI_VERSION 2u
#define STRATA_PLUGIN_ABI_OLDEST 1u
#define STRATA_PLUGIN_ENTRY_SYMBOL "strata_plugin_entry"

/* Marks the entry point exported even when a plugin builds with -fvisibility=hidden. */
#if defined(__GNUC__)
#define STRATA_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define STRATA_PLUGIN_EXPORT
#endif

/** A row-major float32 matrix: `rows` tokens × `cols` hidden dimensions. */
typedef struct StrataMatrix {
  const float* data;
  int64_t rows;
  int64_t cols;
} StrataMatrix;

/** One option of a metric or setting of a recipe: `name=value` in the options text. */
typedef struct StrataOption {
  const char* name;
  const char* default_value;
  const char* description;
} StrataOption;

/**
 * A per-layer metric of the hidden states.
 *
 * compute(): `layer` holds the N×d hidden states of layer l, *normalised as for the built-in
 * proxies* (DESIGN.md: columns centred, then scaled per the scan's normalisation — by default
 * so that tr(Σ) = d — the same rows the proxies see). `previous` holds layer l−1 normalised the
 * same way (same N rows, same tokens), or is NULL when layer l−1 is not in the store (l = 0).
 * `options` is the metric's options as "name=value" pairs separated by ';' or newlines (never NULL;
 * empty for the defaults). On success: write the value to `*value` and return 0 (a NaN value means
 * "not defined for this layer", e.g. a between-layer metric at l = 0). On failure: return non-zero
 * and write a message.
 */
typedef int (*StrataMetricCompute)(const StrataMatrix* layer, const StrataMatrix* previous,
                                   const char* options, double* value, char* error,
                                   size_t error_size);

typedef struct StrataMetric {
  const char* name;        /* unique among all plugins, e.g. "twonn_id"; [a-z0-9_] */
  const char* description; /* one line: what it measures */
  int higher_is_better;    /* 1: a higher value raises S(l) (with a positive weight); 0: lowers */
  const StrataOption* options;
  int32_t option_count;
  StrataMetricCompute compute;
} StrataMetric;

/**
 * What Strata offers a running recipe (docs/plugins.md, "Recipe plugins"). Call these only
 * from the thread that called run() (or threads it joins before returning), never after run()
 * has returned. None of them throws or blocks for long, except cancelled() while the user has
 * paused the run (it then waits until the run is resumed or stopped).
 *
 *  - progress(context, fraction, stage): fraction of the whole run done, in [0, 1] (a negative
 *    or NaN fraction means "busy, amount unknown"); `stage` a short line ("step 40/500") or
 *    NULL. Drives the CLI's progress line and the GUI's progress bar.
 *  - metric(context, step, name, value): one scalar at optimizer step `step` (>= 1). Consecutive
 *    calls with the same step form one line of the run's metrics.jsonl ({"step": n,
 *    "wall_time": t, name: value, ...}; a name repeated within a step keeps its last value);
 *    a call with another step, a progress() or cancelled() call, or run()'s return writes the
 *    line. Names are [A-Za-z0-9_.-]; "step" and "wall_time" are reserved. Strata's plots know
 *    "loss" (training loss), "lr" and "val_loss"; others are shown by name. Non-finite values
 *    are recorded as null. On a resumed run the first step reported drops every line already
 *    logged at that step or later, so a recipe that repeats steps after its checkpoint leaves
 *    the log as an uninterrupted run would.
 *  - cancelled(context): non-zero once the user stopped the run (Ctrl-C in strata-cli, Stop in
 *    the GUI) or Strata cannot record it any more (e.g. the disk is full): save what resume
 *    needs and return 0 promptly. Cheap; call it between steps.
 *  - plan_memory(context, bytes, parts, advice, error, error_size) (ABI 2): call it once, after
 *    reading the settings and the sizes of the inputs and before loading anything large, with
 *    the most host memory the run will hold at any one time besides the process itself
 *    (`bytes`), what makes it up (`parts`, one line: "inputs 6.1 GiB, translators 6.0 GiB")
 *    and what the user can change to need less (`advice`, one sentence, or NULL). Strata writes
 *    the plan to the run's log and returns 0 when it fits the memory available now
 *    (MemAvailable, or STRATA_MEMORY_AVAILABLE); otherwise non-zero with the refusal in
 *    `error` (what is needed, what is available, the advice): then return non-zero at once,
 *    and Strata reports the run as refused for its memory. A machine never kills a planned run
 *    for memory without a word; an unplanned one it may.
 */
typedef struct StrataRecipeHost {
  void* context;
  void (*progress)(void* context, double fraction, const char* stage);
  void (*metric)(void* context, int64_t step, const char* name, double value);
  int (*cancelled)(void* context); /* non-zero: stop as soon as possible and return */
  int (*plan_memory)(void* context, int64_t bytes, const char* parts, const char* advice,
                     char* error, size_t error_size); /* ABI 2: non-zero = refused, stop */
} StrataRecipeHost;

/**
 * A training recipe: `strata-cli train <name> --set key=value`, the GUI's training launcher.
 *
 * run(settings, run_folder, host, error, error_size) trains into `run_folder`:
 *  - `settings`: every declared setting, one "name=value" per line ('\n'), in declaration order,
 *    defaults filled in; a value may be empty or hold ';', never a newline. The values are the
 *    plugin's to validate (return an error naming the setting).
 *  - `run_folder`: exists, and Strata owns run.json, status.json, run.lock and metrics.jsonl
 *    in it; everything else there is the recipe's (checkpoints, outputs). Strata holds the
 *    folder's lock for the whole call, so no other process runs a recipe in it meanwhile.
 *  - Return 0 when the run finished, or when it stopped because cancelled() said so (Strata
 *    then marks the run stopped, resumable). Return non-zero with a message in `error` when it
 *    failed: Strata marks the run failed and reports "plugin recipe <name> (plugin <plugin>
 *    <version>, <file>) failed: <message>". A C++ exception escaping run() is caught and
 *    reported the same way (the ABI still forbids it); a crash cannot be caught.
 *  - Resume (`strata-cli resume DIR`, the GUI's Resume) calls run() again with the same
 *    settings on the same folder: the recipe finds its own state there and continues, or
 *    starts over when it has none. Make state files atomic (write a temporary, then rename) so
 *    that a run killed at any moment resumes from its last complete checkpoint. A run marked
 *    finished is not run again.
 *  - run() is called on a worker thread, never concurrently for the same run folder.
 */
typedef struct StrataRecipe {
  const char* name;
  const char* description;
  const StrataOption* settings;
  int32_t setting_count;
  int (*run)(const char* settings, const char* run_folder, const StrataRecipeHost* host,
             char* error, size_t error_size);
} StrataRecipe;

typedef struct StrataPlugin {
  uint32_t abi_version; /* STRATA_PLUGIN_ABI_VERSION the plugin was built against */
  const char* name;     /* e.g. "twonn" */
  const char* version;  /* the plugin's own version, free text */
  const char* description;
  const StrataMetric* metrics;
  int32_t metric_count;
  const StrataRecipe* recipes;
  int32_t recipe_count;
} StrataPlugin;

/**
 * The one exported symbol. Called once, right after the shared object is loaded. A plugin
 * defines it as:  STRATA_PLUGIN_EXPORT const StrataPlugin* strata_plugin_entry(void) { ... }
 */
typedef const StrataPlugin* (*StrataPluginEntry)(void);

#ifdef __cplusplus
}
#endif

#endif /* STRATA_PLUGIN_H */
