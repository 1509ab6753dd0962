#!/usr/bin/env bash
# The GPU proof in one command (DEVELOPERS.md, "GPU device check"): runs the CUDA tests and the
# GPU benchmarks on a lent GPU machine and writes what it saw:
#   $OUT/device-check.json   every figure, pass/fail and seconds per phase, date, GPU, versions
#   $OUT/device-check.log    the whole log
#
#   scripts/device-check.sh --pack [--no-build]   here: build and pack the programs
#                                      (scripts/device-pack.sh) into device-pack/ (carry it)
#   scripts/device-check.sh --run-packed   there (the device tool's `run`; $OUT is set): unpack
#                                      device-pack/, recreate the paths compiled into the
#                                      programs, run; nothing is built on the GPU machine
#   scripts/device-check.sh            there: --run-packed when device-pack/ is present, else
#                                      --build
#   scripts/device-check.sh --rehearse   here, on a CPU: pack, then the packed run in a fresh
#                                      place where none of the compiled-in paths exist
#                                      (scripts/device-rehearse.sh)
#   scripts/device-check.sh --build    there, the fallback when the machine's torch is not the
#                                      one packed against: build against its torch and the Debian
#                                      packages of device-deps/ (scripts/fetch-device-deps.sh;
#                                      carry device-deps/debs), then run
#   scripts/device-check.sh --rehearse-build   here, on a CPU: that build against the same
#                                      unpacked packages, then the same run
#   --on-cpu (with --run-packed): on a CPU without a GPU (the rehearsal): the CUDA tests may
#   skip, their backbone and training comparisons run on the CPU too, the benchmarks at toy size,
#   nothing timed.
#
# Each phase runs under `timeout`, so the JSON and the log are written even when one runs out of
# time. Fails (exit 1) when any phase failed, and when the CUDA tests were SKIPPED on a machine
# with a GPU, so that a broken driver can never pass for a success.
#
# Environment: OUT (default device-pack/out, build-device/out), STRATA_PYTHON (default: python3
#   there, Strata's environment when rehearsing a build), DEVICE_CHECK_PACK (the pack folder,
#   default device-pack), DEVICE_CHECK_UNPACK (where it is unpacked, default /tmp/strata-packed,
#   replaced each run), DEVICE_CHECK_SHARED (the shared data folder, default ../shared beside the
#   checkout), DEVICE_CHECK_EXPOSE (all: every carried library, not only those whose soname the
#   machine lacks), DEVICE_CHECK_FILTER (the CUDA tests' gtest filter), DEVICE_CHECK_BENCH_ARGS
#   (extra bench/device_benchmarks.py options, e.g. "--parts proxies"), DEVICE_CHECK_TOTAL and
#   DEVICE_CHECK_BUDGET_<PHASE> seconds (UNPACK, CONFIGURE, BUILD, TESTS, BENCH),
#   DEVICE_CHECK_PHASES (default "tests bench": a second call can ask for "bench" alone); build
#   modes: JOBS, CUDACXX, DEVICE_CHECK_TARGETS, DEVICE_CHECK_PCH (OFF: no precompiled LibTorch header).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
root=$PWD

mode=
on_cpu=0
build=build-device
deps=device-deps
pack_dir=${DEVICE_CHECK_PACK:-$root/device-pack}
while [[ $# -gt 0 ]]; do
  case $1 in
    --pack) shift; exec bash scripts/device-pack.sh "$@" ;;
    --rehearse) shift; exec bash scripts/device-rehearse.sh "$@" ;;
    --run-packed) mode=packed ;;
    --on-cpu) on_cpu=1 ;;
    --build) mode=device ;;
    --rehearse-build) mode=rehearse ;;
    --build-dir) build=$2; shift ;;
    --deps) deps=$2; shift ;;
    *) echo "device-check: unknown option $1 (--pack, --run-packed [--on-cpu], --rehearse, --build," \
            "--rehearse-build, --build-dir DIR, --deps DIR)" >&2; exit 2 ;;
  esac
  shift
done
archive=$pack_dir/strata-device-pack.tar.xz
if [[ -z $mode ]]; then
  mode=device
  [[ -f $archive ]] && mode=packed
fi
# Where a GPU is expected: a SKIPPED CUDA test is then a failure, and the benchmarks run full size.
gpu_expected=1
[[ $mode == rehearse || $on_cpu == 1 ]] && gpu_expected=0

if [[ $mode == packed ]]; then
  OUT=${OUT:-$pack_dir/out}
  unpack=${DEVICE_CHECK_UNPACK:-/tmp/strata-packed}
  state=$unpack.state           # per-phase results, merged into the JSON at the end
else
  OUT=${OUT:-$root/$build/out}
  state=$root/$build/device-check
fi
mkdir -p "$OUT" "$state"
OUT=$(cd "$OUT" && pwd)
log=$OUT/device-check.log
rm -f "$state"/*.json "$state"/*.txt
exec > >(tee "$log") 2>&1
started=$(date +%s)
echo "== device-check ($mode$([[ $on_cpu == 1 ]] && echo ", on the CPU")) $(date -u +%FT%TZ) in $root"

# Budgets (seconds). On the device the whole check must end inside one call of the device tool
# (600 s at most; the session has 15 minutes of machine time in all): DEVICE_CHECK_TOTAL from the
# start, and each phase gets at most its own budget and what is left before the deadline minus
# what the later phases need. The packed run (the first one took 249 s for tests and benchmarks)
# has 420 s; a build there 570 s, the build alone 400 of them. On a CPU nothing is timed.
if [[ $gpu_expected == 1 && $mode == packed ]]; then
  total=${DEVICE_CHECK_TOTAL:-420}
elif [[ $gpu_expected == 1 ]]; then
  total=${DEVICE_CHECK_TOTAL:-570}
else
  total=${DEVICE_CHECK_TOTAL:-36000}
fi
if [[ $gpu_expected == 1 ]]; then
  budget_unpack=${DEVICE_CHECK_BUDGET_UNPACK:-60}
  budget_configure=${DEVICE_CHECK_BUDGET_CONFIGURE:-90}
  budget_build=${DEVICE_CHECK_BUDGET_BUILD:-400}
  budget_tests=${DEVICE_CHECK_BUDGET_TESTS:-150}
  budget_bench=${DEVICE_CHECK_BUDGET_BENCH:-300}
  jobs=${JOBS:-$(nproc)}
else
  budget_unpack=${DEVICE_CHECK_BUDGET_UNPACK:-600}
  budget_configure=${DEVICE_CHECK_BUDGET_CONFIGURE:-1200}
  budget_build=${DEVICE_CHECK_BUDGET_BUILD:-14400}
  budget_tests=${DEVICE_CHECK_BUDGET_TESTS:-3600}
  budget_bench=${DEVICE_CHECK_BUDGET_BENCH:-3600}
  jobs=${JOBS:-1}
fi
deadline=$((started + total))
# within BUDGET RESERVE: the phase's budget, cut to what is left before the deadline minus what
# the later phases need.
within() {
  local left=$((deadline - $(date +%s) - $2))
  ((left < 10)) && left=10
  echo $(($1 < left ? $1 : left))
}
targets=${DEVICE_CHECK_TARGETS:-"strata-cli strata_device_tests strata-geometry-bench"}
filter=${DEVICE_CHECK_FILTER:-'GeometryCuda*:Cuda*'}

# record NAME VERDICT EXIT SECONDS: one phase's result, for the JSON.
record() { printf '%s\t%s\t%s\n' "$2" "$3" "$4" >"$state/$1.txt"; }
# phase NAME BUDGET COMMAND...: runs, times and records one phase.
phase() {
  local name=$1 budget=$2
  shift 2
  echo
  echo "== $name (budget ${budget}s): $*"
  local t0=$(date +%s) rc
  timeout --kill-after=10 "$budget" "$@"
  rc=$?
  local seconds=$(($(date +%s) - t0))
  local verdict=passed
  [[ $rc -eq 0 ]] || verdict=failed
  [[ $rc -eq 124 || $rc -eq 137 ]] && verdict="timed out"
  record "$name" "$verdict" "$rc" "$seconds"
  echo "== $name: $verdict (exit $rc, ${seconds}s)"
  return $rc
}

# --- The machine -------------------------------------------------------------------------------
echo "== nvidia-smi"
gpu_name=none
cap=
if nvidia-smi; then
  gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
  cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d '. ')
elif [[ $gpu_expected == 1 ]]; then
  echo "device-check: nvidia-smi failed: no usable NVIDIA driver or GPU here (--rehearse on a CPU)" >&2
fi

if [[ $mode == rehearse ]]; then
  python=${STRATA_PYTHON:-$HOME/.local/share/strata/venv/bin/python}
else
  python=${STRATA_PYTHON:-$(command -v python3)}
fi
echo "== python: $python ($("$python" -c 'import sys, torch, transformers; print(sys.version.split()[0], "torch", torch.__version__, "transformers", transformers.__version__, "cuda available", torch.cuda.is_available())' 2>&1))"
echo "== $(nproc) cores; $(free -g 2>/dev/null | awk '/^Mem/ {print $2 " GiB memory"}')"

if [[ $mode == packed ]]; then
  # === The packed programs (scripts/device-pack.sh), unpacked by scripts/device-unpack.sh ========
  # It checks the torch version, makes the compiled-in paths exist as links and chooses the
  # carried libraries the loader sees; its decisions come back in $state/unpacked.env (shell)
  # and $state/unpacked.json (for the report).
  phase unpack "$(within "$budget_unpack" 120)" bash scripts/device-unpack.sh "$archive" "$unpack" \
    "$python" "$state" "$cap"
  ready=$?
  bindir='' srcdir=''
  if [[ $ready -eq 3 ]]; then   # refused: another torch there (the message is above)
    record unpack refused 3 "$(cut -f3 "$state/unpack.txt")"
  fi
  if [[ $ready -eq 0 ]]; then
    # shellcheck source=/dev/null
    source "$state/unpacked.env"   # m_source, m_build, runtime
    export LD_LIBRARY_PATH=$runtime${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    bindir=$m_build
    srcdir=$m_source
    # Run from the checkout's compiled-in path, as the programs were run where they were built.
    cd "$srcdir" || ready=1
  else
    echo "device-check: the pack could not be used (above): nothing ran" >&2
  fi
else
  # === A build on this machine ===================================================================
  archs=${CUDA_ARCHS:-${cap:-90}}
  # nvcc: CUDACXX, PATH, the usual toolkit folder, or the pip `cuda-toolkit` wheel beside torch.
  nvcc=${CUDACXX:-$(command -v nvcc || true)}
  if [[ -z $nvcc ]]; then
    for candidate in /usr/local/cuda/bin/nvcc $("$python" -c 'import glob, site
print(" ".join(p for d in site.getsitepackages() for p in glob.glob(d + "/nvidia/cu*/bin/nvcc")))' 2>/dev/null); do
      if [[ -x $candidate ]]; then nvcc=$candidate; break; fi
    done
  fi
  nvcc=${nvcc:-/usr/local/cuda/bin/nvcc}
  compiler=${CXX:-$(command -v c++ || command -v g++)}
  echo "== nvcc: $nvcc ($("$nvcc" --version 2>&1 | tail -n 1))"
  echo "== c++: $compiler ($("$compiler" --version 2>&1 | head -n 1)); cmake $(cmake --version | head -n 1); ninja $(ninja --version 2>/dev/null || echo absent)"

  # The carried packages.
  prefix=$root/$deps/prefix
  if [[ ! -d $prefix/usr || $deps/debs -nt $prefix ]]; then
    bash scripts/unpack-device-deps.sh "$deps" || { echo "device-check: cannot unpack $deps/debs" >&2; exit 2; }
  fi
  lib=$prefix/usr/lib/x86_64-linux-gnu
  # The loader sees the carried runtime libraries whose soname this machine lacks (all of them when
  # rehearsing, as on a bare machine); the ones it has stay the system's, so nothing the machine's
  # own Python loads is shadowed by an older Debian copy.
  runtime=$root/$deps/runtime
  rm -rf "$runtime"
  mkdir -p "$runtime"
  system_sonames=$(ldconfig -p 2>/dev/null | awk '{print $1}')
  exposed=()
  for so in "$lib"/*.so.* "$lib"/openblas-pthread/*.so.*; do
    [[ -e $so ]] || continue
    name=$(basename "$so")
    [[ $name =~ \.so\.[0-9]+$ ]] || continue   # sonames only (libfoo.so.N), not full versions
    if [[ $mode == rehearse ]] || ! grep -qxF "$name" <<<"$system_sonames"; then
      ln -sfn "$so" "$runtime/$name"
      exposed+=("$name")
    fi
  done
  echo "== carried runtime libraries used (${#exposed[@]}): ${exposed[*]}"
  export LD_LIBRARY_PATH=$runtime${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  # Headers that no CMake package names (Spectra, gloo, cblas.h) come from the prefix too.
  export CPATH=$prefix/usr/include:$prefix/usr/include/x86_64-linux-gnu/openblas-pthread${CPATH:+:$CPATH}
  export PKG_CONFIG_LIBDIR=$lib/pkgconfig:$prefix/usr/share/pkgconfig
  pkg_config=$(command -v pkg-config || echo "$prefix/usr/bin/pkgconf")
  if [[ $mode == rehearse ]]; then pkg_config=$prefix/usr/bin/pkgconf; fi

  configure_args=(
    -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DSTRATA_GUI=OFF -DSTRATA_CUDA=ON
    -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_ARCHITECTURES="$archs"
    -DTORCH_CUDA_ARCH_LIST="${archs:0:-1}.${archs: -1}"
    -DSTRATA_PYTHON="$python"
    -DCMAKE_PREFIX_PATH="$prefix/usr"
    -DHDF5_ROOT="$lib/hdf5/serial"
    -DBLA_VENDOR=OpenBLAS -DCMAKE_LIBRARY_PATH="$lib/openblas-pthread"
    -DPKG_CONFIG_EXECUTABLE="$pkg_config"
    "-DCMAKE_EXE_LINKER_FLAGS=-Wl,-rpath-link,$runtime"
    "-DCMAKE_SHARED_LINKER_FLAGS=-Wl,-rpath-link,$runtime"
    "-DCMAKE_MODULE_LINKER_FLAGS=-Wl,-rpath-link,$runtime"
    # A CMake 4 there refuses packages whose files ask for policies older than 3.5.
    -DCMAKE_POLICY_VERSION_MINIMUM=3.5
    # The torch files' precompiled header (cmake/torch_precompiled_header.cmake), as everywhere.
    -DSTRATA_PRECOMPILE_TORCH="${DEVICE_CHECK_PCH:-ON}"
  )
  command -v ninja >/dev/null && configure_args+=(-G Ninja)
  if [[ $mode == rehearse ]]; then
    # As on the bare machine: nothing of this machine's /usr may be found (the compiler's own
    # headers and glibc aside), except ccache, named explicitly.
    configure_args+=(-DCMAKE_IGNORE_PREFIX_PATH=/usr)
    command -v ccache >/dev/null && configure_args+=(-DCCACHE_PROGRAM="$(command -v ccache)")
    export CCACHE_BASEDIR=$root
  fi

  check_found() {  # every package the build found must come from the prefix (or the torch wheel)
    local cache=$build/CMakeCache.txt bad=0 key value
    for key in Eigen3_DIR nlohmann_json_DIR GTest_DIR HDF5_C_INCLUDE_DIR HDF5_hdf5_LIBRARY_RELEASE \
               BLAS_openblas_LIBRARY PCRE2_INCLUDEDIR UTF8PROC_INCLUDEDIR; do
      value=$(grep -m 1 "^$key:" "$cache" | cut -d= -f2-)
      [[ -z $value ]] && continue
      echo "   $key = $value"
      if [[ $value != "$prefix"* ]]; then
        echo "device-check: $key was found outside $prefix: $value" >&2
        bad=1
      fi
    done
    return $bad
  }

  if phase configure "$(within "$budget_configure" 200)" cmake "${configure_args[@]}" && check_found; then
    # shellcheck disable=SC2086
    phase build "$(within "$budget_build" 150)" cmake --build "$build" -j "$jobs" --target $targets
  fi
  # What was built runs, even after a failed or timed-out build (a second call continues it).
  ready=0
  bindir=$root/$build
  srcdir=$root
fi

# --- CUDA tests --------------------------------------------------------------------------------
# "${console[@]}" FILE COMMAND...: runs COMMAND, its output also kept in FILE (a command line,
# not a function, so that `timeout` can run it). GoogleTest writes its JSON only at the end, so
# when `timeout` cuts a run short the report reads the console instead.
console=(bash -c 'out=$1; shift; "$@" 2>&1 | tee "$out"; exit "${PIPESTATUS[0]}"' console)
tests_json=$state/tests-gtest.json
wanted=" ${DEVICE_CHECK_PHASES:-tests bench} "
if [[ $wanted != *" tests "* ]]; then
  echo "== tests: not asked for (DEVICE_CHECK_PHASES=$wanted)"
  record tests "not asked" - 0
  [[ $gpu_expected == 0 ]] && record tests_on_cpu "not asked" - 0
elif [[ $ready -eq 0 && -x $bindir/tests/strata_device_tests ]]; then
  # A fixed cuBLAS workspace: deterministic products, so that resumed training can match exactly.
  phase tests "$(within "$budget_tests" 60)" "${console[@]}" "$state/tests.out" env OMP_WAIT_POLICY=PASSIVE \
    STRATA_PYTHON="$python" CUBLAS_WORKSPACE_CONFIG=:4096:8 \
    "$bindir/tests/strata_device_tests" --gtest_filter="$filter" --gtest_color=no \
    --gtest_output="json:$tests_json"
  skipped=$(grep -c '"result": "SKIPPED"' "$tests_json" 2>/dev/null || true)
  echo "== tests: ${skipped:-0} skipped"
  if [[ $gpu_expected == 1 && ${skipped:-0} -gt 0 ]]; then
    echo "device-check: $skipped CUDA tests were SKIPPED on a machine with a GPU (their reasons are above)" >&2
    record tests failed skipped 0
  fi
  if [[ $gpu_expected == 0 ]]; then
    # No GPU here: the backbone and training comparisons run on the CPU instead, so that their
    # code has run before the device run (the geometry comparison needs the CUDA backend).
    phase tests_on_cpu "$(within "$budget_tests" 60)" "${console[@]}" "$state/tests-on-cpu.out" env \
      OMP_WAIT_POLICY=PASSIVE STRATA_PYTHON="$python" \
      STRATA_CUDA_TESTS_ON_CPU=1 "$bindir/tests/strata_device_tests" --gtest_color=no \
      --gtest_filter='Cuda/CudaTraining.*:Cuda/CudaReferenceModels.*' --gtest_output="json:$state/tests-on-cpu.json"
  fi
elif [[ $ready -ne 0 ]]; then
  echo "device-check: no programs to run (above): the CUDA tests did not run" >&2
else
  echo "device-check: no $bindir/tests/strata_device_tests: the CUDA tests did not run" >&2
fi

# --- Benchmarks --------------------------------------------------------------------------------
bench_json=$state/bench.json
if [[ $wanted != *" bench "* ]]; then
  echo "== bench: not asked for (DEVICE_CHECK_PHASES=$wanted)"
  record bench "not asked" - 0
elif [[ $ready -eq 0 && -x $bindir/app/cli/strata-cli && -x $bindir/bench/strata-geometry-bench ]]; then
  size=full
  [[ $gpu_expected == 0 ]] && size=tiny
  bench_budget=$(within "$budget_bench" 15)
  # shellcheck disable=SC2086
  phase bench "$bench_budget" env PYTHONUNBUFFERED=1 OMP_WAIT_POLICY=PASSIVE STRATA_PYTHON="$python" "$python" \
    "$srcdir/bench/device_benchmarks.py" "$bindir" --size "$size" --out "$bench_json" --budget $((bench_budget - 10)) \
    ${DEVICE_CHECK_BENCH_ARGS:-}
else
  echo "device-check: no strata-cli or strata-geometry-bench to run (above): no benchmarks" >&2
fi

# --- The JSON ----------------------------------------------------------------------------------
phases=(tests bench)
[[ $mode == packed ]] && phases=(unpack "${phases[@]}") || phases=(configure build "${phases[@]}")
[[ $gpu_expected == 0 ]] && phases+=(tests_on_cpu)
"$python" - "$state" "$OUT/device-check.json" "$mode" "$gpu_name" "$started" "$jobs" "$on_cpu" "${phases[@]}" <<'EOF'
import json, os, platform, re, socket, subprocess, sys, time
(state, out, mode, gpu, started, jobs, on_cpu), names = sys.argv[1:8], sys.argv[8:]
phases = {}
for name in names:
    path = os.path.join(state, name + ".txt")
    if os.path.exists(path):
        verdict, code, seconds = open(path).read().strip().split("\t")
        phases[name] = {"result": verdict, "exit": code, "seconds": int(seconds)}
        if verdict == "not asked":
            phases[name] = {"result": verdict}
    else:
        phases[name] = {"result": "not run"}
def load(name):
    path = os.path.join(state, name)
    try:
        return json.load(open(path))
    except Exception as e:
        return {"missing": f"{path}: {e}"}
def from_console(name, missing):
    """A cut-short run's results, read from its console output (tests.out beside tests-gtest.json)."""
    path = os.path.join(state, {"tests-gtest.json": "tests.out", "tests-on-cpu.json": "tests-on-cpu.out"}[name])
    if not os.path.exists(path):
        return missing
    started, results = [], {}
    for line in open(path, errors="replace"):
        run = re.match(r"\[ RUN      \] (\S+)", line)
        if run:
            started.append(run.group(1))
        done = re.match(r"\[\s*(OK|FAILED|SKIPPED)\s*\] (\S+) \((\d+) ms\)", line)
        if done:
            results[done.group(2)] = (done.group(1), int(done.group(3)) / 1000)
    return {"from": "console output: no JSON, the run was cut short", "total": len(started),
            "failed": [t for t, (r, _) in results.items() if r == "FAILED"],
            "skipped": [t for t, (r, _) in results.items() if r == "SKIPPED"],
            "unfinished": [t for t in started if t not in results],
            "seconds": {t: f"{sec}s" for t, (_, sec) in results.items()}}
def summary(name):
    tests = load(name)
    if "testsuites" not in tests:
        return from_console(name, tests)
    cases = [t for s in tests["testsuites"] for t in s.get("testsuite", [])]
    return {"total": len(cases),
            "failed": [t["classname"] + "." + t["name"] for t in cases if t.get("failures")],
            "skipped": [t["classname"] + "." + t["name"] for t in cases if t.get("result") == "SKIPPED"],
            "seconds": {t["classname"] + "." + t["name"]: t.get("time") for t in cases}}
try:
    import torch
    versions = {"torch": torch.__version__, "cuda": torch.version.cuda}
    import transformers
    versions["transformers"] = transformers.__version__
except Exception as e:
    versions = {"error": str(e)}
try:
    driver = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                            capture_output=True, text=True, timeout=20).stdout.strip()
    if driver:
        versions["driver"] = driver
except Exception:
    pass
report = {"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "mode": mode,
          "on_cpu": on_cpu == "1", "gpu": gpu,
          "host": socket.gethostname(), "cpu_cores": os.cpu_count(), "jobs": int(jobs),
          "python": sys.executable, "python_version": platform.python_version(),
          "versions": versions, "wall_seconds": int(time.time()) - int(started),
          "phases": phases, "tests": summary("tests-gtest.json"), "benchmarks": load("bench.json")}
if mode == "packed":
    report["pack"] = load("unpacked.json")
if "tests_on_cpu" in phases:
    report["tests_on_cpu"] = summary("tests-on-cpu.json")
report["passed"] = all(p["result"] in ("passed", "not asked") for p in phases.values())
json.dump(report, open(out, "w"), indent=2)
print(json.dumps({k: report[k] for k in ("date", "mode", "gpu", "wall_seconds", "phases", "passed")}, indent=2))
EOF

status=0
for name in "${phases[@]}"; do
  result=$(cut -f1 "$state/$name.txt" 2>/dev/null)
  [[ $result == passed || $result == "not asked" ]] || status=1
done
echo
if [[ $status -eq 0 ]]; then echo "device-check: passed"; else echo "device-check: FAILED (see above)" >&2; fi
echo "device-check: wrote $OUT/device-check.json and $OUT/device-check.log ($(($(date +%s) - started))s)"
exit $status
