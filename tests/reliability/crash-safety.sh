#!/usr/bin/env bash
# Crash safety: SIGKILL strata-cli at random moments during capture (also --overwrite over a
# finished store) and during training (checkpointing every step, so many kills land inside a
# checkpoint write), then check that every file on disk is complete and valid or absent, and
# that resuming loses nothing.
#
#   tests/reliability/crash-safety.sh [path/to/strata-cli]
#
# Environment: STRATA_CRASH_REPS  kills per phase (default 8; e.g. 200 for a long soak)
#              STRATA_CRASH_SEED  seed of the kill moments (default: random, printed)
# Needs python3 with h5py and numpy. Runs on CPU, one thread, so results are bit-identical.
# Exit status 0 when every check passed; the problems found are printed otherwise.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$here/../.." && pwd)
cli=${1:-$source_dir/build-rel/app/cli/strata-cli}
cli=$(cd "$(dirname "$cli")" && pwd)/$(basename "$cli")
reps=${STRATA_CRASH_REPS:-8}
seed=${STRATA_CRASH_SEED:-$RANDOM}
model=$source_dir/resources/models/default
[[ -x $cli ]] || { echo "strata-cli not found at $cli (pass its path)" >&2; exit 2; }
[[ -f $model/config.json ]] || { echo "model missing: $model" >&2; exit 2; }
# The first Python that has h5py (a pyenv python3 on PATH may lack Debian's python3-h5py).
python=
for candidate in ${STRATA_PYTHON:-} python3 /usr/bin/python3; do
  if "$candidate" -c 'import h5py, numpy' 2>/dev/null; then python=$candidate; break; fi
done
[[ -n $python ]] || { echo "no python3 with h5py and numpy (set STRATA_PYTHON)" >&2; exit 2; }
check="$python $here/check_files.py"

export STRATA_THREADS=1 OMP_NUM_THREADS=1
RANDOM=$seed
work=$(mktemp -d "${TMPDIR:-/tmp}/strata-crash.XXXXXX")
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
now_ms() { date +%s%3N; }

# Starts `cli "$@"` in the background, kills it with SIGKILL after a random delay in
# [0, window_ms), and waits. Sets `killed` to 1 when the kill landed before the exit.
run_and_kill() {
  local window_ms=$1
  shift
  "$cli" "$@" >"$work/last.log" 2>&1 &
  local pid=$!
  local delay_ms=$(( (RANDOM * 32768 + RANDOM) % window_ms ))
  sleep "$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))"
  killed=0
  kill -9 "$pid" 2>/dev/null && killed=1
  wait "$pid" 2>/dev/null
  last_delay_ms=$delay_ms
}

# A small corpus: text from the shared corpus when present, else generated.
corpus=$work/corpus.txt
shared_corpus=$source_dir/../shared/data/corpora/tinyshakespeare.txt
if [[ -f $shared_corpus ]]; then
  head -c 200000 "$shared_corpus" >"$corpus"
else
  for i in $(seq 1 600); do echo "the cat $i sees the ball. a dog $i finds its shadow."; echo; done >"$corpus"
fi

echo "crash-safety: $cli, $reps kills per phase, seed $seed"

# --- 1. capture --------------------------------------------------------------------------
capture_args=(capture --model "$model" --corpus "$corpus" --tokens 8192 --seq-len 64 --batch 8
              --dtype float32)
start=$(now_ms)
"$cli" "${capture_args[@]}" --out "$work/reference.h5" >"$work/last.log" 2>&1 ||
  { cat "$work/last.log"; echo "reference capture failed" >&2; exit 1; }
capture_ms=$(( $(now_ms) - start ))
echo "capture: reference run took ${capture_ms} ms"
kills=0 absent=0 partial=0 whole=0
for ((rep = 1; rep <= reps; ++rep)); do
  store=$work/capture-$rep/acts.h5
  mkdir -p "$(dirname "$store")"
  # Kill the first run, then kill the resumed run as well half of the time.
  run_and_kill $((capture_ms + 200)) "${capture_args[@]}" --out "$store"
  kills=$((kills + killed))
  state=absent
  if [[ -e $store ]]; then state=present; fi
  $check store "$store" "$work/reference.h5" || fail "capture rep $rep (killed at ${last_delay_ms} ms): store invalid"
  if ((RANDOM % 2)) && [[ -e $store ]]; then
    run_and_kill $((capture_ms + 200)) "${capture_args[@]}" --resume --out "$store"
    kills=$((kills + killed))
    $check store "$store" "$work/reference.h5" || fail "capture rep $rep: store invalid after a killed resume"
  fi
  case $state in
    absent) absent=$((absent + 1)) ;;
    *) if $python -c "import h5py,sys; f=h5py.File(sys.argv[1],'r',swmr=True); sys.exit(0 if all(f['layers_complete'][:]) else 1)" "$store" 2>/dev/null
       then whole=$((whole + 1)); else partial=$((partial + 1)); fi ;;
  esac
  resume=()
  [[ -e $store ]] && resume=(--resume)
  if ! "$cli" "${capture_args[@]}" "${resume[@]}" --out "$store" >"$work/last.log" 2>&1; then
    fail "capture rep $rep: re-running the capture failed: $(tail -n 3 "$work/last.log")"
  fi
  $check store "$store" "$work/reference.h5" || fail "capture rep $rep: completed store invalid"
  $python -c "import h5py,sys; f=h5py.File(sys.argv[1],'r'); sys.exit(0 if all(f['layers_complete'][:]) else 1)" "$store" ||
    fail "capture rep $rep: the completed store is not complete or not closed"
  extra=$(ls -A "$(dirname "$store")" | grep -v '^acts.h5$')
  [[ -z $extra ]] || fail "capture rep $rep: left behind: $extra"
  rm -rf "$(dirname "$store")"
done
echo "capture: $kills kills; after the first kill the store was absent $absent, partial $partial, complete $whole times"

# --- 1b. capture --overwrite over a finished store ---------------------------------------
# The old store must survive any kill until the new one replaces it whole: never absent, never
# a file that does not open, and nothing left behind once a capture completes.
kills=0 kept=0 replaced=0
for ((rep = 1; rep <= (reps + 1) / 2; ++rep)); do
  store=$work/overwrite-$rep/acts.h5
  mkdir -p "$(dirname "$store")"
  cp "$work/reference.h5" "$store"
  run_and_kill $((capture_ms + 200)) "${capture_args[@]}" --overwrite --out "$store"
  kills=$((kills + killed))
  if [[ ! -e $store ]]; then
    fail "overwrite rep $rep (killed at ${last_delay_ms} ms): the old store is gone"
  elif cmp -s "$store" "$work/reference.h5"; then
    kept=$((kept + 1))
  else
    replaced=$((replaced + 1))
  fi
  $check store "$store" "$work/reference.h5" || fail "overwrite rep $rep (killed at ${last_delay_ms} ms): store invalid"
  if ! "$cli" "${capture_args[@]}" --overwrite --out "$store" >"$work/last.log" 2>&1; then
    fail "overwrite rep $rep: re-running the capture failed: $(tail -n 3 "$work/last.log")"
  fi
  $check store "$store" "$work/reference.h5" || fail "overwrite rep $rep: completed store invalid"
  extra=$(ls -A "$(dirname "$store")" | grep -v '^acts.h5$')
  [[ -z $extra ]] || fail "overwrite rep $rep: left behind: $extra"
  rm -rf "$(dirname "$store")"
done
echo "capture --overwrite: $kills kills; the old store was kept $kept, replaced $replaced times"

# --- 2. training -------------------------------------------------------------------------
train_corpus=$work/train-corpus.txt
head -c 60000 "$corpus" >"$train_corpus"
settings=(--set corpus="$train_corpus" --set steps=60 --set batch=8 --set seq_len=32 --set lr=0.01
          --set warmup=3 --set dim=32 --set layers=2 --set heads=4 --set kv_heads=2 --set mlp=64
          --set seed=3 --set log_every=1 --set checkpoint_every=1 --set keep_last=3
          --set eval_windows=8 --set threads=1)
start=$(now_ms)
"$cli" train pretrain --run-dir "$work/reference-run" "${settings[@]}" >"$work/last.log" 2>&1 ||
  { cat "$work/last.log"; echo "reference training failed" >&2; exit 1; }
train_ms=$(( $(now_ms) - start ))
echo "training: reference run took ${train_ms} ms"
kills=0 rounds=0
runs=$(( (reps + 3) / 4 ))
for ((r = 1; r <= runs; ++r)); do
  run=$work/run-$r
  command=(train pretrain --run-dir "$run" "${settings[@]}")
  for ((k = 1; k <= 4 && kills < reps; ++k)); do
    run_and_kill "$train_ms" "${command[@]}"
    kills=$((kills + killed))
    rounds=$((rounds + 1))
    $check run "$run" || fail "training run $r kill $k (at ${last_delay_ms} ms): files invalid"
    if [[ -f $run/run.json ]]; then command=(resume "$run"); fi
  done
  if [[ -f $run/run.json ]]; then command=(resume "$run"); fi
  if ! "$cli" "${command[@]}" >"$work/last.log" 2>&1; then
    # A finished run refuses resume; anything else is a failure.
    grep -qi "finished" "$work/last.log" || fail "training run $r: resume failed: $(tail -n 3 "$work/last.log")"
  fi
  $check finished "$run" "$work/reference-run" || fail "training run $r: resumed run differs"
done
echo "training: $kills kills over $runs runs"

if ((failures)); then
  echo "crash-safety: $failures problem(s) (seed $seed)" >&2
  exit 1
fi
echo "crash-safety: passed (seed $seed)"
