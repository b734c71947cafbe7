#!/usr/bin/env python3
"""gemm_table.py: turns wick_bench_gemm_ladder's Google Benchmark JSON into the tables of
docs/gemm.md and a plot of TFLOP/s against size per kernel. Every ratio is between rows of the
same run: each ladder kernel against cuBLAS of the same precision (SGEMM for the FP32 steps,
cuBLAS TF32 for step 9, cuBLAS BF16 for steps 10 and 11) and, for the FP32 steps, against the chip's
FP32 FMA rate measured at the start of the run (the tensor-core rows have no measured peak).

    gemm_table.py bench.json [--doc docs/gemm.md] [--plot docs/gemm-ladder.png]
                  [--commit C] [--command "..."]

With --doc, the text between the markers <!-- gemm-table:begin --> and <!-- gemm-table:end -->
is replaced by the tables; otherwise they go to standard output.
"""
import argparse
import json
import math
import sys
from collections import defaultdict

BEGIN, END = "<!-- gemm-table:begin -->", "<!-- gemm-table:end -->"


def load(path):
    with open(path) as f:
        data = json.load(f)
    rows = {}
    errors = []
    for b in data.get("benchmarks", []):
        parts = b["name"].split("/")
        if len(parts) < 3 or parts[0] != "gemm":
            continue
        shape, kernel = parts[1], parts[2]
        if b.get("error_occurred"):
            errors.append((shape, kernel, b.get("error_message", "")))
            continue
        rows[(shape, kernel)] = b
    return data.get("context", {}), rows, errors


def reference_of(kernel):
    if "tf32" in kernel:
        return "cublas_tf32"
    if "bf16" in kernel or "wgmma" in kernel:
        return "cublas_bf16"
    return "cublas"


def tensor_cores(kernel):
    return "tf32" in kernel or "bf16" in kernel or "wgmma" in kernel


def step8_variant(kernel):
    """Step 8's tile variants ("08_cp_async_128x256_s3" ...): by name only, run at a few sizes,
    tabled apart against step 8 itself."""
    return kernel.startswith("08_cp_async_")


def ordered_kernels(rows):
    names = sorted({k for _, k in rows}, key=lambda k: (not k[0].isdigit(), k))
    return names


def ladder_kernels(rows):
    return [k for k in ordered_kernels(rows) if not step8_variant(k)]


def variant_table(rows):
    """TFLOP/s of step 8's variants at the square sizes they ran, with the fraction of cuBLAS
    SGEMM and of step 8 (08_cp_async) in the same run."""
    variants = [k for k in ordered_kernels(rows) if step8_variant(k)]
    if not variants:
        return []
    sizes = sorted({int(s.split("_")[1]) for s, k in rows
                    if step8_variant(k) and s.startswith("square_")})
    out = ["Step 8 variants (by name only; in brackets: of cuBLAS SGEMM, of 08_cp_async)", "",
           "| kernel | " + " | ".join(f"N = {n}" for n in sizes) + " |",
           "|---|" + "---:|" * len(sizes)]
    for k in ["08_cp_async"] + variants:
        cells = []
        for n in sizes:
            b = rows.get((f"square_{n}", k))
            if b is None:
                cells.append("-")
                continue
            ref = rows.get((f"square_{n}", "cublas"))
            base = rows.get((f"square_{n}", "08_cp_async"))
            ratios = [fmt_ratio(b["TFLOP/s"] / r["TFLOP/s"]) if r else "-" for r in (ref, base)]
            cells.append(f"{b['TFLOP/s']:.2f} ({ratios[0]}" +
                         (f", {ratios[1]})" if k != "08_cp_async" else ")"))
        out.append(f"| {k} | " + " | ".join(cells) + " |")
    out.append("")
    return out


def square_sizes(rows):
    return sorted({int(s.split("_")[1]) for s, _ in rows if s.startswith("square_")})


def fmt_ratio(x):
    return "-" if x is None else f"{100 * x:.0f}%"


def tables(context, rows, errors, commit, command):
    out = []
    device = context.get("device", "unknown device")
    peak = float(context.get("peak_fp32_tflops", "nan"))
    out.append(f"Run of {context.get('date', '?')} on {device} (sm_{context.get('sm', '?')}), "
               f"commit {commit}, command `{command}`; measured FP32 FMA peak "
               f"{peak:.1f} TFLOP/s. Medians of timed products, L2 flushed before each.")
    out.append("")
    kernels = ladder_kernels(rows)
    sizes = square_sizes(rows)
    # 1. square sizes: TFLOP/s and the fraction of the same-precision cuBLAS.
    out.append("TFLOP/s at square sizes (in brackets: of cuBLAS of the same precision)")
    out.append("")
    out.append("| kernel | " + " | ".join(f"N = {n}" for n in sizes) + " |")
    out.append("|---|" + "---:|" * len(sizes))
    for k in kernels:
        cells = []
        for n in sizes:
            b = rows.get((f"square_{n}", k))
            ref = rows.get((f"square_{n}", reference_of(k)))
            if b is None:
                cells.append("-")
                continue
            tf = b["TFLOP/s"]
            ratio = tf / ref["TFLOP/s"] if ref and k != reference_of(k) else None
            cells.append(f"{tf:.2f}" + (f" ({fmt_ratio(ratio)})" if ratio is not None else ""))
        out.append(f"| {k} | " + " | ".join(cells) + " |")
    out.append("")
    out.extend(variant_table(rows))
    # 2. every shape in detail.
    out.append("| shape | kernel | median ms | spread ms | TFLOP/s | of cuBLAS | of FP32 peak "
               "| error vs cuBLAS SGEMM |")
    out.append("|---|---|---:|---:|---:|---:|---:|---:|")
    shapes = sorted({s for s, _ in rows},
                    key=lambda s: (not s.startswith("square_"),
                                   int(s.split("_")[1]) if s.startswith("square_") else s))
    for s in shapes:
        for k in ordered_kernels(rows):
            b = rows.get((s, k))
            if b is None:
                continue
            ref = rows.get((s, reference_of(k)))
            ratio = b["TFLOP/s"] / ref["TFLOP/s"] if ref and k != reference_of(k) else None
            of_peak = b["TFLOP/s"] / peak if peak > 0 and not tensor_cores(k) else None
            out.append(f"| {s} | {k} | {b['median_ms']:.3f} | {b['min_ms']:.3f} to "
                       f"{b['max_ms']:.3f} | {b['TFLOP/s']:.2f} | {fmt_ratio(ratio)} | "
                       f"{fmt_ratio(of_peak)} | {b['rel_err']:.1e} |")
    if errors:
        out.append("")
        out.append("Not timed:")
        out.append("")
        for s, k, msg in errors:
            out.append(f"- {s} / {k}: {msg}")
    return "\n".join(out) + "\n"


def plot(rows, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("gemm_table.py: matplotlib not installed, no plot", file=sys.stderr)
        return False
    sizes = square_sizes(rows)
    fig, ax = plt.subplots(figsize=(9, 5.5))
    # One colour family per precision, so that each kernel sits beside its reference: the FP32
    # steps shade from light to dark blue towards cuBLAS SGEMM (black, dashed); TF32 in red and
    # BF16 in green, their cuBLAS references dashed in the same colour.
    # Step 8's variants (two sizes each) stay out: the variant table has them.
    fp32 = [k for k in ladder_kernels(rows) if k[:2].isdigit() and int(k[:2]) <= 8]
    blues = plt.get_cmap("Blues")
    colours = {k: blues(0.35 + 0.65 * i / max(1, len(fp32) - 1)) for i, k in enumerate(fp32)}
    colours.update({"cublas": "black", "09_tf32_mma": "tab:red", "cublas_tf32": "tab:red",
                    "10_bf16_mma": "yellowgreen", "11_wgmma_tma": "forestgreen",
                    "12_wgmma_wide": "darkgreen", "cublas_bf16": "darkgreen",
                    "13_wgmma_tf32": "darkred"})
    markers = "os^vD<>ph*X"
    for i, k in enumerate(ladder_kernels(rows)):
        xs = [n for n in sizes if (f"square_{n}", k) in rows]
        ys = [rows[(f"square_{n}", k)]["TFLOP/s"] for n in xs]
        if not xs:
            continue
        reference = k.startswith("cublas")
        ax.plot(xs, ys, "--" if reference else "-", marker="o" if reference else markers[i % 11],
                color=colours.get(k), linewidth=2.2 if reference else 1.4, label=k)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("N (square N x N x N product)")
    ax.set_ylabel("TFLOP/s (log scale)")
    ax.set_title("wick's CUDA matmul ladder against cuBLAS")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    return True


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("json")
    parser.add_argument("--doc")
    parser.add_argument("--plot")
    parser.add_argument("--commit", default="unknown")
    parser.add_argument("--command", default="bash bench/gpu/check.sh")
    args = parser.parse_args()
    context, rows, errors = load(args.json)
    if not rows:
        print(f"gemm_table.py: no gemm rows in {args.json}", file=sys.stderr)
        return 1
    for b in rows.values():
        for key in ("TFLOP/s", "median_ms", "rel_err"):
            if not math.isfinite(b[key]) or b[key] < 0:
                print(f"gemm_table.py: {b['name']}: {key} = {b[key]}", file=sys.stderr)
                return 1
    text = tables(context, rows, errors, args.commit, args.command)
    if args.doc:
        with open(args.doc) as f:
            doc = f.read()
        if BEGIN not in doc or END not in doc:
            print(f"gemm_table.py: {args.doc} has no {BEGIN} ... {END} markers", file=sys.stderr)
            return 1
        head, rest = doc.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        with open(args.doc, "w") as f:
            f.write(head + BEGIN + "\n" + text + END + tail)
    else:
        sys.stdout.write(text)
    if args.plot:
        plot(rows, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
