#!/usr/bin/env bash
# .ci/fuzz.sh: builds the libFuzzer targets of fuzz/ (clang-14, wick instrumented with
# -fsanitize=fuzzer-no-link,address,undefined; CPU only) in build-fuzz/, replays each committed
# seed corpus, then fuzzes each target for a bounded time and fails on any crash, sanitizer
# report, leak, timeout or out-of-memory. Crashing inputs are kept in build-fuzz/artifacts/.
# See docs/reliability.md (what each target checks, how to reproduce a crash).
#
#   .ci/fuzz.sh                      # 60 s per target
#   WICK_FUZZ_SECONDS=600 .ci/fuzz.sh ops      # one target, longer
#   WICK_FUZZ_JOBS=2                 # parallel fuzzing processes per target (libFuzzer -fork)
#   WICK_FUZZ_SKIP_KNOWN=OFF         # also hit the bugs already reported in tests/regress
#
# Work corpora grow in build-fuzz/corpus/<target> (seeded from fuzz/corpus/<target>); keeping
# build-fuzz between runs keeps them, so every run starts where the last one stopped.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${WICK_FUZZ_SECONDS:-60}
jobs=${WICK_FUZZ_JOBS:-1}
build=${WICK_FUZZ_BUILD:-build-fuzz}
skip_known=${WICK_FUZZ_SKIP_KNOWN:-ON}
targets=("$@")
(( ${#targets[@]} )) || targets=(ops safetensors autograd)
start=$(date +%s)

cxx=${WICK_FUZZ_CXX:-clang++-14}
if ! echo 'int main() { return 0; }' | "$cxx" -x c++ - -fsanitize=fuzzer-no-link,address,undefined \
    -o /dev/null 2>/dev/null; then
  echo "fuzz: $cxx cannot link the sanitizers; install clang-14 libclang-rt-14-dev llvm-14" >&2
  exit 1
fi
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
mkdir -p "$build"
cmake -G Ninja -S fuzz -B "$build" -DCMAKE_CXX_COMPILER="$cxx" \
  "${launcher[@]}" -DWICK_FUZZ_SKIP_KNOWN="$skip_known" >"$build/configure.log" ||
  { cat "$build/configure.log"; exit 1; }
cmake --build "$build" -j "${WICK_FUZZ_BUILD_JOBS:-2}" -- $(printf 'fuzz_%s ' "${targets[@]}")
echo "fuzz: built in $(( $(date +%s) - start )) s"

# The fuzzers run kernels on small tensors: one OpenMP thread each (parallelism comes from
# -fork). allocator_may_return_null: a request past ASan's 1 TiB cap returns null as malloc
# does, so wick's OutOfMemoryError path runs instead of ASan aborting (the targets also set it).
export OMP_NUM_THREADS=1
export ASAN_OPTIONS="allocator_may_return_null=1:detect_leaks=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
export TMPDIR
TMPDIR=$(mktemp -d)
trap 'rm -rf "$TMPDIR"' EXIT

status=0
summary=()
for target in "${targets[@]}"; do
  binary="$PWD/$build/fuzz_$target"
  seeds="$PWD/fuzz/corpus/$target"
  corpus="$PWD/$build/corpus/$target"
  artifacts="$PWD/$build/artifacts/$target"
  mkdir -p "$corpus" "$artifacts"
  export WICK_FUZZ_ARTIFACTS="$artifacts"  # fuzz_ops writes a sanitizer report's input there
  # 1. Every committed seed must pass (a regression check that needs no luck).
  if ! "$binary" -runs=0 "$seeds" >"$build/replay-$target.log" 2>&1; then
    echo "fuzz: replaying fuzz/corpus/$target failed:"; tail -40 "$build/replay-$target.log"
    status=1; summary+=("$target: seed replay FAILED"); continue
  fi
  # 2. Fuzz for a bounded time. -rss_limit_mb / -malloc_limit_mb: 2 GiB, libFuzzer's default,
  # stated. -timeout: one input may take at most 10 s (gradcheck programs take milliseconds).
  extra=(-timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048 -max_len=4096
         -artifact_prefix="$artifacts/" -print_final_stats=1)
  [[ $target == safetensors ]] && extra+=(-dict="$PWD/fuzz/safetensors.dict")
  log="$build/fuzz-$target.log"
  if (( jobs > 1 )); then
    extra+=(-fork="$jobs" -ignore_crashes=0)
  fi
  set +e
  "$binary" "${extra[@]}" -max_total_time="$seconds" "$corpus" "$seeds" >"$log" 2>&1
  rc=$?
  set -e
  # grep finds nothing in a -fork log (no final stats) or a crashed one; under pipefail that
  # would end the script here, silently, so each grep is allowed to find nothing.
  runs=$({ grep -E '^stat::number_of_executed_units' "$log" || true; } |
         awk '{s += $2} END {print s + 0}')
  if (( runs == 0 )); then  # -fork prints no final stats; take the last status line
    runs=$({ grep -oE '^#[0-9]+' "$log" || true; } | tail -1 | tr -d '#')
  fi
  if (( rc != 0 )); then
    echo "fuzz: $target FAILED (exit $rc) after ${runs:-?} executions; the end of $log:"
    { grep -v -E '^#[0-9]+|NEW_FUNC' "$log" || true; } | tail -60
    ls "$artifacts"
    status=1; summary+=("$target: FAILED after ${runs:-?} executions")
  else
    summary+=("$target: ${runs:-?} executions in ${seconds} s, no crash")
  fi
done
echo "fuzz: summary (total $(( $(date +%s) - start )) s)"
printf '  %s\n' "${summary[@]}"
exit $status
