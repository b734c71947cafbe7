#!/usr/bin/env python3
"""gemm_table.py: turns wick_bench_cpu_gemm's Google Benchmark JSON into the Markdown tables of
docs/cpu-gemm.md: sgemm/dgemm GFLOP/s of wick, OpenBLAS and libtorch side by side with wick's
ratio to OpenBLAS and its fraction of the measured FMA peak; the worklog ladder at N = 1024; and
elementwise add against memcpy. Every ratio is between rows of the same run.

    gemm_table.py bench.json > tables.md
"""
import json
import sys
from collections import defaultdict


def load(path):
    with open(path) as f:
        data = json.load(f)
    benchmarks = data["benchmarks"]
    # With --benchmark_repetitions: the medians, named as the single runs are.
    medians = [dict(b, name=b["run_name"]) for b in benchmarks
               if b.get("run_type") == "aggregate" and b.get("aggregate_name") == "median"]
    rows = medians or [b for b in benchmarks if b.get("run_type", "iteration") == "iteration"]
    return data["context"], rows


def gemm_tables(rows, prefix):
    # name: prefix/lib/MxKxN[T]/threads:t
    cells = defaultdict(dict)
    peak = {}
    order = []
    for b in rows:
        parts = b["name"].split("/")
        if parts[0] != prefix:
            continue
        lib, shape, threads = parts[1], parts[2], parts[3].split(":")[1]
        key = (shape, threads)
        if key not in cells:
            order.append(key)
        cells[key][lib] = b["GFLOP/s"]
        if lib == "wick":
            peak[key] = b["peak_frac"]
    libs = [lib for lib in ("wick", "openblas", "torch") if any(lib in c for c in cells.values())]
    head = ["M x K x N", "threads"] + [f"{lib} GFLOP/s" for lib in libs]
    if "openblas" in libs:
        head.append("wick / OpenBLAS")
    if "torch" in libs:
        head.append("wick / libtorch")
    head.append("wick % of FMA peak" + (" (float64)" if prefix == "dgemm" else ""))
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    def sort_key(key):  # square sizes by N, then the other shapes by size; 1 thread first
        m, k, n = (int(v) for v in key[0].rstrip("T").split("x"))
        return (not (m == k == n), m * k * n, key[0].endswith("T"), int(key[1]))

    # dgemm's peak is half of the float FMA peak the bench measures (8 lanes, not 16).
    scale = 2.0 if prefix == "dgemm" else 1.0
    for key in sorted(order, key=sort_key):
        c = cells[key]
        row = [key[0].replace("x", " x "), key[1]]
        row += [f"{c[lib]:.1f}" if lib in c else "-" for lib in libs]
        for peer in ("openblas", "torch"):
            if peer in libs:
                row.append(f"{c['wick'] / c[peer]:.2f}" if peer in c and "wick" in c else "-")
        row.append(f"{100 * scale * peak[key]:.0f}%" if key in peak else "-")
        out.append("| " + " | ".join(row) + " |")
    return "\n".join(out)


LADDER = ["naive", "loop_order", "blocked", "wick_portable", "wick_avx2", "wick"]


def ladder_table(rows):
    out = ["| step | threads | GFLOP/s | x previous | % of FMA peak |", "|---|---|---|---|---|"]
    previous = None
    steps = [b for b in rows if b["name"].split("/")[0] == "ladder"]
    steps.sort(key=lambda b: (LADDER.index(b["name"].split("/")[1]), b["name"]))
    for b in steps:
        parts = b["name"].split("/")
        gf = b["GFLOP/s"]
        gain = f"{gf / previous:.1f}" if previous else "-"
        out.append(f"| {parts[1]} | {parts[3].split(':')[1]} | {gf:.1f} | {gain} | "
                   f"{100 * b['peak_frac']:.0f}% |")
        previous = gf
    return "\n".join(out)


def bandwidth_table(rows):
    by = {}
    for b in rows:
        name = b["name"].split("/")
        if name[0] in ("memcpy", "add_kernel", "add_op"):
            by[(name[0], name[2])] = b["bytes_per_second"] / 1e9
    out = ["| threads | memcpy GB/s | add kernel GB/s | add kernel / memcpy | a + b (op) GB/s | "
           "a + b / memcpy |", "|---|---|---|---|---|---|"]
    for t in sorted({k[1] for k in by}):
        m, k, o = by.get(("memcpy", t)), by.get(("add_kernel", t)), by.get(("add_op", t))
        if None in (m, k, o):
            continue
        out.append(f"| {t} | {m:.1f} | {k:.1f} | {k / m:.2f} | {o:.1f} | {o / m:.2f} |")
    return "\n".join(out)


def main():
    context, rows = load(sys.argv[1])
    print(f"FMA peak measured by the bench: {float(context['fma_peak_gflops_1_thread']):.1f} "
          f"GFLOP/s on 1 thread, {float(context['fma_peak_gflops_2_threads']):.1f} on 2; "
          f"ISA {context.get('wick_gemm_isa')}, blocking {context.get('wick_sgemm_blocking')}; "
          f"{context.get('host_name', '')} {context.get('date', '')}\n")
    print("### float32 GEMM\n")
    print(gemm_tables(rows, "sgemm"))
    print("\n### float64 GEMM\n")
    print(gemm_tables(rows, "dgemm"))
    print("\n### The ladder at N = 1024 (float32)\n")
    print(ladder_table(rows))
    print("\n### Elementwise add on 2^24 floats against memcpy (bytes moved per second)\n")
    print(bandwidth_table(rows))


if __name__ == "__main__":
    main()
