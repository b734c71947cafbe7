#!/usr/bin/env bash
# device-run.sh: everything one call on a lent GPU does, within one deadline:
#   1. bench/gpu/check.sh (build for the GPU, tests, compute-sanitizer, GPU benchmarks, the
#      matmul ladder) with CHECK_BUDGET_S seconds (default 270);
#   2. the README's main job in quick mode (scripts/main.sh --quick --no-install) in the same
#      build folder, so that only the programs check.sh did not build are compiled: the GPU
#      report of docs/report/ (quick, since a lease is 15 minutes; the full run takes longer);
#   3. packs both folders into $OUT/results.tar.gz, copies the summaries beside it, and prints
#      the two summaries last (the device tool returns the output's tail).
# Usage on the device: DEVICE_BUDGET_S=520 CHECK_COMMIT=<commit> bash bench/gpu/device-run.sh
# (carry .deps, made by bench/gpu/fetch-deps.sh). Without a GPU it still runs: check.sh then
# reports its GPU steps as failed and main.sh writes the CPU report.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
final_out="${OUT:-$root/device-out}"
mkdir -p "$final_out"
budget="${DEVICE_BUDGET_S:-520}"
start=$(date +%s)
work="${DEVICE_WORK_DIR:-/tmp/wick-device}"
rm -rf "$work"
mkdir -p "$work/check" "$work/report"
build="${DEVICE_BUILD_DIR:-$root/build-gpu-check}"

OUT="$work/check" CHECK_BUILD_DIR="$build" CHECK_BUDGET_S="${CHECK_BUDGET_S:-270}" \
  bash "$root/bench/gpu/check.sh" >"$work/check/console.log" 2>&1

left=$((budget - ($(date +%s) - start) - 15))
if ((left > 60)); then
  echo "[device-run] main.sh --quick with ${left}s left" | tee "$work/report/console.log"
  BUILD_DIR="$build" WICK_QUIET_RUN="" timeout --kill-after=5 "$left" \
    bash "$root/scripts/main.sh" --quick --no-install "$work/report" >>"$work/report/console.log" 2>&1
  echo "[device-run] main.sh exit status $?" | tee -a "$work/report/console.log"
else
  echo "[device-run] main.sh skipped: ${left}s left" | tee "$work/report/console.log"
fi

tar czf "$final_out/results.tar.gz" -C "$work" check report
cp "$work/check/gpu-results.md" "$final_out/" 2>/dev/null
cp "$work/report/report.md" "$final_out/" 2>/dev/null
tail -n 40 "$work/report/console.log"
cat "$build/summary.txt" 2>/dev/null
sed -n '/^GPU benchmarks/,/^$/p' "$work/check/gpu-results.md" 2>/dev/null
echo "[device-run] done in $(($(date +%s) - start))s"
