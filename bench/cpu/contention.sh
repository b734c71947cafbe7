#!/usr/bin/env bash
# contention.sh: the MLP training step's CPU time on a machine other processes keep busy.
# Usage: bench/cpu/contention.sh LABEL=path/to/wick_bench_training [LABEL=...]
# For each load (0, 1 and 2 busy-looping processes, or LOADS="..."), runs every binary in turn,
# ROUNDS times (default 2, alternating), on the rows mlp/cpu (all threads) and mlp/cpu_1thread
# at widths WIDTHS (default "128 512"), and prints one line per run: load, binary, row, median
# ms. The busy loops run at the benchmark's own priority, as a second job on a shared machine
# would. TORCH=1 adds libtorch's step in the same rounds (bench/cpu/torch_mlp_threads.py with
# 2 threads and with 1, Debian's python3-torch; widths 128 and 512 only), as rows
# torch mlp/cpu/width:W and torch mlp/cpu_1thread/width:W. docs/cpu-kernels.md ("Threads and
# shared CPUs", "A thread pool that does not wait") has what it measured.
set -euo pipefail
loads=${LOADS:-"0 1 2"}
rounds=${ROUNDS:-2}
widths=${WIDTHS:-"128 512"}
filter="mlp/cpu(_1thread)?/width:($(echo $widths | tr ' ' '|'))(/|\$)"
out=$(mktemp)
busy=()
stop_busy() { for p in "${busy[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done; busy=(); }
trap 'stop_busy; rm -f "$out"' EXIT
printf '%-5s %-10s %-28s %10s\n' load binary row median_ms
for load in $loads; do
  stop_busy
  for ((i = 0; i < load; ++i)); do
    (while :; do :; done) &
    busy+=($!)
  done
  sleep 1
  for ((r = 0; r < rounds; ++r)); do
    for spec in "$@"; do
      label=${spec%%=*} bin=${spec#*=}
      "$bin" --quick --cpu-only --benchmark_filter="$filter" --benchmark_out="$out" \
        --benchmark_out_format=json >/dev/null 2>&1
      /usr/bin/python3 -c '
import json, sys
load, label = sys.argv[1], sys.argv[2]
for b in json.load(open(sys.argv[3]))["benchmarks"]:
    scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b["time_unit"]]
    print("%-5s %-10s %-28s %10.3f" % (load, label, b["name"].split("/iterations")[0], b["real_time"] * scale))
' "$load" "$label" "$out"
    done
    if [ "${TORCH:-0}" = 1 ]; then
      for t in 2 1; do
        row=mlp/cpu; [ $t = 1 ] && row=mlp/cpu_1thread
        /usr/bin/python3 "$(dirname "$0")/torch_mlp_threads.py" $t |
          awk -v load="$load" -v row="$row" '{split($3, w, "="); printf "%-5s %-10s %-28s %10.3f\n", load, "torch", row "/width:" w[2], $5}'
      done
    fi
  done
done
