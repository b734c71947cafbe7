#!/usr/bin/env python3
"""plots.py: every PNG of the report, drawn from the JSON under REPORT_DIR/raw.

    python3 scripts/report/plots.py REPORT_DIR      (make_report.py calls draw_all itself)

One function per plot; each answers one question in its title, with units in the axis labels,
log axes where sizes span decades, and a legend. A plot whose data is missing is not drawn
(GPU plots without a GPU); make_report.py says why in the text.
"""
import os
import sys
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from results import Results, fmt_bytes, gemm_precision  # noqa: E402

CPU_C, GPU_C, GPU2_C, PEAK_C = "#1f77b4", "#2ca02c", "#98df8a", "#7f7f7f"
LIB_C = {"wick": "#1f77b4", "openblas": "#ff7f0e", "torch": "#d62728"}
LIB_NAME = {"wick": "wick", "openblas": "OpenBLAS", "torch": "libtorch"}


def _style():
    plt.rcParams.update({"figure.dpi": 110, "axes.grid": True, "grid.alpha": 0.3,
                         "axes.titlesize": 11, "axes.labelsize": 10, "legend.fontsize": 8.5})


def _save(fig, folder, name):
    path = os.path.join(folder, name)
    stamp = getattr(fig, "wick_stamp", "")
    lines = stamp.count("\n") + 1 if stamp else 0
    bottom = lines * 0.11 / fig.get_figheight()  # about 0.11 inch per line of 6.5 pt text
    fig.tight_layout(rect=(0, bottom, 1, 1))
    if stamp:
        fig.text(0.995, 0.005, stamp, ha="right", va="bottom", fontsize=6.5, color="#555555")
    fig.savefig(path)
    plt.close(fig)
    return path


def _log_y_125(ax):
    """A log y axis labelled at 1, 2 and 5 of every decade, in plain numbers: a range within one
    or two decades would otherwise show a single label."""
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1, 2, 5)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_formatter(FuncFormatter(lambda v, _: ""))


def _pow2_axis(ax, values):
    ax.set_xscale("log", base=2)
    # Ticks at the powers of two only: a point beside one (N = 1000, the seed's size, next to
    # 1024) is still drawn, but its label would print over its neighbour's.
    pow2 = [v for v in values if int(v) > 0 and int(v) & (int(v) - 1) == 0]
    ax.set_xticks(pow2 if pow2 else values)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{int(v)}"))
    ax.xaxis.set_minor_formatter(FuncFormatter(lambda v, _: ""))


def _bytes_axis(ax):
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: fmt_bytes(v) if v >= 1 else ""))


def _stamp(fig, r):
    """Commit, date and the machine-load verdict in small print, so a PNG that travels alone
    still says where it came from."""
    v = r.versions
    load = r.max_foreign_load()
    text = f"wick {v.get('wick_commit', '?')}, {v.get('date_utc', '?')}, {v.get('mode', '?')} run"
    if load is not None:
        text += f", other processes used up to {load}% of the CPUs"
    if r.synthetic:
        text = "SYNTHETIC TEST DATA, not a measurement. " + text
    fig.wick_stamp = textwrap.fill(text, int(fig.get_figwidth() * 19))  # drawn by _save


def plot_crossover(r, folder):
    m = r.mlp()
    if "cpu" not in m:
        return None
    batch = r.mlp_batch()
    has_gpu = "gpu" in m
    fig, axes = plt.subplots(1, 2 if has_gpu else 1, figsize=(12 if has_gpu else 7.5, 4.8),
                             squeeze=False)
    ax = axes[0][0]
    widths = [w for w, *_ in m["cpu"]]
    threads = r.hw_threads()
    for key, label, color, style in (
            ("cpu", f"CPU, all {threads or ''} threads".replace("  ", " "), CPU_C, "o-"),
            ("cpu_1thread", "CPU, 1 thread", CPU_C, "s:"),
            ("gpu", "GPU, batch on the device", GPU_C, "o-"),
            ("gpu_copy", "GPU, batch copied from the host each step", GPU2_C, "o-")):
        if key not in m:
            continue
        w = [p[0] for p in m[key]]
        ax.plot(w, [p[1] for p in m[key]], style, color=color, label=label,
                lw=2 if key in ("cpu", "gpu") else 1.3, ms=6 if style == "o-" else 4)
        if key == "cpu_1thread":
            continue
        lo = [p[2] for p in m[key]]
        hi = [p[3] for p in m[key]]
        if all(x is not None for x in lo + hi):
            ax.fill_between(w, lo, hi, color=color, alpha=0.15, lw=0)
    peak = r.peak_for(max(r.fma_peak(), default=0)) if r.fma_peak() else None
    if peak:
        flops = [5 * 2 * batch * w * w for w in widths]
        ax.plot(widths, [f / peak * 1e3 for f in flops], "--", color=CPU_C, alpha=0.6, lw=1,
                label=f"CPU if every FLOP ran at the FMA peak ({peak / 1e9:.0f} GFLOP/s)")
    info = r.gpu_info()
    if has_gpu and info.get("cublas_peak_tflops"):
        tp = info["cublas_peak_tflops"] * 1e12
        ax.plot(widths, [5 * 2 * batch * w * w / tp * 1e3 for w in widths], "--", color=GPU_C,
                alpha=0.6, lw=1, label=f"GPU if every FLOP ran at the cuBLAS peak ({tp / 1e12:.0f} TFLOP/s)")
    _pow2_axis(ax, widths)
    ax.set_yscale("log")
    measured = [p[1] for key in ("cpu", "cpu_1thread", "gpu", "gpu_copy") for p in m.get(key, []) if p[1]]
    ax.set_ylim(bottom=min(measured) / 30)  # the peak lines may go lower: cut them off
    ax.set_xlabel(f"model width W (Linear(W, W), ReLU, Linear(W, W); batch {batch})")
    ax.set_ylabel("training step time, ms (median; band: p10 to p90)")
    cross = r.crossover()
    if has_gpu:
        ax.set_title("When does the GPU win? One training step against model width")
        if cross:
            ax.axvline(cross, color="k", ls=":", lw=1)
            ax.annotate(f"GPU faster from W = {cross}", (cross, ax.get_ylim()[1]), xytext=(4, -14),
                        textcoords="offset points", fontsize=8.5)
    else:
        ax.set_title("One training step against model width (CPU only)")
        ax.text(0.02, 0.97, textwrap.fill("no GPU line: " + r.gpu_reason(), 70), transform=ax.transAxes,
                va="top", fontsize=8, color="#a00000")
    ax.legend(loc="lower right")
    if has_gpu:
        ax2 = axes[0][1]
        cpu = r.best_cpu_step()
        for key, label, color in (("gpu", "batch on the device", GPU_C),
                                  ("gpu_copy", "batch copied each step", GPU2_C)):
            if key in m:
                pts = [(w, cpu[w] / ms) for w, ms, *_ in m[key] if w in cpu]
                ax2.plot([p[0] for p in pts], [p[1] for p in pts], "o-", color=color, label=label)
        ax2.axhline(1, color="k", lw=1)
        ax2.text(widths[0], 1.05, "above this line the GPU is faster", fontsize=8)
        _pow2_axis(ax2, widths)
        ax2.set_yscale("log")
        ax2.set_xlabel("model width W")
        ax2.set_ylabel("GPU speedup (best CPU step time / GPU step time)")
        ax2.set_title("Small models lose: launch and copy overhead, not FLOPs")
        ax2.legend(loc="upper left")
    _stamp(fig, r)
    return _save(fig, folder, "crossover.png")


def plot_seed1(r, folder):
    s = r.seed1()
    if "gpu_total_ms" not in s or "cpu_ms" not in s:
        return None
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(12, 3.2), gridspec_kw={"width_ratios": [1, 1.3]})
    bars = [("CPU", s["cpu_ms"], CPU_C), ("GPU, copies included", s["gpu_total_ms"], GPU_C),
            ("GPU, matmul only", s["compute_ms"], GPU2_C)]
    ax.barh([b[0] for b in bars], [b[1] for b in bars], color=[b[2] for b in bars])
    for i, b in enumerate(bars):
        ax.text(b[1], i, f" {b[1]:.3g} ms", va="center", fontsize=8.5)
    ax.invert_yaxis()
    ax.set_xlim(0, max(b[1] for b in bars) * 1.25)
    ax.set_xlabel("time, ms (median)")
    ax.set_title(f"1000x1000 matmul: GPU {s['speedup_with_copies']:.1f}x faster with copies, "
                 f"{s['speedup_compute_only']:.1f}x without", fontsize=10)
    left = 0
    for key, label, color in (("h2d_ms", "copy x, y to the GPU", "#ffbb78"),
                              ("compute_ms", "matmul", GPU_C), ("d2h_ms", "copy the result back", "#ff7f0e")):
        ax2.barh(["GPU"], [s[key]], left=left, color=color, label=f"{label}: {s[key]:.3g} ms")
        left += s[key]
    ax2.set_xlabel("time, ms (median of each phase)")
    ax2.set_title("Where the GPU's time goes", fontsize=10)
    ax2.legend(loc="upper center", bbox_to_anchor=(0.5, -0.35), ncol=3, fontsize=8)
    _stamp(fig, r)
    return _save(fig, folder, "seed1.png")


def _pow2(n):
    return n > 0 and n & (n - 1) == 0


def plot_gemm_cpu(r, folder):
    # Powers of two only: the seed's N = 1000 (in the tables) would sit beside 1024 on a log axis,
    # and the two points' run-to-run difference would draw a vertical zigzag there.
    g = {lib: {t: [p for p in pts if _pow2(p[0])] for t, pts in per_t.items()} for lib, per_t in r.gemm_cpu().items()}
    if not g:
        return None
    paired = r.gemm_cpu_paired()
    threads = sorted({t for libs in g.values() for t in libs})
    rows = 2 if paired else 1
    fig, axes = plt.subplots(rows, len(threads), figsize=(6 * len(threads), 4.6 + 3.4 * (rows - 1)),
                             squeeze=False, gridspec_kw={"height_ratios": [4.6, 3.4][:rows]})
    ns = sorted({n for libs in g.values() for pts in libs.values() for n, _ in pts})
    for ax, t in zip(axes[0], threads):
        for lib in ("wick", "openblas", "torch"):
            pts = g.get(lib, {}).get(t)
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", color=LIB_C[lib],
                        label=LIB_NAME[lib], lw=2.2 if lib == "wick" else 1.5)
        missing = [LIB_NAME[lib] for lib in ("openblas", "torch") if lib not in g]
        peak = r.peak_for(t)
        if peak:
            ax.axhline(peak / 1e9, color=PEAK_C, ls="--", lw=1,
                       label=f"measured FMA peak ({peak / 1e9:.0f} GFLOP/s)")
        _pow2_axis(ax, ns)
        ax.set_ylim(0, max([peak / 1e9 if peak else 0] + [v for lib in g.values() for v in
                                                         [p[1] for p in lib.get(t, [])]]) * 1.12)
        ax.set_xlabel("N (square float32 matrices, C = A @ B)")
        ax.set_ylabel("GFLOP/s (2 N^3 / median " + ("round)" if paired else "time)"))
        ax.set_title(f"CPU GEMM, {t} thread{'s' if t > 1 else ''}: wick against the libraries")
        if missing:
            ax.text(0.02, 0.97, ", ".join(missing) + ": not installed", transform=ax.transAxes,
                    va="top", fontsize=8.5, color="#a00000")
        ax.legend(loc="best")
    if paired:
        # The ratio within each round survives the VM's drift; the GFLOP/s above do not.
        for ax, t in zip(axes[1], threads):
            for peer in ("openblas", "torch"):
                pts = sorted((n, *d["vs"][peer]) for (shape, tt), d in paired.items()
                             if tt == t and peer in d["vs"] and _pow2(r.square_side(shape) or 0)
                             for n in [r.square_side(shape)])
                if not pts:
                    continue
                x = [p[0] for p in pts]
                med = [p[1] for p in pts]
                lo = [p[1] - (p[2] if p[2] is not None else p[1]) for p in pts]
                hi = [(p[3] if p[3] is not None else p[1]) - p[1] for p in pts]
                ax.errorbar(x, med, yerr=[lo, hi], fmt="o-", color=LIB_C[peer], capsize=3, lw=1.5,
                            label=f"wick / {LIB_NAME[peer]}")
            ax.axhline(1.0, color=PEAK_C, ls="--", lw=1)
            _pow2_axis(ax, ns)
            ax.set_xlabel("N (square float32 matrices, C = A @ B)")
            ax.set_ylabel("wick's speed / the library's\n(median over rounds; bars: 25th-75th pct.)")
            ax.set_title(f"{t} thread{'s' if t > 1 else ''}: above 1, wick is faster (same rounds)")
            ax.legend(loc="best")
    _stamp(fig, r)
    return _save(fig, folder, "gemm_cpu.png")


def plot_gemm_gpu(r, folder):
    g = r.gemm_gpu()
    if not g:
        return None
    fig, ax = plt.subplots(figsize=(9, 5.2))
    ns = sorted({n for pts in g.values() for n, _ in pts})
    # One colour family per precision (FP32 blues, TF32 greens, BF16 reds), darker for later
    # steps; each cuBLAS reference dashed and black-edged in its family's darkest shade.
    families = {"FP32": "Blues", "TF32": "Greens", "BF16": "Reds"}
    by_prec = {}
    for kernel in sorted(g):
        by_prec.setdefault(gemm_precision(kernel), []).append(kernel)
    for prec, kernels in by_prec.items():
        cmap = plt.get_cmap(families[prec])
        mine = [k for k in kernels if not k.startswith("cuBLAS")]
        for i, kernel in enumerate(mine):
            pts = g[kernel]
            shade = 0.4 + 0.5 * (i + 1) / (len(mine) + 1)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", ms=4, lw=1.5,
                    color=cmap(shade), label=f"{kernel} ({prec})")
        for kernel in kernels:
            if kernel.startswith("cuBLAS"):
                pts = g[kernel]
                ax.plot([p[0] for p in pts], [p[1] for p in pts], "s--", ms=5, lw=2.2,
                        color=cmap(0.95), label=f"{kernel} (reference, {prec})")
    _pow2_axis(ax, ns)
    _log_y_125(ax)
    ax.set_xlabel("N (square matrices, N x N times N x N)")
    ax.set_ylabel("TFLOP/s (2 N^3 / median time, CUDA events)")
    ax.set_title("GPU matmul: every wick kernel against cuBLAS of its precision (dashed)")
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8)
    _stamp(fig, r)
    return _save(fig, folder, "gemm_gpu.png")


def plot_membound_cpu(r, folder):
    ops = r.membound_cpu()
    curve = r.copy_curve()
    if not ops and not curve:
        return None
    fig, ax = plt.subplots(figsize=(10.5, 5))
    # Each op is compared with the copy on its own thread count: one black line per count.
    for t, pts in sorted(curve.items()):
        ax.plot([p[0] for p in pts], [p[1] / 1e9 for p in pts], "-" if t > 1 else "--",
                color="k", lw=2.2 if t > 1 else 1.4,
                label=f"ceiling: memcpy, {t} thread{'s' if t > 1 else ''} (best of repetitions)")
    by_label = {}
    for label, nbytes, bps, _, _ in ops:
        if nbytes and bps:
            by_label.setdefault(label, []).append((nbytes, bps))
    markers = "osD^v<>ph*"
    colors = [c for i, c in enumerate(plt.get_cmap("tab10").colors) if i != 7]  # no grey
    for i, (label, pts) in enumerate(sorted(by_label.items())):
        pts.sort()
        ax.plot([p[0] for p in pts], [p[1] / 1e9 for p in pts], markers[i % len(markers)] + "--",
                color=colors[i % len(colors)], label=label, lw=1, ms=6)
    caches = {}
    for b in r.benches.values():
        for c in b.context.get("caches", []):
            if c.get("type") in ("Data", "Unified"):
                caches[c["level"]] = c["size"]
    for level, size in sorted(caches.items()):
        ax.axvline(size, color="#bbbbbb", ls=":", lw=1)
        ax.text(size, 0.02, f" L{level} {fmt_bytes(size)}", transform=ax.get_xaxis_transform(),
                fontsize=7.5, color="#666666", rotation=90, va="bottom")
    _bytes_axis(ax)
    _log_y_125(ax)
    ax.set_xlabel("bytes moved per call (reads + writes) = working set")
    ax.set_ylabel("GB/s (wall clock)")
    ax.set_title("CPU memory-bound ops: how close to the copy ceiling?")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8)
    _stamp(fig, r)
    return _save(fig, folder, "membound_cpu.png")


def plot_membound_gpu(r, folder):
    ops, copy = r.membound_gpu()
    if not ops:
        return None
    fig, ax = plt.subplots(figsize=(8, 4.4))
    labels = [o[0] for o in ops]
    ax.barh(labels, [o[1] for o in ops], color=GPU_C)
    if copy:
        ax.axvline(copy, color="k", ls="--", lw=1.5)
        ax.text(copy, 1.01, f"device copy: {copy:.0f} GB/s", transform=ax.get_xaxis_transform(),
                ha="center", va="bottom", fontsize=8)
        ax.set_xlim(0, copy * 1.12)
    for i, o in enumerate(ops):
        if o[2]:
            ax.text(o[1], i, f" {100 * o[2]:.0f}%", va="center", fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("GB/s (bytes read + written / median time, CUDA events), 2^26 floats")
    ax.set_title("GPU memory-bound ops: share of the device copy bandwidth", pad=16)
    _stamp(fig, r)
    return _save(fig, folder, "membound_gpu.png")


PLOTS = [plot_seed1, plot_crossover, plot_gemm_cpu, plot_gemm_gpu, plot_membound_cpu,
         plot_membound_gpu]


def draw_all(r, folder):
    """{plot function name: path or None}."""
    _style()
    return {fn.__name__: fn(r, folder) for fn in PLOTS}


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    for name, path in draw_all(Results(sys.argv[1]), sys.argv[1]).items():
        print(f"{name}: {path or 'no data'}")
