#!/usr/bin/env bash
# test.sh: the README's test command. On a fresh machine of the project's kind: installs what
# is missing, builds everything (the CUDA backend and every .cu file when nvcc is found),
# runs every test with CTest (GPU tests show as skipped without a GPU), then proves that the
# installed package works: examples/ is built as a separate project with find_package(wick),
# and tests/consumer/ builds wick with add_subdirectory(); then the sanitizer job
# (.ci/sanitize.sh: the CPU suite under ASan+UBSan+LSan, then the threaded cases under TSan) and
# the bounded fuzz runs (.ci/fuzz.sh).
# Options: BUILD_DIR (default build-test), WICK_CUDA (default AUTO), JOBS (default nproc),
# WICK_SKIP_SANITIZERS=1, WICK_SKIP_FUZZ=1, WICK_FUZZ_SECONDS (default 60).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build-test}
jobs=${JOBS:-$(nproc)}
"$root/scripts/install-deps.sh"
# ccache: paths relative to the checkout and no working directory in the hash, so that clones
# in other folders (CI, a second checkout) reuse each other's objects.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-true}
[ -x /usr/local/cuda/bin/nvcc ] && export PATH=/usr/local/cuda/bin:$PATH

echo "== configure and build ($build)"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DWICK_CUDA="${WICK_CUDA:-AUTO}" \
  -DCMAKE_INSTALL_PREFIX="$build/install" >/dev/null
cmake --build "$build" -j "$jobs"

echo "== tests"
ctest --test-dir "$build" --output-on-failure -j "$jobs"

echo "== install, and examples/ as a separate project against the installed package"
cmake --install "$build" >/dev/null
cmake -S "$root/examples" -B "$build/examples-installed" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$build/install" >/dev/null
cmake --build "$build/examples-installed" -j "$jobs"
"$build/examples-installed/matmul" | tee "$build/matmul.out"
grep -qx '\[1000, 1000\]' "$build/matmul.out"
"$build/examples-installed/train_linear"

echo "== add_subdirectory(wick) from another project"
cmake -S "$root/tests/consumer" -B "$build/consumer" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DWICK_SOURCE_DIR="$root" -DWICK_CUDA=OFF >/dev/null
cmake --build "$build/consumer" -j "$jobs"
"$build/consumer/consumer"

echo "== the report generator's own tests"
/usr/bin/python3 "$root/scripts/report/test_report.py"

if [ -x "$root/.ci/sanitize.sh" ] && [ "${WICK_SKIP_SANITIZERS:-0}" != 1 ]; then
  echo "== sanitizers"
  "$root/.ci/sanitize.sh"
  echo "== ThreadSanitizer: the threaded kernels and the CPU thread pool"
  "$root/.ci/sanitize.sh" --tsan
fi
if [ -x "$root/.ci/fuzz.sh" ] && [ "${WICK_SKIP_FUZZ:-0}" != 1 ]; then
  echo "== fuzzers: seed replay, then ${WICK_FUZZ_SECONDS:-60} s of fuzzing per target"
  "$root/.ci/fuzz.sh"
fi
echo "== all tests passed"
