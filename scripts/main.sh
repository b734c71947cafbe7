#!/usr/bin/env bash
# main.sh: the README's main job. Installs what is missing, builds Release, runs the two seed
# programs, then the CPU benchmarks (and the GPU benchmarks when a GPU answers), writing the
# raw Google Benchmark JSON and a short summary under report/ (or the folder given).
# Usage: scripts/main.sh [--quick] [--cpu-only] [OUTPUT_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
quick=0; cpu_only=0; out=$root/report
for arg in "$@"; do
  case "$arg" in
    --quick) quick=1 ;;
    --cpu-only) cpu_only=1 ;;
    -h|--help) sed -n '2,5p' "$0"; exit 0 ;;
    *) out=$arg ;;
  esac
done
build=${BUILD_DIR:-$root/build-release}
"$root/scripts/install-deps.sh"
[ -x /usr/local/cuda/bin/nvcc ] && export PATH=/usr/local/cuda/bin:$PATH
mkdir -p "$out"

echo "== build (Release, $build)"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DWICK_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j "$(nproc)"

echo "== seed program 1: examples/matmul"
"$build/examples/matmul" | tee "$out/matmul.txt"
echo "== seed program 2: examples/train_linear"
"$build/examples/train_linear" | tee "$out/train_linear.txt"
[ -x "$build/examples/train_mlp" ] && "$build/examples/train_mlp" | tail -n 3 | tee "$out/train_mlp.txt"

min_time=0.5; [ $quick = 1 ] && min_time=0.05
quiet="$root/../shared/tools/quiet-run"; [ -x "$quiet" ] || quiet=""
run_bench() {  # name, binary, extra args...
  local name=$1 bin=$2; shift 2
  [ -x "$bin" ] || { echo "($name: not built)"; return 0; }
  echo "== benchmark: $name"
  ${quiet:+$quiet --} "$bin" --benchmark_min_time="$min_time" --benchmark_out="$out/$name.json" \
    --benchmark_out_format=json "$@"
}
run_bench cpu_ops "$build/bench/wick_bench_cpu_ops"
for bin in "$build"/bench/cpu/wick_bench_*; do
  [ -x "$bin" ] && run_bench "$(basename "$bin")" "$bin"
done
"$build/examples/device_info" | tee "$out/devices.txt"
if [ $cpu_only = 0 ] && grep -q '^cuda: yes' "$out/devices.txt"; then
  for bin in "$build"/bench/gpu/wick_bench_*; do
    [ -x "$bin" ] && run_bench "$(basename "$bin")" "$bin"
  done
else
  echo "== GPU benchmarks skipped ($( [ $cpu_only = 1 ] && echo --cpu-only || grep '^cuda:' "$out/devices.txt"))"
fi
echo "== results in $out"
ls -1 "$out"
