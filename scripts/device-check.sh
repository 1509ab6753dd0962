#!/usr/bin/env bash
# The GPU proof in one command (DEVELOPERS.md, "GPU device check"): on a lent GPU machine that has
# python3 + torch, nvcc, CMake and ninja but none of Strata's other build dependencies, builds
# the headless core, CLI, CUDA tests and benchmarks against the machine's own torch for its GPU,
# runs the CUDA tests and the GPU benchmarks, and writes what it saw:
#   $OUT/device-check.json   every figure, pass/fail and seconds per phase, date, GPU, versions
#   $OUT/device-check.log    the whole log
#
#   scripts/device-check.sh              on the GPU machine (the device tool's `run`; $OUT is set)
#   scripts/device-check.sh --rehearse   here, on a CPU: the same build against the same unpacked
#                                        packages, the CUDA tests skipping, tiny benchmarks on CPU
#
# Needs device-deps/ (scripts/fetch-device-deps.sh; only device-deps/debs has to travel: the
# prefix is unpacked from it when missing). Each phase runs under `timeout`, so the JSON and the
# log are written even when one runs out of time; a second run continues the build where the
# first stopped (the build folder, build-device/, stays on a warm machine).
# Fails (exit 1) when any phase failed, and when the CUDA tests were SKIPPED on a machine with a
# GPU, so that a broken driver can never pass for a success.
#
# Environment: OUT (default build-device/out), JOBS (default: nproc; --rehearse: 1),
#   STRATA_PYTHON (default: python3 there, Strata's environment with --rehearse), CUDACXX,
#   DEVICE_CHECK_TARGETS (default below), DEVICE_CHECK_BENCH_ARGS (extra bench/device_benchmarks.py
#   options, e.g. "--parts proxies"), DEVICE_CHECK_TOTAL and DEVICE_CHECK_BUDGET_<PHASE> seconds
#   (CONFIGURE, BUILD, TESTS, BENCH), DEVICE_CHECK_PHASES (default "tests bench": which to run
#   after the build; a second call can ask for "bench" alone), DEVICE_CHECK_PCH (ON: precompiled LibTorch headers; default OFF).
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD

mode=device
build=build-device
deps=device-deps
while [[ $# -gt 0 ]]; do
  case $1 in
    --rehearse) mode=rehearse ;;
    --build-dir) build=$2; shift ;;
    --deps) deps=$2; shift ;;
    *) echo "device-check: unknown option $1 (--rehearse, --build-dir DIR, --deps DIR)" >&2; exit 2 ;;
  esac
  shift
done

OUT=${OUT:-$root/$build/out}
mkdir -p "$OUT" "$build/device-check"
log=$OUT/device-check.log
state=$build/device-check        # per-phase results, merged into the JSON at the end
rm -f "$state"/*.json "$state"/*.txt
exec > >(tee "$log") 2>&1
started=$(date +%s)
echo "== device-check ($mode) $(date -u +%FT%TZ) in $root"

# Budgets (seconds). On the device the whole check must end inside one call of the device tool
# (600 s at most): DEVICE_CHECK_TOTAL (default 570) from the start, and each phase gets at most
# its own budget and what is left (the build leaves 150 s for the tests and benchmarks, the
# tests 60 s for the benchmarks). The rehearsal on 2 shared cores is not timed.
if [[ $mode == device ]]; then
  total=${DEVICE_CHECK_TOTAL:-570}
  budget_configure=${DEVICE_CHECK_BUDGET_CONFIGURE:-90}
  budget_build=${DEVICE_CHECK_BUDGET_BUILD:-400}
  budget_tests=${DEVICE_CHECK_BUDGET_TESTS:-150}
  budget_bench=${DEVICE_CHECK_BUDGET_BENCH:-300}
  jobs=${JOBS:-$(nproc)}
else
  total=${DEVICE_CHECK_TOTAL:-36000}
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

# phase NAME BUDGET COMMAND...: runs, times and records one phase (status in $state/NAME.txt).
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
  printf '%s\t%s\t%s\n' "$verdict" "$rc" "$seconds" >"$state/$name.txt"
  echo "== $name: $verdict (exit $rc, ${seconds}s)"
  return $rc
}

# --- The machine -------------------------------------------------------------------------------
echo "== nvidia-smi"
gpu_name=none
if nvidia-smi; then
  gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
  cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d '. ')
elif [[ $mode == device ]]; then
  echo "device-check: nvidia-smi failed: no usable NVIDIA driver or GPU here (use --rehearse on a CPU)" >&2
fi
archs=${CUDA_ARCHS:-${cap:-90}}

if [[ $mode == rehearse ]]; then
  python=${STRATA_PYTHON:-$HOME/.local/share/strata/venv/bin/python}
else
  python=${STRATA_PYTHON:-$(command -v python3)}
fi
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
echo "== python: $python ($("$python" -c 'import sys, torch, transformers; print(sys.version.split()[0], "torch", torch.__version__, "transformers", transformers.__version__, "cuda available", torch.cuda.is_available())' 2>&1))"
echo "== nvcc: $nvcc ($("$nvcc" --version 2>&1 | tail -n 1))"
echo "== c++: $compiler ($("$compiler" --version 2>&1 | head -n 1)); cmake $(cmake --version | head -n 1); ninja $(ninja --version 2>/dev/null || echo absent); $(nproc) cores"

# --- The carried packages ----------------------------------------------------------------------
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
  # Off: a precompiled <torch/torch.h> halved a heavy file's compile (31 -> 16 CPU s) but more
  # than doubled a light one's (7 -> 17 CPU s), and most files are light.
  -DSTRATA_PRECOMPILE_TORCH="${DEVICE_CHECK_PCH:-OFF}"
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

configured=0
phase configure "$(within "$budget_configure" 200)" cmake "${configure_args[@]}" && check_found && configured=1
if [[ $configured == 1 ]]; then
  # shellcheck disable=SC2086
  phase build "$(within "$budget_build" 150)" cmake --build "$build" -j "$jobs" --target $targets
fi

# --- CUDA tests --------------------------------------------------------------------------------
tests_json=$state/tests-gtest.json
wanted=" ${DEVICE_CHECK_PHASES:-tests bench} "
if [[ $wanted != *" tests "* ]]; then
  echo "== tests: not asked for (DEVICE_CHECK_PHASES=$wanted)"
  printf 'not asked\t-\t0\n' >"$state/tests.txt"
  [[ $mode == rehearse ]] && printf 'not asked\t-\t0\n' >"$state/tests_on_cpu.txt"
elif [[ -x $build/tests/strata_device_tests ]]; then
  # A fixed cuBLAS workspace: deterministic products, so that resumed training can match exactly.
  phase tests "$(within "$budget_tests" 60)" env OMP_WAIT_POLICY=PASSIVE STRATA_PYTHON="$python" \
    CUBLAS_WORKSPACE_CONFIG=:4096:8 \
    "$build/tests/strata_device_tests" --gtest_filter='GeometryCuda*:Cuda*' --gtest_color=no \
    --gtest_output="json:$tests_json"
  skipped=$(grep -c '"result": "SKIPPED"' "$tests_json" 2>/dev/null || true)
  echo "== tests: ${skipped:-0} skipped"
  if [[ $mode == device && ${skipped:-0} -gt 0 ]]; then
    echo "device-check: $skipped CUDA tests were SKIPPED on a machine with a GPU (their reasons are above)" >&2
    printf 'failed\tskipped\t0\n' >"$state/tests.txt"
  fi
  if [[ $mode == rehearse ]]; then
    # No GPU here: the backbone and training comparisons run on the CPU instead, so that their
    # code has run before the device run (the geometry comparison needs the CUDA backend).
    phase tests_on_cpu "$(within "$budget_tests" 60)" env OMP_WAIT_POLICY=PASSIVE STRATA_PYTHON="$python" \
      STRATA_CUDA_TESTS_ON_CPU=1 "$build/tests/strata_device_tests" --gtest_color=no \
      --gtest_filter='Cuda/CudaTraining.*:Cuda/CudaReferenceModels.*' --gtest_output="json:$state/tests-on-cpu.json"
  fi
else
  echo "device-check: no $build/tests/strata_device_tests: the CUDA tests did not run" >&2
fi

# --- Benchmarks --------------------------------------------------------------------------------
bench_json=$state/bench.json
if [[ $wanted != *" bench "* ]]; then
  echo "== bench: not asked for (DEVICE_CHECK_PHASES=$wanted)"
  printf 'not asked\t-\t0\n' >"$state/bench.txt"
elif [[ -x $build/app/cli/strata-cli && -x $build/bench/strata-geometry-bench ]]; then
  size=full
  [[ $mode == rehearse ]] && size=tiny
  # shellcheck disable=SC2086
  bench_budget=$(within "$budget_bench" 15)
  phase bench "$bench_budget" env PYTHONUNBUFFERED=1 OMP_WAIT_POLICY=PASSIVE "$python" \
    bench/device_benchmarks.py "$build" --size "$size" --out "$bench_json" --budget $((bench_budget - 10)) \
    ${DEVICE_CHECK_BENCH_ARGS:-}
else
  echo "device-check: the CLI or the benchmark executables were not built: no benchmarks" >&2
fi

# --- The JSON ----------------------------------------------------------------------------------
"$python" - "$state" "$OUT/device-check.json" "$mode" "$gpu_name" "$started" "$jobs" <<'EOF'
import json, os, platform, socket, subprocess, sys, time
state, out, mode, gpu, started, jobs = sys.argv[1:7]
phases = {}
for name in ("configure", "build", "tests", "tests_on_cpu", "bench"):
    path = os.path.join(state, name + ".txt")
    if name == "tests_on_cpu" and mode != "rehearse":
        continue
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
def summary(name):
    tests = load(name)
    if "testsuites" not in tests:
        return tests
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
report = {"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "mode": mode, "gpu": gpu,
          "host": socket.gethostname(), "cpu_cores": os.cpu_count(), "jobs": int(jobs),
          "python": sys.executable, "python_version": platform.python_version(),
          "versions": versions, "wall_seconds": int(time.time()) - int(started),
          "phases": phases, "tests": summary("tests-gtest.json"), "benchmarks": load("bench.json")}
if mode == "rehearse":
    report["tests_on_cpu"] = summary("tests-on-cpu.json")
report["passed"] = all(p["result"] in ("passed", "not asked") for p in phases.values())
json.dump(report, open(out, "w"), indent=2)
print(json.dumps({k: report[k] for k in ("date", "mode", "gpu", "wall_seconds", "phases", "passed")}, indent=2))
EOF

status=0
phases=(configure build tests bench)
[[ $mode == rehearse ]] && phases+=(tests_on_cpu)
for name in "${phases[@]}"; do
  result=$(cut -f1 "$state/$name.txt" 2>/dev/null)
  [[ $result == passed || $result == "not asked" ]] || status=1
done
echo
if [[ $status -eq 0 ]]; then echo "device-check: passed"; else echo "device-check: FAILED (see above)" >&2; fi
echo "device-check: wrote $OUT/device-check.json and $OUT/device-check.log ($(($(date +%s) - started))s)"
exit $status
