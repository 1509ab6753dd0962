#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan, STRATA_FUZZ=ON) and runs each for a fixed
# budget, one after another. Fails on any crash, sanitizer report, leak, timeout or
# out-of-memory; prints the executions each target reached.
#
#   tests/fuzz/run-fuzzers.sh [seconds per target, default 60] [target ...]
#   tests/fuzz/run-fuzzers.sh --build-only    # configure and build every target, run nothing
#
# The README's test command runs every target for a few seconds over its seeds (the ctest test
# `fuzz_smoke`, tests/CMakeLists.txt), so that the harness cannot break unseen.
#
# Environment: STRATA_FUZZ_BUILD  build folder (default build-fuzz), STRATA_FUZZ_JOBS build
# parallelism (default 1). Seeds: generated (make_seeds.py, make_store_seeds) into the build
# folder, plus ../shared/data when present; what the fuzzer adds is kept in
# <build>/fuzz-corpus/<target> between runs. Crashing inputs land in <build>/fuzz-artifacts/.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$here/../.." && pwd)
build=${STRATA_FUZZ_BUILD:-$source_dir/build-fuzz}
build_only=0
[[ ${1:-} == --build-only ]] && build_only=1 && shift
seconds=${1:-60}
shift || true
targets=("$@")
if ((${#targets[@]} == 0)); then
  targets=(fuzz_safetensors fuzz_hf_config fuzz_tokenizer_json fuzz_tokenizer_encode
           fuzz_llama2c_checkpoint fuzz_llama2c_tokenizer fuzz_activation_store fuzz_gguf)
fi
shared=$source_dir/../shared/data

if [[ ! -f $build/build.ninja ]]; then  # also after a configure that failed
  CC=clang CXX=clang++ cmake -S "$source_dir" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DSTRATA_FUZZ=ON -DSTRATA_GUI=OFF -DSTRATA_TESTS=OFF -DSTRATA_CUDA=OFF
fi
cmake --build "$build" -j "${STRATA_FUZZ_JOBS:-1}" --target "${targets[@]}" make_store_seeds
((build_only)) && exit 0

seeds=$build/fuzz-seeds
python3 "$here/make_seeds.py" "$seeds"
"$build/tests/fuzz/make_store_seeds" "$seeds/fuzz_activation_store"
mkdir -p "$build/fuzz-artifacts"

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:allocator_may_return_null=0
export LSAN_OPTIONS=suppressions=$source_dir/tests/fuzz/lsan.supp  # libhdf5's own leaks
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
summary=()
status=0
for target in "${targets[@]}"; do
  corpus=$build/fuzz-corpus/$target
  mkdir -p "$corpus"
  extra=("$seeds/$target")
  [[ -d $here/regressions/$target ]] && extra+=("$here/regressions/$target")
  case $target in
    fuzz_llama2c_tokenizer) [[ -f $shared/models/stories260K/tok512.bin ]] &&
                            extra+=("$shared/models/stories260K") ;;
  esac
  max_len=65536
  [[ $target == fuzz_gguf ]] && max_len=300000  # its K-quant seed has rows of 256 elements
  dict=()
  case $target in
    fuzz_hf_config | fuzz_tokenizer_json | fuzz_safetensors) dict=(-dict="$here/json.dict") ;;
  esac
  log=$build/fuzz-artifacts/$target.log
  echo "== $target: ${seconds}s"
  set +e
  "$build/tests/fuzz/$target" "$corpus" "${extra[@]}" "${dict[@]}" \
    -max_total_time="$seconds" -rss_limit_mb=2048 -malloc_limit_mb=1024 -timeout=10 \
    -max_len="$max_len" -print_final_stats=1 -artifact_prefix="$build/fuzz-artifacts/$target-" \
    >"$log" 2>&1
  rc=$?
  set -e
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 || true)
  if ((rc != 0)); then
    status=1
    summary+=("$target: FAILED (exit $rc) after $runs executions, see $log")
    grep -m 5 -E 'ERROR|runtime error|Test unit written|SUMMARY' "$log" || true
  else
    summary+=("$target: $runs executions, $cov, corpus $(ls "$corpus" | wc -l) files")
  fi
done
echo
printf '%s\n' "${summary[@]}"
exit $status
