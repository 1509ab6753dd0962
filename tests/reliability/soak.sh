#!/usr/bin/env bash
# Long-run soak: a pretrain run with evaluations and checkpoints (keep_last pruning) trains
# for DURATION while the workbench follows it live (`strata RUN`, the Training view polling
# metrics.jsonl). Every INTERVAL seconds it records, for both processes, the resident memory,
# the thread count and the open file descriptors; at the end it stops training with SIGINT,
# checks the run ended as "stopped" and resumes cleanly, and judges the samples.
#
#   tests/reliability/soak.sh BUILD_DIR [minutes, default 30] [output folder]
#
# Flat means: after the first quarter of the run (warm-up: allocator pools, the GUI's first
# plots), resident memory grows by less than 5 % + 16 MiB to the end, and the thread and file
# descriptor counts of the last sample are no higher than the largest count of the second
# quarter. Runs shorter than 4 minutes only check that everything ran (too short to judge).
# Writes <output>/soak.csv and <output>/summary.txt; exit status 0 when every check passed.
# Environment: STRATA_SOAK_INTERVAL seconds between samples (default 15).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$here/../.." && pwd)
build=$(cd "${1:?usage: soak.sh BUILD_DIR [minutes] [output folder]}" && pwd)
minutes=${2:-30}
out=${3:-$build/soak}
interval=${STRATA_SOAK_INTERVAL:-15}
cli=$build/app/cli/strata-cli
gui=$build/app/gui/strata
[[ -x $cli ]] || { echo "strata-cli not found in $build" >&2; exit 2; }
[[ -x $gui ]] || { echo "the workbench (strata) not found in $build" >&2; exit 2; }

mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/strata-soak.XXXXXX")
run=$work/run
corpus=$source_dir/../shared/data/corpora/tinyshakespeare.txt
[[ -f $corpus ]] || corpus=/usr/lib/python3.11/argparse.py
cli_pid= gui_pid=
cleanup() {
  [[ -n $gui_pid ]] && kill "$gui_pid" 2>/dev/null
  [[ -n $cli_pid ]] && kill "$cli_pid" 2>/dev/null
  wait 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
failures=0
fail() { echo "FAIL: $*" | tee -a "$out/summary.txt" >&2; failures=$((failures + 1)); }
: >"$out/summary.txt"

# One thread each: the soak measures leaks, not speed, and must not starve the machine.
export STRATA_THREADS=1 OMP_NUM_THREADS=1 QT_QPA_PLATFORM=offscreen
# Small model, frequent evaluations and checkpoints: many of each in any duration.
"$cli" train pretrain --run-dir "$run" --set corpus="$corpus" --set steps=100000000 \
  --set dim=64 --set layers=2 --set heads=4 --set mlp=176 --set seq_len=64 --set batch=8 \
  --set log_every=1 --set eval_every=25 --set eval_windows=16 --set checkpoint_every=50 \
  --set keep_last=2 --set threads=1 --set device=cpu >"$work/train.log" 2>&1 &
cli_pid=$!
for _ in $(seq 1 120); do [[ -f $run/run.json ]] && break; sleep 1; done
[[ -f $run/run.json ]] || { cat "$work/train.log" >&2; fail "training did not start"; exit 1; }
"$gui" "$run" >"$work/gui.log" 2>&1 &
gui_pid=$!

# status field: VmRSS (kB) and Threads from /proc/PID/status; fds from /proc/PID/fd.
sample() {
  local pid=$1
  if [[ ! -d /proc/$pid ]]; then echo "-,-,-"; return; fi
  local rss threads fds
  rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status")
  threads=$(awk '/^Threads:/ {print $2}' "/proc/$pid/status")
  fds=$(find "/proc/$pid/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
  echo "$rss,$threads,$fds"
}
last_step() { tail -n 50 "$run/metrics.jsonl" 2>/dev/null | grep -o '"step": *[0-9]*' | tail -1 | grep -o '[0-9]*$'; }

echo "seconds,step,train_rss_kb,train_threads,train_fds,gui_rss_kb,gui_threads,gui_fds" >"$out/soak.csv"
start=$(date +%s)
end=$((start + minutes * 60))
while (($(date +%s) < end)); do
  sleep "$interval"
  now=$(($(date +%s) - start))
  echo "$now,$(last_step),$(sample "$cli_pid"),$(sample "$gui_pid")" >>"$out/soak.csv"
  [[ -d /proc/$cli_pid ]] || { fail "training exited early (see below)"; cat "$work/train.log" >&2; break; }
  [[ -d /proc/$gui_pid ]] || { fail "the workbench exited early"; cat "$work/gui.log" >&2; break; }
done

# Stop training as a user would (Ctrl-C), then close the workbench.
kill -INT "$cli_pid" 2>/dev/null
wait "$cli_pid"
train_status=$?
cli_pid=
kill -TERM "$gui_pid" 2>/dev/null
wait "$gui_pid" 2>/dev/null
gui_pid=
grep -q '"state": *"stopped"' "$run/status.json" ||
  fail "status.json does not say stopped after Ctrl-C (exit $train_status): $(tr -d '\n' <"$run/status.json")"
stopped_at=$(last_step)
# Resume for a few more steps: nothing lost, training continues from the last checkpoint.
"$cli" resume "$run" --set stop_after=$((stopped_at + 10)) >"$work/resume.log" 2>&1 ||
  { cat "$work/resume.log" >&2; fail "resume failed"; }
resumed_at=$(last_step)
((resumed_at >= stopped_at)) || fail "resumed run ended at step $resumed_at, before $stopped_at"

python=
for candidate in ${STRATA_PYTHON:-} python3 /usr/bin/python3; do
  if "$candidate" -c 'import csv' 2>/dev/null; then python=$candidate; break; fi
done
"$python" - "$out/soak.csv" "$minutes" >>"$out/summary.txt" <<'EOF' || failures=$((failures + 1))
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["gui_rss_kb"] not in ("-", "")]
minutes = float(sys.argv[2])
if len(rows) < 2:
    print("FAIL: fewer than two samples"); sys.exit(1)
steps = [int(r["step"]) for r in rows if r["step"]]
print(f"samples: {len(rows)} over {rows[-1]['seconds']} s; steps {steps[0] if steps else '?'} → "
      f"{steps[-1] if steps else '?'}")
failed = False
for who in ("train", "gui"):
    rss = [int(r[f"{who}_rss_kb"]) for r in rows]
    threads = [int(r[f"{who}_threads"]) for r in rows]
    fds = [int(r[f"{who}_fds"]) for r in rows]
    q = max(1, len(rows) // 4)
    base = max(rss[q - 1:2 * q])  # the highest resident size of the second quarter
    growth = rss[-1] - base
    print(f"{who}: RSS {rss[0] / 1024:.1f} → {rss[q - 1] / 1024:.1f} (after warm-up) → "
          f"{rss[-1] / 1024:.1f} MiB, max {max(rss) / 1024:.1f}; threads {min(threads)}–"
          f"{max(threads)} (last {threads[-1]}); fds {min(fds)}–{max(fds)} (last {fds[-1]})")
    if minutes < 4:
        continue
    if growth > 0.05 * base + 16 * 1024:
        print(f"FAIL: {who} RSS grew by {growth / 1024:.1f} MiB after warm-up"); failed = True
    if threads[-1] > max(threads[q - 1:2 * q]):
        print(f"FAIL: {who} threads grew to {threads[-1]}"); failed = True
    if fds[-1] > max(fds[q - 1:2 * q]):
        print(f"FAIL: {who} file descriptors grew to {fds[-1]}"); failed = True
if minutes < 4:
    print("(too short to judge flatness: only checked that everything ran)")
sys.exit(1 if failed else 0)
EOF
cat "$out/summary.txt"
((failures == 0))
