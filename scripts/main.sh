#!/usr/bin/env bash
# main.sh: the README's main job. One command on a fresh machine: installs what is missing,
# builds Release, runs the two seed programs, runs the benchmark suite (with progress: which
# benchmark, n of N, elapsed, estimated time left), writes a report (report.md, PNG plots, the
# raw Google Benchmark JSON under raw/) and prints a short summary table.
#
# Usage: scripts/main.sh [--quick] [--cpu-only] [--no-install] [OUTPUT_DIR]
#   --quick       short runs (under 2 minutes of benchmarks on a 2-core machine): CI, first look
#   --cpu-only    build without CUDA and skip the GPU benchmarks even when a GPU answers
#   --no-install  do not call scripts/install-deps.sh (no root, no network)
#   OUTPUT_DIR    where the report goes (default: report/ in the repository)
# Environment: BUILD_DIR (default build-release), WICK_CMAKE_ARGS (extra configure arguments),
# WICK_PEERS=0 (do not install libtorch, the optional peer; OpenBLAS is always installed),
# WICK_QUIET_RUN (the load-check tool; default ../shared/tools/quiet-run, empty: the built-in check).
# How the report is made and measured: docs/report.md.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
quick=0; cpu_only=0; install=1; out=$root/report
for arg in "$@"; do
  case "$arg" in
    --quick) quick=1 ;;
    --cpu-only) cpu_only=1 ;;
    --no-install) install=0 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    -*) echo "main.sh: unknown option $arg (see --help)" >&2; exit 2 ;;
    *) out=$arg ;;
  esac
done
build=${BUILD_DIR:-$root/build-release}
mkdir -p "$out/raw"
out=$(cd "$out" && pwd)
raw=$out/raw
# Only what this script writes is replaced; stale results of an earlier run must not mix in.
rm -f "$raw"/*.json "$raw"/*.txt "$raw"/*.log "$out"/*.png "$out/report.md"
t_start=$(date +%s)
mode=$([ $quick = 1 ] && echo quick || echo full)
echo "wick main job ($mode$([ $cpu_only = 1 ] && echo ', --cpu-only')): report in $out"

fmt_s() { local s=${1%.*}; printf '%d:%02d' $((s / 60)) $((s % 60)); }
elapsed() { echo $(($(date +%s) - t_start)); }

# ---- 1. dependencies ----
if [ $install = 1 ]; then
  echo "== [setup] dependencies (scripts/install-deps.sh)"
  peers=""; [ "${WICK_PEERS:-1}" = 1 ] && peers="libtorch-dev"
  if ! command -v apt-get >/dev/null || ! command -v dpkg-query >/dev/null; then
    echo "   no apt-get/dpkg here: using what is installed"
  elif ! WICK_EXTRA_PACKAGES="${WICK_EXTRA_PACKAGES:-} $peers" timeout 300 "$root/scripts/install-deps.sh"; then
    echo "   install with the optional peer ($peers) failed; trying without it"
    timeout 300 "$root/scripts/install-deps.sh" || echo "   install-deps failed: continuing with what is installed"
  fi
fi
[ -x /usr/local/cuda/bin/nvcc ] && export PATH=/usr/local/cuda/bin:$PATH
# ccache (when installed): paths relative to the checkout, so that other clones reuse the objects.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-true}

# ---- 2. build ----
echo "== [build] Release in $build ($(fmt_s "$(elapsed)") elapsed)"
cmake_args=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DWICK_BUILD_TESTS=OFF -DWICK_BUILD_BENCH=ON
            -DWICK_BUILD_EXAMPLES=ON)
# Machines without Debian packages (the lent GPU) get Google Benchmark from bench/gpu/fetch-deps.sh.
[ -d "$root/.deps/root/usr" ] && cmake_args+=(-DCMAKE_PREFIX_PATH="$root/.deps/root/usr")
# No GPU driver at all (no nvidia-smi, no /dev/nvidia0, no libcuda.so.1), or --cpu-only: the CUDA
# backend could not run here, so it is not built (minutes saved on machines with nvcc and no GPU).
no_driver=""
if ! command -v nvidia-smi >/dev/null && [ ! -e /dev/nvidia0 ] && ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1'; then
  no_driver="no GPU driver on this machine (no nvidia-smi, /dev/nvidia0 or libcuda.so.1)"
fi
if [ -n "$no_driver" ] || [ $cpu_only = 1 ]; then
  cmake_args+=(-DWICK_CUDA=OFF)
  echo "   building without CUDA: ${no_driver:---cpu-only}"
else
  # A GPU that nvidia-smi can name: build for its architecture only (a benchmark build; five
  # architectures would multiply the CUDA compile time).
  cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' .') || cc=""
  if [[ "$cc" =~ ^[0-9]+$ ]]; then
    cmake_args+=(-DCMAKE_CUDA_ARCHITECTURES="$cc")
    echo "   CUDA code for this GPU only: sm_$cc"
  fi
fi
# shellcheck disable=SC2206
[ -n "${WICK_CMAKE_ARGS:-}" ] && cmake_args+=(${WICK_CMAKE_ARGS})
t0=$(date +%s)
if ! { cmake -S "$root" -B "$build" "${cmake_args[@]}" && cmake --build "$build" -j "$(nproc)"; } \
    >"$raw/build.log" 2>&1; then
  tail -n 40 "$raw/build.log"
  echo "main.sh: the build failed (full log: $raw/build.log)" >&2
  exit 1
fi
echo "   built in $(($(date +%s) - t0)) s"

# ---- 3. versions and devices ----
cache_get() { sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt" | head -n 1; }
pkg_version() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || true; }
{
  commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo "unknown (no git)")
  # The output folder does not count: a report committed in the repository (docs/report/) is
  # rewritten by this very run.
  out_rel=""; case "$out/" in "$root"/*) out_rel=${out#"$root"/} ;; esac
  [ -n "$(git -C "$root" status --porcelain --untracked-files=no -- . ${out_rel:+":(exclude)$out_rel"} 2>/dev/null)" ] &&
    commit="$commit (with uncommitted changes)"
  echo "wick_commit: $commit"
  echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "command: scripts/main.sh $*"
  echo "mode: $mode"
  echo "host: $(hostname 2>/dev/null || echo unknown)"
  echo "os: $( (. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME") || uname -s), kernel $(uname -r)"
  echo "compiler: $("$(cache_get CMAKE_CXX_COMPILER)" --version 2>/dev/null | head -n 1)"
  echo "cmake: $(cmake --version | head -n 1 | sed 's/cmake version //')"
  echo "build_type: $(cache_get CMAKE_BUILD_TYPE)"
  echo "cuda_backend: $(grep -q 'CUDA backend TRUE\|CUDA backend ON' "$raw/build.log" && echo on || echo off)"
  if command -v nvcc >/dev/null; then echo "nvcc: $(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')"; fi
  blas=$(cache_get WICK_OPENBLAS_LIBRARY)
  if [ -n "$blas" ] && [[ "$blas" != *NOTFOUND* ]]; then
    echo "openblas: $(pkg_version libopenblas0 | sed 's/^$/found/') ($blas)"
  else
    echo "openblas: not installed"
  fi
  torch_dir=$(cache_get Torch_DIR)
  if [ -n "$torch_dir" ] && [[ "$torch_dir" != *NOTFOUND* ]]; then
    v=$(sed -n 's/.*PACKAGE_VERSION "\([^"]*\)".*/\1/p' "$torch_dir/TorchConfigVersion.cmake" 2>/dev/null | head -n 1) || v=""
    echo "libtorch: ${v:-$(pkg_version libtorch-dev)} ($torch_dir)"
  else
    echo "libtorch: not installed"
  fi
  echo "benchmark_lib: $(pkg_version libbenchmark-dev | sed 's/^$/from .deps or unknown/')"
  if command -v nvidia-smi >/dev/null; then
    echo "nvidia_smi: $(nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,power.limit --format=csv,noheader 2>/dev/null | head -n 1)"
  fi
  echo "omp_num_threads: ${OMP_NUM_THREADS:-unset (all $(nproc) CPUs)}"
} >"$raw/versions.txt"
"$build/examples/device_info" >"$raw/devices.txt" 2>&1 || true
gpu=0; gpu_why=""
if [ $cpu_only = 1 ]; then
  gpu_why="--cpu-only was given"
elif grep -q '^cuda: yes' "$raw/devices.txt"; then
  gpu=1
elif [ -n "$no_driver" ]; then
  gpu_why="$no_driver, so main.sh built wick without CUDA"
else
  gpu_why=$(sed -n 's/^cuda: no (\(.*\))$/\1/p' "$raw/devices.txt"); gpu_why=${gpu_why:-device_info failed}
fi
echo "gpu_used: $([ $gpu = 1 ] && echo yes || echo "no: $gpu_why")" >>"$raw/versions.txt"
sed 's/^/   /' "$raw/devices.txt"

# ---- 4. the benchmark suite ----
# The machine-load check: ../shared/tools/quiet-run when it exists (waits for a quiet machine,
# then says how much CPU other processes used during the run), else the same measurement built
# in (without the wait). Both print one line in the same format, collected into raw/load.txt.
quiet=${WICK_QUIET_RUN-$root/../shared/tools/quiet-run}; [ -n "$quiet" ] && [ -x "$quiet" ] || quiet=""
quiet_wait=$([ $quick = 1 ] && echo 2 || echo 30)
measured() {  # name, command...: stdout to the console and raw/<name>.log, stderr (Google
  # Benchmark's context header, errors) to raw/<name>.stderr.log, the load line to raw/load.txt
  local name=$1; shift
  local err="$raw/$name.stderr.log" rc=0
  if [ -n "$quiet" ]; then
    "$quiet" --wait "$quiet_wait" -- "$@" 2>"$err" | tee "$raw/$name.log" || rc=$?
  else
    "$root/scripts/load-check.sh" "$@" 2>"$err" | tee "$raw/$name.log" || rc=$?
  fi
  [ $rc = 0 ] || tail -n 20 "$err" >&2
  grep '^\(quiet-run\|load-check\): ' "$err" | sed 's/^/   /' || true
  grep '^\(quiet-run\|load-check\): wall' "$err" | sed "s/^/$name\t/" >>"$raw/load.txt" || true
  return $rc
}
bench() {  # name, binary, args...: one Google Benchmark program, JSON into raw/<name>.json
  local name=$1 bin=$2; shift 2
  if [ ! -x "$bin" ]; then
    echo "   $name: not built ($bin missing)"; echo "$name: not built" >>"$raw/skipped.txt"; return 0
  fi
  measured "$name" "$bin" --benchmark_out="$raw/$name.json" --benchmark_out_format=json "$@" ||
    { echo "   $name: exit status $?"; echo "$name: failed (see raw/$name.log)" >>"$raw/skipped.txt"; }
}

min_time=$([ $quick = 1 ] && echo 0.05 || echo 0.25)
# Google Benchmark reports the first run that lasts min_time: without a warm-up, an op slower than
# that (a + b on 2^24 floats, whose output's first call faults in fresh pages: 76 ms against 5 ms
# warm) was timed cold, once. The warm-up runs each benchmark this long, untimed, first.
warmup=$([ $quick = 1 ] && echo 0.1 || echo 0.2)
# Three repetitions of each, reported by their median (each repetition is Google Benchmark's mean
# over the iterations that fill min_time).
gb_time=(--benchmark_min_time="$min_time" --benchmark_min_warmup_time="$warmup"
         --benchmark_repetitions=3)
q=(); [ $quick = 1 ] && q=(--quick)
step_machine() { bench machine_info "$build/bench/wick_machine_info" "${q[@]}"; }
step_seeds() {
  local ex t0 t1 rc
  for ex in matmul train_linear train_mlp; do
    [ -x "$build/examples/$ex" ] || { echo "$ex: not built" >>"$raw/seeds.txt"; continue; }
    echo "   \$ examples/$ex"
    t0=$(date +%s.%N); rc=0
    "$build/examples/$ex" >"$raw/seed_$ex.txt" 2>&1 || rc=$?
    t1=$(date +%s.%N)
    tail -n 4 "$raw/seed_$ex.txt" | sed 's/^/     /'
    echo "$ex: rc=$rc wall_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b - a}')" >>"$raw/seeds.txt"
  done
}
step_training() {
  local extra=(); [ $gpu = 1 ] || extra=(--cpu-only)
  bench training "$build/bench/wick_bench_training" "${q[@]}" "${extra[@]}"
}
step_cpu_ops() { bench cpu_ops "$build/bench/wick_bench_cpu_ops" "${gb_time[@]}"; }
step_cpu_gemm() {
  local f=()
  # The report's sgemm tables come from the paired rows (bench/paired.hpp), not from the
  # one-library-at-a-time sgemm/<lib> rows, which docs/cpu-gemm.md's tables use.
  f=(--benchmark_filter='^(fma_peak|sgemm_paired/|dgemm/|ladder/|memcpy|add_)' --paired_seconds=4)
  [ $quick = 1 ] && f=(--benchmark_filter='^(fma_peak|sgemm_paired/(64x64x64|128x128x128|256x256x256|512x512x512|1024x1024x1024)/|memcpy|add_kernel)' --paired_seconds=1)
  bench cpu_gemm "$build/bench/cpu/wick_bench_cpu_gemm" "${gb_time[@]}" "${f[@]}"
}
step_vs_libtorch() { bench vs_libtorch "$build/bench/wick_bench_vs_libtorch" "${gb_time[@]}"; }
step_gpu() {
  local f=()
  [ $quick = 1 ] && f=(--benchmark_filter='-(n:4096|pageable|softmax/8192|softmax/65536)')
  bench gpu "$build/bench/gpu/wick_bench_gpu" "${f[@]}"
}
step_gemm_ladder() {
  local f=()
  [ $quick = 1 ] && f=(--benchmark_filter='^gemm/square_(512|1024|2048)/')
  bench gemm_ladder "$build/bench/gpu/wick_bench_gemm_ladder" "${f[@]}"
}

# name, estimated seconds (quick), estimated seconds (full) on the 2-core dev machine
steps=(); est=()
add_step() { steps+=("$1"); est+=("$([ $quick = 1 ] && echo "$2" || echo "$3")"); }
add_step machine 6 20
add_step seeds 3 5
add_step training 8 120
add_step cpu_ops 20 45
[ -x "$build/bench/cpu/wick_bench_cpu_gemm" ] && add_step cpu_gemm 60 280
[ $quick = 0 ] && [ -x "$build/bench/wick_bench_vs_libtorch" ] && add_step vs_libtorch 0 125
[ $gpu = 1 ] && add_step gpu 25 90
[ $gpu = 1 ] && [ -x "$build/bench/gpu/wick_bench_gemm_ladder" ] && add_step gemm_ladder 20 120
if [ $gpu = 0 ]; then echo "   GPU benchmarks skipped: $gpu_why"; fi
n=${#steps[@]}; done_est=0; done_real=0; t_bench=$(date +%s)
for i in "${!steps[@]}"; do
  left_est=0; for j in $(seq "$i" $((n - 1))); do left_est=$((left_est + est[j])); done
  scale=1; [ $done_est -gt 0 ] && scale=$(awk -v a=$done_real -v b=$done_est 'BEGIN{s=a/b; if(s<0.3)s=0.3; if(s>5)s=5; print s}')
  left=$(awk -v l=$left_est -v s="$scale" 'BEGIN{printf "%d", l*s}')
  echo "== [$((i + 1))/$n] ${steps[i]}: $(fmt_s "$(elapsed)") elapsed, about $(fmt_s "$left") left"
  ts=$(date +%s)
  "step_${steps[i]}"
  took=$(($(date +%s) - ts))
  echo "${steps[i]} $took" >>"$raw/steps.txt"
  done_est=$((done_est + est[i])); done_real=$((done_real + took))
done
echo "benchmarks_s: $(($(date +%s) - t_bench))" >>"$raw/versions.txt"

# ---- 5. the report ----
echo "== [report] $(fmt_s "$(elapsed)") elapsed"
py=""
for c in /usr/bin/python3 python3; do
  if command -v "$c" >/dev/null && "$c" -c 'import matplotlib' 2>/dev/null; then py=$c; break; fi
done
plots=()
if [ -z "$py" ]; then
  py=$(command -v python3 || true); plots=(--no-plots)
  echo "   matplotlib not found (install python3-matplotlib): report without plots"
fi
if [ -z "$py" ]; then
  echo "main.sh: no python3: the raw results are in $raw, but no report.md" >&2
  exit 1
fi
rc=0
"$py" "$root/scripts/report/make_report.py" "$out" --check "${plots[@]}" || rc=$?
echo "== done in $(fmt_s "$(elapsed)"): $out/report.md"
exit $rc
