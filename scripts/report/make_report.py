#!/usr/bin/env python3
"""make_report.py: turns what scripts/main.sh left in REPORT_DIR/raw into REPORT_DIR/report.md
and its PNG plots, prints a short summary table, and (--check) checks that the numbers are sane.

    python3 scripts/report/make_report.py REPORT_DIR [--check] [--no-plots]

--check fails (exit status 1) when a figure is missing where it should exist, not positive and
finite, or beyond physical limits (a CPU GEMM faster than cores x 6 GHz x 64 FLOP/cycle, a GPU
above 2,000 TFLOP/s or 20 TB/s); it warns when a CPU GEMM beats the FMA peak measured in the same
run by more than 20% (the peak was then measured on a busy machine). docs/report.md describes
the report; scripts/report/test_report.py runs this on recorded results.
"""
import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from results import Results, finite, fmt, fmt_bytes, gemm_precision, gemm_reference  # noqa: E402

BUSY_PCT = 10  # other processes above this share of the CPUs: the figures are not worth quoting
# An op above this fraction of its copy ceiling outran the copy (write-allocate explains up to
# about 1.12): the ceiling was measured low, and the row says so.
ABOVE_CEILING = 1.25
# Ops that only read: a copy's two counted streams are three real ones (the store reads its line
# first), a read-only op's one is one, so at the same real bandwidth it shows 3/2 of the copy's
# rate; its mark waits for 3/2 / (9/8) = 4/3 times the add's limit.
READ_ONLY_OPS = {"sum"}
READ_ONLY_HEADROOM = 4 / 3


def gf(x):
    return fmt(x / 1e9) if x else "-"


def pct(x):
    return f"{100 * x:.0f}%" if x is not None and finite(x) else "-"


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def img(plots, key, alt):
    path = plots.get(key)
    return f"![{alt}]({os.path.basename(path)})\n" if path else ""


def no_gpu(r):
    return f"No GPU: {r.gpu_reason()}."


def seed_text(line):
    """'rc=0 wall_s=0.176' -> '0.176 s, exit status 0'."""
    kv = dict(p.split("=", 1) for p in line.split() if "=" in p)
    return f"{kv.get('wall_s', '?')} s, exit status {kv.get('rc', '?')}"


def ms_us(ms):
    """A time in ms, shown in us below 1 ms."""
    if ms is None:
        return "-"
    return f"{fmt(ms * 1e3)} us" if ms < 1 else f"{fmt(ms)} ms"


# ---------------------------------------------------------------------------------------------
# the summary (report and console)


def summary_rows(r):
    rows = []
    peak = r.fma_peak()
    if peak:
        rows.append(("CPU FMA peak, float32", ", ".join(
            f"{gf(p['best'])} GFLOP/s ({t} thr.)" for t, p in sorted(peak.items()))))
    bw = r.memory_bandwidth()
    if bw:
        rows.append(("CPU copy bandwidth (main memory)", ", ".join(
            f"{gf(b)} GB/s ({t} thr.)" for t, (b, _) in sorted(bw.items()))))
    s1 = r.seed1()
    if "cpu_ms" in s1:
        txt = f"CPU {ms_us(s1['cpu_ms'])}"
        if "gpu_total_ms" in s1:
            txt += (f"; GPU {ms_us(s1['gpu_total_ms'])} with copies ({s1['speedup_with_copies']:.1f}x), "
                    f"{ms_us(s1['compute_ms'])} matmul only ({s1['speedup_compute_only']:.1f}x)")
        else:
            txt += "; GPU: none"
        rows.append(("seed 1: 1000x1000 matmul", txt))
    s2 = r.seed2()
    if "cpu_ms" in s2:
        txt = f"CPU {ms_us(s2['cpu_ms'])}"
        txt += f", GPU {ms_us(s2['gpu_ms'])}" if "gpu_ms" in s2 else "; GPU: none"
        rows.append(("seed 2: training step (Linear 10->1)", txt))
    m = r.mlp()
    if "cpu" in m:
        if "gpu" in m:
            c = r.crossover()
            txt = f"GPU faster from width {c}" if c else "GPU never faster in the widths measured"
            c2 = r.crossover("gpu_copy")
            if "gpu_copy" in m:
                txt += f"; with the batch copied each step: from {c2}" if c2 else \
                    "; with the batch copied each step: never"
        else:
            w, ms = m["cpu"][-1][0], m["cpu"][-1][1]
            txt = f"CPU only (width {w}: {ms_us(ms)} per step)"
        rows.append(("MLP crossover (batch %d)" % r.mlp_batch(), txt))
    g = r.gemm_cpu()
    if g:
        tmax = max(t for libs in g.values() for t in libs)
        ns = sorted({n for libs in g.values() for n, _ in libs.get(tmax, [])})
        n = 1024 if 1024 in ns else (ns[-1] if ns else None)
        if n:
            parts = []
            for lib, name in (("wick", "wick"), ("openblas", "OpenBLAS"), ("torch", "libtorch")):
                v = dict(g.get(lib, {}).get(tmax, [])).get(n)
                parts.append(f"{name} {fmt(v)}" if v else f"{name} " + (
                    "not installed" if "not installed" in r.peer_status(
                        {"openblas": "openblas", "torch": "libtorch"}.get(lib, "")) else "-"))
            rows.append((f"CPU GEMM N={n}, {tmax} thr. (GFLOP/s)", ", ".join(parts)))
    gg = r.gemm_gpu()
    if gg:
        # Per precision, at the largest N both ran: the fastest wick kernel against its cuBLAS.
        parts = []
        for prec in ("FP32", "TF32", "BF16"):
            ref = dict(gg.get(gemm_reference(prec), []))
            mine = [(k, dict(v)) for k, v in gg.items()
                    if gemm_precision(k) == prec and not k.startswith("cuBLAS")]
            common = sorted(set(ref).intersection(*[set(d) for _, d in mine])) if mine and ref else []
            if not common:
                continue
            n = common[-1]
            k, d = max(mine, key=lambda kd: kd[1][n])
            parts.append(f"{prec} {k} {fmt(d[n])} at N = {n} ({pct(d[n] / ref[n])} of cuBLAS)")
        if parts:
            rows.append(("GPU matmul, best wick kernel per precision, TFLOP/s", "; ".join(parts)))
    ops = [o for o in r.membound_cpu() if o[0] == "add" and o[1]]
    if ops:
        label, nbytes, bps, threads, program = max(ops, key=lambda o: o[1])
        ceil, _ = r.op_ceiling(program, nbytes, threads)
        rows.append((f"CPU add, {fmt_bytes(nbytes)} moved", f"{gf(bps)} GB/s ({pct(bps / ceil if ceil else None)} of copy)"))
    gops, copy = r.membound_gpu()
    if gops:
        worst = min((o for o in gops if o[2]), key=lambda o: o[2], default=None)
        if worst:
            rows.append(("GPU memory-bound ops", f"device copy {fmt(copy)} GB/s; lowest: {worst[0]} at {pct(worst[2])}"))
    load = r.max_foreign_load()
    if load is not None:
        verdict = "quiet" if load <= BUSY_PCT else "BUSY: figures are lower bounds"
        rows.append(("machine load during the runs", f"other processes up to {load}% of the CPUs ({verdict})"))
    if not r.gpu_used():
        rows.append(("GPU", "no GPU: " + r.gpu_reason()))
    return rows


# ---------------------------------------------------------------------------------------------
# the report


def section_machine(r):
    out = ["## 1. The machine", ""]
    threads = r.hw_threads()
    caches = []
    for b in r.benches.values():
        for c in b.context.get("caches", []):
            if c.get("type") in ("Data", "Unified"):
                sharing = c.get("num_sharing", 1)
                caches.append(f"L{c['level']} {fmt_bytes(c['size'])}"
                              + (f" (one per {sharing} threads)" if sharing > 1 else " (per thread)"))
        if caches:
            break
    out.append(f"**CPU**: {r.cpu_model() or 'unknown'}, {threads or '?'} hardware threads"
               + (f"; caches {', '.join(caches)}" if caches else "") + ".")
    out.append("")
    peak, bw = r.fma_peak(), r.copy_curve()
    if peak or bw:
        ts = sorted(set(peak) | set(bw))
        rows = []
        if peak:
            isa = next(iter(peak.values()))["isa"]
            rows.append([f"FMA peak, float32 ({isa}): GFLOP per second of the threads' own CPU time, best (median)"] + [
                f"**{gf(peak[t]['best'])}** ({gf(peak[t]['median'])})" if t in peak else "-" for t in ts])
            rows.append(["the same loop: GFLOP per second of wall clock in this run, best (median)"] + [
                f"{gf(peak[t]['wall_best'])} ({gf(peak[t]['wall_median'])})" if t in peak else "-" for t in ts])
        if bw:
            big = {t: pts[-1] for t, pts in bw.items()}
            size = fmt_bytes(next(iter(big.values()))[0] / 2)
            rows.append([f"copy bandwidth, memcpy of {size}, GB/s: best (median)"] + [
                f"**{gf(big[t][1])}** ({gf(big[t][2])})" if t in big else "-" for t in ts])
        out.append(table(["measured here"] + [f"{t} thread{'s' if t > 1 else ''}" for t in ts], rows))
        out.append("")
        if peak:
            out.append("The FMA peak is the cores' capacity: each thread's FLOPs per second of its own CPU "
                       "time, summed over the threads, which other processes taking a core for a while hardly "
                       "change; the wall-clock row shows what this run actually got. Percentages of peak "
                       "below divide by the capacity, or by bench/cpu's own start-up peak where that is higher.")
            out.append("")
        g = r.b("cpu_gemm")
        if g and g.context.get("fma_peak_gflops_1_thread"):
            out.append(f"bench/cpu measures its own FMA peak at start-up (with the GEMM's ISA, "
                       f"{g.context.get('wick_gemm_isa', '?')}): "
                       f"{fmt(float(g.context['fma_peak_gflops_1_thread']))} GFLOP/s on 1 thread, "
                       f"{fmt(float(g.context.get('fma_peak_gflops_2_threads', 'nan')))} on 2; its "
                       f"`peak_frac` counters divide by those. The report divides by the higher of that and the "
                       f"table above: both are ceilings, which a busy moment of the VM only lowers.")
            out.append("")
    else:
        out += ["The machine-info program did not run: no measured peak or bandwidth.", ""]
    info = r.gpu_info()
    if r.gpu_used() and info:
        rows = [["GPU", info.get("gpu", "?")],
                ["SMs", info.get("gpu_sms", "?")],
                ["compute capability", info.get("gpu_compute_capability", "?")],
                ["memory", f"{fmt(float(info['gpu_memory_gib']))} GiB" if "gpu_memory_gib" in info else "?"],
                ["L2", f"{fmt(float(info['gpu_l2_mib']))} MiB" if "gpu_l2_mib" in info else "?"],
                ["device copy bandwidth (measured)", f"**{fmt(info.get('device_copy_gbps'))} GB/s**"],
                ["cuBLAS float32 matmul peak (measured)", f"**{fmt(info.get('cublas_peak_tflops'))} TFLOP/s**"],
                ["CUDA runtime / driver API", f"{info.get('cuda_runtime', '?')} / {info.get('cuda_driver_api', '?')}"]]
        if r.versions.get("nvidia_smi"):
            rows.append(["nvidia-smi (name, driver, memory, max SM clock, power limit)", r.versions["nvidia_smi"]])
        out += [table(["", ""], rows), ""]
    else:
        out += [f"**GPU**: none used: {r.gpu_reason()}.", ""]
    v = r.versions
    rows = [["wick", v.get("wick_commit", "?")],
            ["compiler", v.get("compiler", "?")],
            ["CMake", v.get("cmake", "?")],
            ["build", f"{v.get('build_type', '?')}, CUDA backend {v.get('cuda_backend', '?')}"],
            ["CUDA (nvcc)", v.get("nvcc", "not installed") + (" (installed; the backend was not built)"
                                                              if v.get("nvcc") and v.get("cuda_backend") == "off" else "")],
            ["OpenBLAS", v.get("openblas", "unknown")],
            ["libtorch", v.get("libtorch", "unknown")],
            ["Google Benchmark", v.get("benchmark_lib", "?")],
            ["OS", v.get("os", "?")],
            ["OpenMP threads", v.get("omp_num_threads", "?")]]
    out += [table(["version", ""], rows), ""]
    return out


def section_seed1(r, plots):
    out = ["## 2. Seed program 1: a 1000x1000 matmul", ""]
    seeds = r.seeds.get("matmul")
    if seeds:
        printed = ""
        p = os.path.join(r.raw, "seed_matmul.txt")
        if os.path.exists(p):
            printed = open(p).read().strip().splitlines()[-1:] or [""]
            printed = printed[0]
        out.append(f"`examples/matmul` (the README's program, as a user runs it) printed `{printed}`; "
                   f"the whole process ({seed_text(seeds)}) includes start-up"
                   + (", CUDA context creation" if r.gpu_used() else "") + " and the random inputs.")
        out.append("")
    s = r.seed1()
    if "cpu_ms" not in s:
        return out + ["No seed-1 figures (bench_training did not run).", ""]
    rows = [["CPU: matmul", ms_us(s["cpu_ms"]), f"{ms_us(s['cpu_p10'])} to {ms_us(s['cpu_p90'])}", fmt(s.get("cpu_gflops"))]]
    if "gpu_total_ms" in s:
        rows += [["GPU: copy x, y to the GPU (2 x 4 MB)", ms_us(s["h2d_ms"]), "", ""],
                 ["GPU: matmul", ms_us(s["compute_ms"]), "", fmt(s.get("gpu_gflops"))],
                 ["GPU: copy the result back (4 MB)", ms_us(s["d2h_ms"]), "", ""],
                 ["GPU: total, as the seed program does it", f"**{ms_us(s['gpu_total_ms'])}**", "", ""]]
    out += [table(["", "median", "p10 to p90", "GFLOP/s"], rows), ""]
    if "gpu_total_ms" in s:
        out.append(f"Speedup of the GPU over the CPU: **{s['speedup_with_copies']:.1f}x with the copies**, "
                   f"**{s['speedup_compute_only']:.1f}x for the matmul alone**. The copies cross PCIe "
                   f"(or the host link); at N = 1000 the matmul is only 2 GFLOP, so they weigh.")
        out.append("")
        out.append(img(plots, "plot_seed1", "seed program 1: CPU time against the GPU's copy, compute and copy back"))
    else:
        out += [f"GPU columns missing: {r.gpu_reason()}.", ""]
    if "gpu_error" in s:
        out += [f"The GPU run failed: {s['gpu_error']}", ""]
    return out


def section_training(r, plots):
    out = ["## 3. Seed program 2 and an MLP: the training step", ""]
    seeds = r.seeds.get("train_linear")
    if seeds:
        p = os.path.join(r.raw, "seed_train_linear.txt")
        printed = open(p).read().strip().splitlines() if os.path.exists(p) else []
        out.append(f"`examples/train_linear` ({seed_text(seeds)}) printed: " + "; ".join(f"`{x}`" for x in printed[-2:]))
        out.append("")
    s2 = r.seed2()
    if "cpu_ms" in s2:
        rows = [["CPU", ms_us(s2["cpu_ms"]), f"{ms_us(s2['cpu_p10'])} to {ms_us(s2['cpu_p90'])}"]]
        if "gpu_ms" in s2:
            rows.append(["GPU", ms_us(s2["gpu_ms"]), f"{ms_us(s2['gpu_p10'])} to {ms_us(s2['gpu_p90'])}"])
        out += ["Its step (Linear 10->1, batch 64, MSELoss, zero_grad, backward, SGD step), timed alone:", "",
                table(["", "step, median", "p10 to p90"], rows), ""]
    m = r.mlp()
    if "cpu" not in m:
        return out + ["No MLP figures (bench_training did not run).", ""]
    batch = r.mlp_batch()
    out += [f"**The crossover.** One training step of Linear(W, W), ReLU, Linear(W, W) on a batch of "
            f"{batch} (forward, MSELoss, zero_grad, backward, SGD step; 5 matmuls of 2·{batch}·W² FLOPs) "
            f"for W from {m['cpu'][0][0]} to {m['cpu'][-1][0]}.", ""]
    out.append(img(plots, "plot_crossover", "training step time against model width, CPU and GPU"))
    cpu = {w: (ms, gfl) for w, ms, _, _, gfl in m["cpu"]}
    cpu1 = {w: ms for w, ms, *_ in m.get("cpu_1thread", [])}
    best = r.best_cpu_step()
    gpu = {w: (ms, gfl) for w, ms, _, _, gfl in m.get("gpu", [])}
    gpc = {w: ms for w, ms, *_ in m.get("gpu_copy", [])}
    rows = []
    for w in sorted(cpu):
        row = [w, ms_us(cpu[w][0]), ms_us(cpu1.get(w)), fmt(cpu[w][1])]
        if gpu:
            g = gpu.get(w)
            row += [ms_us(g[0]) if g else "-", fmt(g[1]) if g else "-", ms_us(gpc.get(w)),
                    f"{best[w] / g[0]:.2f}x" if g else "-"]
        rows.append(row)
    threads = r.hw_threads()
    header = ["W", f"CPU step, {threads} threads", "CPU step, 1 thread", f"CPU GFLOP/s ({threads} thr.)"]
    if gpu:
        header += ["GPU step", "GPU GFLOP/s", "GPU step, batch copied", "GPU speedup over the best CPU"]
    out += [table(header, rows), ""]
    lat = r.op_latency()
    peak = r.peak_for(max(r.fma_peak())) if r.fma_peak() else None
    if gpu:
        c = r.crossover()
        w0 = min(gpu)
        out.append(f"The GPU is faster than the best CPU step (all threads or one) from **W = {c}**" if c
                   else "The GPU was not faster at any width measured")
        out[-1] += (f". Below that a step is a few dozen small ops (forward, loss, backward and the SGD "
                    f"update of 4 tensors), and on the GPU each costs a launch: one a + b on 64x10 floats "
                    f"takes {fmt(lat.get('gpu_sync'))} us launched and waited for, {fmt(lat.get('gpu_queued'))} us "
                    f"when queued behind others, against {fmt(lat.get('cpu'))} us on the CPU. At W = {w0} the GPU "
                    f"step ({ms_us(gpu[w0][0])}) is that overhead; the FLOPs are negligible. The CPU line grows "
                    f"with W² from the start, the GPU line stays flat until the matmuls fill the GPU. "
                    f"Copying the batch in and the loss out every step (the light green line) adds a transfer "
                    f"and a synchronisation per step and moves the crossover"
                    + (f" to W = {r.crossover('gpu_copy')}." if r.crossover("gpu_copy") else " beyond the widths measured."))
        out.append("")
    else:
        out.append(f"Without a GPU only the CPU lines are drawn. ")
        if peak:
            w_hi = max(cpu)
            eff = 5 * 2 * batch * w_hi * w_hi / (best[w_hi] / 1e3) / peak
            w_lo = min(cpu)
            out[-1] += (f"The dashed line is the step's FLOPs at the measured FMA peak: at W = {w_lo} the CPU "
                        f"step ({ms_us(best[w_lo])}) is per-op overhead (one small a + b costs "
                        f"{fmt(lat.get('cpu'))} us), at W = {w_hi} the best CPU step runs at {pct(eff)} of the "
                        f"{threads}-thread peak. On a GPU "
                        f"the overhead per op is larger (a kernel launch, microseconds) and the peak far higher, "
                        f"which is why small models lose there and large ones win.")
        out.append("")
    vt = r.vs_libtorch()
    if any(what in TRAINING_VS_TORCH for what, _ in vt):
        rows = []
        for (what, args), d in sorted(vt.items()):
            if what in TRAINING_VS_TORCH:
                parts = args.split("/")
                label = {"add_small": "a + b, 64x10 floats", "seed_step": "seed step (Linear 10->1, batch 64)",
                         "mlp_step": "MLP step (1024 wide, batch 256)",
                         "mlp_step_torch_blas_threads": "the same, libtorch on 1 intra-op thread and OpenBLAS on all",
                         "first_grad": "a leaf's first gradient, 1024x1024 ((w * 2).sum().backward())",
                         "cross_entropy_step": "cross_entropy forward and backward, [256, 10] logits"
                         }.get(what, what.replace("_", " "))
                if what == "add_small" and len(parts) == 2:
                    label += ", requires_grad" if parts[0] == "1" else ""
                    parts = parts[1:]
                rows.append([label, parts[0], ms_us(d["wick"]), ms_us(d["torch"]), speedup_cell(d)])
        out += ["The same kind of work against libtorch on the CPU (bench_vs_libtorch, same threads; "
                + VS_TORCH_HOW + "):", "",
                table(["what", "threads", "wick", "libtorch", "wick's speed / libtorch's"], rows), ""]
        torch_1, torch_n = vt.get(("mlp_step", "1"), {}).get("torch"), vt.get(("mlp_step", "2"), {}).get("torch")
        if torch_1 and torch_n and torch_n > torch_1:
            out += [f"libtorch's MLP step took longer on 2 threads than on 1 ({ms_us(torch_n)} against "
                    f"{ms_us(torch_1)}). Debian's libtorch runs its matmuls on OpenBLAS's own threads and its "
                    "other ops on its OpenMP team; with both pools on 2 threads and no spare core, each pool's idle "
                    "spinning takes the cores the other needs."
                    + (" The row below the 2-thread one gives libtorch one intra-op thread and OpenBLAS both, its "
                       "fastest setting on this kind of machine (bench/cpu/torch_threads.py)."
                       if ("mlp_step_torch_blas_threads", "2") in vt else ""), ""]
    return out


# How bench_vs_libtorch's tables were measured, for their captions.
VS_TORCH_HOW = ("the two timed interleaved in rounds, times are each library's median round, the ratio is the "
                "median of the per-round ratios with the middle half of the rounds in brackets; above 1: wick "
                "is faster")


def speedup_cell(d):
    """wick's speed over libtorch's: the median of the rounds with their middle half."""
    med, lo, hi = d["vs"]
    return f"{med:.2f} ({lo:.2f}-{hi:.2f})"


def vs_cell(vs, peer, gflops):
    """wick's speed as a share of peer's: the paired median with its middle half, or else the
    ratio of the separately measured rates."""
    if peer in vs:
        med, lo, hi = vs[peer]
        return f"{pct(med)} ({pct(lo)[:-1]}-{pct(hi)})" if lo is not None and hi is not None else pct(med)
    w, p = gflops.get("wick"), gflops.get(peer)
    return pct(w / p) if w and p else "-"


# bench_vs_libtorch's bfloat16 matmul rows (1024 x 1024 operands): section 4.
GEMM_BF16_VS_TORCH = {"matmul_bf16": "a @ b", "matmul_transposed_bf16": "a @ b.t()"}


def gemm_bf16_vs_torch(r):
    """Section 4's bfloat16 table against libtorch, or [] when bench_vs_libtorch did not run."""
    vt = r.vs_libtorch()
    flop = 2.0 * 1024 ** 3
    rows = [[label, t, fmt(flop / (d["wick"] * 1e-3) / 1e9), fmt(flop / (d["torch"] * 1e-3) / 1e9), speedup_cell(d)]
            for what, label in GEMM_BF16_VS_TORCH.items()
            for (w, t), d in sorted(vt.items(), key=lambda kv: kv[0][1]) if w == what]
    if not rows:
        return []
    return ["bfloat16, 1024 x 1024 operands, against libtorch (bench_vs_libtorch, same threads; float32 sums "
            "rounded once to bfloat16 in both; wick uses `vdpbf16ps` where the CPU has AVX512_BF16, float32 copies "
            "elsewhere; " + VS_TORCH_HOW + "), GFLOP/s:", "",
            table(["product", "threads", "wick", "libtorch", "wick's speed / libtorch's"], rows), ""]


def section_gemm(r, plots):
    out = ["## 4. GEMM", ""]
    g = r.gemm_cpu()
    paired = r.gemm_cpu_paired()
    if g:
        out.append(img(plots, "plot_gemm_cpu", "CPU GEMM GFLOP/s against N for wick, OpenBLAS and libtorch"))
        if paired:
            rounds = sorted({d["rounds"] for d in paired.values()})
            out += ["The libraries were timed interleaved, in rounds (" + f"{rounds[0]} to {rounds[-1]} per row"
                    + "): each round runs every library once, in turn, so all of them meet the machine in the same "
                    "state; on a shared VM whose speed drifts from second to second, a ratio of separate runs would "
                    "measure the drift. GFLOP/s is each library's median round; \"wick, % of\" is the median of "
                    "the per-round speed ratios, with the middle half of the rounds (25th to 75th percentile) in "
                    "brackets.", ""]
        for t in sorted({t for libs in g.values() for t in libs}, reverse=True):
            peak = r.peak_for(t)
            ns = sorted({n for libs in g.values() for n, _ in libs.get(t, [])})
            rows = []
            slower = False  # a library slower on these threads than on one (its threading, not its kernel)
            for n in ns:
                v = {lib: dict(g.get(lib, {}).get(t, [])).get(n) for lib in ("wick", "openblas", "torch")}
                one = {lib: dict(g.get(lib, {}).get(1, [])).get(n) for lib in ("wick", "openblas", "torch")}
                row = [n]
                for lib in ("wick", "openblas", "torch"):
                    if not v[lib]:
                        row.append("not installed" if lib not in g else "-")
                        continue
                    mark = "*" if t > 1 and one[lib] and v[lib] < 0.9 * one[lib] else ""
                    slower = slower or bool(mark)
                    row.append(fmt(v[lib]) + mark)
                vs = paired.get((f"{n}x{n}x{n}", t), {}).get("vs", {})
                row += [pct(v["wick"] * 1e9 / peak) if v["wick"] and peak else "-",
                        vs_cell(vs, "openblas", v), vs_cell(vs, "torch", v)]
                rows.append(row)
            out += [f"CPU, float32, {t} thread{'s' if t > 1 else ''}, GFLOP/s ("
                    + ("each library's median round" if paired else "median time") + "):", "",
                    table(["N", "wick", "OpenBLAS", "libtorch", "wick, % of peak", "wick, % of OpenBLAS", "wick, % of libtorch"], rows), ""]
            if slower:
                out += ["\\* more than 10% slower than the same library on 1 thread at this size: a cost of its "
                        "threading here, so the ratio against it says more about threading than about its kernel.", ""]
        shapes = r.gemm_cpu_shapes()
        if shapes:
            rows = {}
            for shape, lib, t, v in shapes:
                rows.setdefault((shape, t), {})[lib] = v
            out += ["Other shapes (M x K x N, T: B transposed), GFLOP/s:", "",
                    table(["shape", "threads", "wick", "OpenBLAS", "libtorch", "wick, % of OpenBLAS",
                           "wick, % of libtorch"],
                          [[s, t, fmt(d.get("wick")), fmt(d.get("openblas")), fmt(d.get("torch")),
                            vs_cell(paired.get((s, t), {}).get("vs", {}), "openblas", d),
                            vs_cell(paired.get((s, t), {}).get("vs", {}), "torch", d)]
                           for (s, t), d in sorted(rows.items())]), ""]
        lad = r.gemm_ladder_cpu()
        if lad:
            out += ["The CPU ladder at N = 1024 (docs/cpu-gemm.md: each rung one idea more):", "",
                    table(["rung", "threads", "GFLOP/s", "% of peak"],
                          [[k, t, fmt(v), pct(v * 1e9 / r.peak_for(t)) if r.peak_for(t) else "-"] for k, t, v in lad]), ""]
        out += gemm_bf16_vs_torch(r)
    else:
        fb = r.gemm_cpu_fallback()
        why = r.skipped.get("cpu_gemm", "bench/cpu is not built in this checkout")
        out += [f"No library comparison: {why}. OpenBLAS: {r.peer_status('openblas')}; libtorch: {r.peer_status('libtorch')}.", ""]
        if fb:
            out += ["wick's matmul through the tensor API (bench_cpu_ops):", "",
                    table(["N", "GFLOP/s"], [[n, fmt(v)] for n, v in fb]), ""]
    gg = r.gemm_gpu()
    if gg:
        out.append(img(plots, "plot_gemm_gpu", "GPU matmul TFLOP/s against N for each kernel and cuBLAS"))
        ns = sorted({n for pts in gg.values() for n, _ in pts})
        order = {"FP32": 0, "TF32": 1, "BF16": 2}
        kernels = sorted(gg, key=lambda k: (order[gemm_precision(k)], k.startswith("cuBLAS"), k))
        rows = []
        for k in kernels:
            d = dict(gg[k])
            # Each kernel against cuBLAS of its own precision; a cuBLAS row is the reference itself.
            ref = gemm_reference(k)
            cub = dict(gg.get(ref, [])) if k != ref else {}
            rows.append([k, gemm_precision(k)] +
                        [f"{fmt(d[n])} ({pct(d[n] / cub[n])})" if n in d and n in cub else fmt(d.get(n)) for n in ns])
        out += ["GPU matmul by precision (FP32: CUDA cores; TF32: tensor cores on float32 operands rounded to "
                "TF32; BF16: bfloat16 operands; all accumulate in float32), TFLOP/s (% of the cuBLAS row of the same precision at "
                "the same N: SGEMM, cublasGemmEx TF32 or BF16):", "",
                table(["kernel", "precision"] + [f"N = {n}" for n in ns], rows), ""]
    else:
        out += [f"GPU matmul: not measured. {no_gpu(r)}", ""]
    return out


# bench_vs_libtorch's rows: the training work (section 3) and the memory-bound ops (section 5).
TRAINING_VS_TORCH = ("add_small", "seed_step", "mlp_step", "mlp_step_torch_blas_threads", "first_grad",
                     "cross_entropy_step")
MEMBOUND_VS_TORCH = {"add": "a + b", "add_alpha": "a.add(b, alpha)", "mul_scalar": "a * 0.5",
                     "where_scalar": "where(mask, 0, g)", "relu": "relu", "gt_zero": "a > 0", "exp": "exp", "sum": "sum",
                     "softmax_rows": "softmax over rows of 1024",
                     "layer_norm": "layer_norm over rows of 1024, weight and bias",
                     "layer_norm_step": "layer_norm, then backward from the sum into x, weight and bias",
                     "sqrt": "sqrt", "log": "log",
                     "clamp": "clamp(a, -0.5, 0.5)", "amax_columns": "amax over dim 0",
                     "sum_columns": "sum over dim 0",
                     "softmax_columns": "softmax over dim 0", "matrix_vector": "[1024, 1024] @ [1024]",
                     "transposed_copy": "a.t().contiguous()",
                     "max_rows": "max over dim 1, with indices", "amax_rows": "amax over dim 1",
                     "sum_rows": "sum over dim 1", "sum_short_rows": "sum over dim 1 of a [256, 10]",
                     "sum_short_columns": "sum over dim 0 of a [256, 10]",
                     "add_bf16": "a + b, bfloat16", "exp_bf16": "exp, bfloat16", "sum_bf16": "sum, bfloat16",
                     "relu_bf16": "relu, bfloat16", "sum_columns_bf16": "sum over dim 0, bfloat16",
                     "softmax_rows_bf16": "softmax over rows of 1024, bfloat16",
                     "softmax_columns_bf16": "softmax over dim 0, bfloat16",
                     "transposed_copy_bf16": "a.t().contiguous(), bfloat16",
                     "exp_transposed": "exp of a.t()", "mul_transposed": "a.t() * b.t()",
                     "add_mixed_layouts": "a.t() + b"}


def membound_vs_torch(r):
    """Section 5's table against libtorch, or [] when bench_vs_libtorch did not run."""
    vt = r.vs_libtorch()
    rows = []
    for what, label in MEMBOUND_VS_TORCH.items():
        for (w, args), d in sorted(vt.items(), key=lambda kv: kv[0][1]):
            if w == what:
                rows.append([label, args, ms_us(d["wick"]), ms_us(d["torch"]), speedup_cell(d)])
    if not rows:
        return []
    return ["The same ops against libtorch (bench_vs_libtorch, same threads; float32, 2^20 elements as "
            "[1024, 1024] (bfloat16 where the op says so), a new output on every call in both libraries; " + VS_TORCH_HOW + "):",
            "", table(["op", "threads", "wick", "libtorch", "wick's speed / libtorch's"], rows), "",
            "wick's sum adds in double (32 double lanes for float32: a float64 sum rounded to float32 at the end, the same "
            "for any thread count); libtorch 1.13's adds in float32 (checked with python3-torch: its sum of 2^22 "
            "uniform floats differed from the float64 sum rounded to float32 in 6 of 20 draws)."
            + (" Converting each float to double costs it speed: here wick's sum ran at "
               + " and ".join(f"{d['vs'][0]:.2f} of libtorch's speed on {t} thread{'s' if t != '1' else ''}"
                              for (w, t), d in sorted(vt.items()) if w == "sum") + "."
               if any(w == "sum" and d["vs"][0] < 1 for (w, _), d in vt.items()) else ""), ""]


def section_membound(r, plots):
    out = ["## 5. Memory-bound ops", ""]
    ops = r.membound_cpu()
    if ops or r.copy_curve():
        out.append(img(plots, "plot_membound_cpu", "CPU bytes per second against size with the copy ceiling"))
        rows = []
        above = False
        for label, nbytes, bps, threads, program in sorted(ops, key=lambda o: (o[0], o[1] or 0)):
            # A memcpy row against machine_info's: how far two programs' copies drift apart.
            if label.startswith("memcpy"):
                ceil, source = r.ceiling_at(nbytes, threads) if nbytes else None, "machine_info"
            else:
                ceil, source = r.op_ceiling(program, nbytes, threads) if nbytes else (None, "-")
            ratio = bps / ceil if ceil and bps else None
            limit = ABOVE_CEILING * (READ_ONLY_HEADROOM if label in READ_ONLY_OPS else 1)
            mark = " (!)" if ratio and ratio > limit else ""
            above = above or bool(mark)
            rows.append([label, threads or "-", fmt_bytes(nbytes) if nbytes else "-", gf(bps),
                         gf(ceil) if ceil else "-", pct(ratio) + mark, source])
        out += ["CPU, float32; each op against a memcpy on the same number of threads at the same working set "
                "(interpolated in log size; past the largest, its value: main memory), timed by the same "
                "program in the same run where it has one (\"same program\"), else by machine_info. The "
                "memcpy rows of bench_cpu_ops are set against machine_info's: the gap is how much the "
                "machine's bandwidth moved between the two programs.", "",
                table(["op", "threads", "bytes moved per call", "GB/s", "copy ceiling, GB/s", "% of ceiling",
                       "ceiling timed by"], rows),
                ""]
        out.append("add, exp, sum and softmax go through the tensor API (bench_cpu_ops: `a + b` allocates "
                   "its output on every call); \"add kernel\" (bench/cpu) calls the CPU kernel into an output "
                   "allocated once. Stores that go through the cache read each destination line first, so memcpy's two "
                   "counted streams are three real ones and an add's three are four: at the same real bandwidth an add "
                   "shows 9/8 of the copy's rate, up to about 112% of the ceiling, and a sum, which only reads, 3/2 "
                   "(up to 150%). Far above that, the ceiling was "
                   "measured while other processes held the CPUs (section 6), or the op's data stayed in a cache "
                   "the copy did not fit.")
        if above:
            out += ["", f"(!) more than {ABOVE_CEILING:.0%} of the ceiling "
                    f"({ABOVE_CEILING * READ_ONLY_HEADROOM:.0%} for a sum): the op outran the copy it is set "
                    "against, so that ceiling is too low there and the percentage says nothing. On a virtual "
                    "machine the second vCPU's memory bandwidth changes between programs, and between minutes of "
                    "one program, without any process being busy (the 2-thread copy of 256 MiB gave 34 GB/s in "
                    "one quiet run of this command and 51 GB/s in another, on the same VM); quiet-run cannot see "
                    "it. A ceiling timed by the same program, minutes from the op, drifts less than machine_info's."]
        out.append("")
    out += membound_vs_torch(r)
    gops, copy = r.membound_gpu()
    if gops:
        out.append(img(plots, "plot_membound_gpu", "GPU bandwidth per op against the copy ceiling"))
        out += [f"GPU, 2^26 floats, device copy ceiling {fmt(copy)} GB/s:", "",
                table(["op", "GB/s", "% of copy"], [[k, fmt(v), pct(f)] for k, v, f in gops]), ""]
        tr = r.transfers_gpu()
        if tr:
            out += ["Host-device transfers, 256 MiB:", "", table(["transfer", "GB/s"], [[k, fmt(v)] for k, v in tr]), ""]
    else:
        out += [f"GPU memory-bound ops: not measured. {no_gpu(r)}", ""]
    return out


def section_method(r):
    out = ["## 6. How it was measured", ""]
    mode = r.versions.get("mode", "?")
    out += [
        f"- **Mode**: {mode} (`--quick` shortens every run; a full run uses longer minimum times, more "
        "repetitions, widths up to 4096 and the whole GEMM suite).",
        "- **Warm-ups**: every program runs its work before timing it: Google Benchmark's warm-up "
        "(`--benchmark_min_warmup_time`, " + ("0.1 s" if mode == "quick" else "0.2 s") + " of untimed calls "
        "per benchmark in cpu_ops and bench/cpu, so a slow first call that faults in fresh pages "
        "is never the one timed; one untimed call per library before the paired rows of bench/cpu and "
        "vs_libtorch; machine_info writes its buffers before timing, and Google Benchmark's "
        "iteration-count search runs before its first repetition), one untimed call (bench/cpu's "
        "GEMMs), 1 to 5 untimed training steps and 20 untimed calls before the per-op latencies "
        "(bench_training: caching allocator, OpenMP pool, cuBLAS handle, first-touch pages), 3 untimed "
        "runs (bench/gpu).",
        "- **Repetitions and medians**: bench_training times single steps until 50 (quick: 15) or its time "
        "budget (2 s; quick: 0.25 s) is spent, at least 3, and reports the median with p10, p90, min and max. "
        "machine_info repeats each row (copy: 5, quick 3; FMA: twice as many, shorter) and gives the ceiling "
        "as the best repetition (a busy machine only lowers a ceiling) with the median beside it. "
        "bench/gpu reports the median of 10 to 30 timed runs (5 for the largest GEMMs). cpu_ops and bench/cpu's "
        "unpaired rows run each benchmark 3 times and report the median repetition, each repetition being Google "
        "Benchmark's mean over the iterations that fill its min time ("
        + ("0.05 s" if mode == "quick" else "0.25 s") + "). All rates here are per second of wall clock.",
        ] + (["- **wick against the libraries**: bench/cpu's float32 GEMM rows (`sgemm_paired`) and vs_libtorch's "
              "rows (`paired/`) time the libraries "
              "interleaved, once each per round in rotating order, in 5 to 50 rounds per row. A round's entry for a "
              "library is one call, or on small sizes the median call of a short block (5 ms on 1 thread, 20 ms on "
              "more; the first call of a block, which wakes the thread pool, dropped; calls under 50 us timed in batches, so "
              "that the clock's own cost stays out). On more than one thread each "
              "block starts after a 0.15 s pause: an idle OpenMP or OpenBLAS pool keeps spinning for a while after a "
              "call (OpenBLAS's for about 0.1 s) and, with no spare core, slows the library that runs next."]
             if r.gemm_cpu_paired() or r.vs_libtorch() else []) + [
        "- **GPU timing**: bench_training uses a host clock with `wick::cuda::synchronize()` inside the timed "
        "region (the clock stops when the GPU is done, as a user waits); bench/gpu uses CUDA events on the "
        "stream wick queues on for device work and a host clock for transfers (`to()` returns when the data "
        "is there).",
        "- **Machine load**: each program ran under "
        + ("`../shared/tools/quiet-run` (waits up to %s s for a quiet machine, then reports the CPU time "
           "other processes used during the run)" % ("2" if mode == "quick" else "30")
           if any(x["tool"] == "quiet-run" for x in r.load) else
           "a built-in check (CPU time of all processes from /proc/stat before and after, minus the "
           "program's own)")
        + f". Above {BUSY_PCT}% of the CPUs taken by others, a figure is a lower bound, not worth quoting.",
        "- Google Benchmark prints `Library was built as DEBUG` for Debian's package: that is the library's "
        "own build, not wick's, and does not affect the timed code (wick is built Release).",
        ""]
    if r.load:
        rows = [[x["step"], x["tool"], f"{x['wall']:.1f} s", f"{x['own']:.1f} s",
                 f"{x['other']:.1f} s ({x['pct']}%)", "quiet" if x["pct"] <= BUSY_PCT else "**busy**"] for x in r.load]
        out += ["Machine load per program:", "",
                table(["program", "check", "wall", "own CPU", f"other processes (% of {r.load[0]['ncpu']} CPUs)", ""], rows), ""]
    spread = r.training_spread()
    if spread:
        worst = sorted(spread, key=lambda s: -s[2])[:5]
        out += ["Spread of bench_training's steps, (p90 - p10) / median, the five widest:", "",
                table(["benchmark", "reps", "spread"], [[n, k, pct(s)] for n, k, s in worst]), ""]
    if r.steps:
        out += ["Time per step of the suite: " + ", ".join(f"{n} {s} s" for n, s in r.steps)
                + f"; benchmarks in all: {r.versions.get('benchmarks_s', '?')} s.", ""]
    errs = [(n, e.get("name"), e.get("error_message")) for n, b in r.benches.items() for e in b.errors()]
    if errs or r.skipped or r.broken:
        out += ["Problems: " + "; ".join([f"{n}: {k}: {m}" for n, k, m in errs]
                                          + [f"{k}: {v}" for k, v in r.skipped.items()]
                                          + [f"{k}: unreadable JSON ({v})" for k, v in r.broken.items()]), ""]
    files = sorted(os.listdir(r.raw)) if os.path.isdir(r.raw) else []
    out += ["Raw results (Google Benchmark JSON, logs, versions) are in `raw/`: "
            + ", ".join(f"`{f}`" for f in files if f.endswith(".json")) + ".", ""]
    return out


def write_report(r, plots):
    v = r.versions
    lines = ["# wick benchmark report", ""]
    if r.synthetic:
        lines += ["> **SYNTHETIC TEST DATA** (scripts/report/test_report.py): not a measurement.", ""]
    lines.append(f"Made by `{v.get('command', 'scripts/main.sh')}` on {v.get('date_utc', '?')} from wick "
                 f"{v.get('wick_commit', '?')}, {v.get('mode', '?')} run, host `{v.get('host', '?')}`. "
                 + ("GPU: " + r.gpu_info().get("gpu", "yes") + "." if r.gpu_used() else
                    f"**No GPU: {r.gpu_reason()}**; the GPU sections say so."))
    lines.append("")
    load = r.max_foreign_load()
    if load is not None and load > BUSY_PCT:
        lines += [f"> **The machine was busy**: other processes used up to {load}% of the CPUs while "
                  "benchmarks ran (section 6). Multi-threaded figures suffer most: a parallel region waits "
                  "for its slowest thread. Treat every CPU figure here as a lower bound.", ""]
    lines += ["## Summary", "", table(["", ""], summary_rows(r)), ""]
    lines += section_machine(r)
    lines += section_seed1(r, plots)
    lines += section_training(r, plots)
    lines += section_gemm(r, plots)
    lines += section_membound(r, plots)
    lines += section_method(r)
    text = "\n".join(lines).replace("\n\n\n", "\n\n")
    with open(os.path.join(r.dir, "report.md"), "w") as f:
        f.write(text)
    return text


# ---------------------------------------------------------------------------------------------
# sanity checks


def check(r, plots):
    fails, warns = [], []
    if not os.path.exists(os.path.join(r.dir, "report.md")):
        fails.append("report.md was not written")
    for name, why in r.broken.items():
        fails.append(f"{name}.json unreadable: {why}")
    for name, b in r.benches.items():
        for row in b.rows:
            if row.get("error_occurred"):
                fails.append(f"{name}: {row['name']}: {row.get('error_message')}")
                continue
            for k, v in row.items():
                if isinstance(v, (int, float)) and not isinstance(v, bool) and not finite(v):
                    fails.append(f"{name}: {row['name']}: {k} = {v} is not finite")
            # The paired rows' counters (bench/paired.hpp): sgemm_paired/ in bench/cpu, paired/ in vs_libtorch.
            paired = [k for k in row if k.endswith(("_GFLOP/s", "_us")) or k.startswith("wick_vs_")]
            must = {"sgemm_paired/": "wick_GFLOP/s", "paired/": "wick_us"}
            for prefix, counter in must.items():
                if row.get("name", "").startswith(prefix) and counter not in row:
                    # A paired row skips Google Benchmark's warm-up run by counting runs (paired_rows.hpp);
                    # a library version that ran no warm-up would report the skipped run instead.
                    fails.append(f"{name}: {row['name']}: no {counter} (the reported run did not measure)")
            for k in ["real_time", "median_ms", "GFLOP/s", "TFLOP/s", "GB/s", "bytes_per_second", "FLOP/s"] + paired:
                if k in row and row.get("aggregate_name") not in ("stddev", "cv") and not (finite(row[k]) and row[k] > 0):
                    fails.append(f"{name}: {row['name']}: {k} = {row[k]} is not positive")
    for must in ("machine_info", "training", "cpu_ops"):
        if must not in r.benches:
            fails.append(f"{must}.json is missing ({r.skipped.get(must, 'did not run')})")
    if r.versions.get("gpu_used", "").startswith("yes") and "gpu" not in r.benches:
        fails.append("a GPU answered but gpu.json is missing")
    if plots is not None:
        expected = ["plot_crossover", "plot_membound_cpu"]
        if r.gemm_cpu():
            expected.append("plot_gemm_cpu")
        if r.gpu_used():
            expected += ["plot_seed1", "plot_gemm_gpu", "plot_membound_gpu"]
        for p in expected:
            path = plots.get(p)
            if not path or not os.path.exists(path) or os.path.getsize(path) < 1000:
                fails.append(f"{p}: no PNG")
    # physical limits
    threads = r.hw_threads() or 1
    for lib, per_t in r.gemm_cpu().items():
        for t, pts in per_t.items():
            bound = t * 6e9 * 64 / 1e9
            peak = r.peak_for(t)
            for n, v in pts:
                if v > bound:
                    fails.append(f"CPU GEMM {lib} N={n} {t} thr.: {v:.0f} GFLOP/s exceeds {t} x 6 GHz x 64 FLOP/cycle")
                elif peak and v > 1.2 * peak / 1e9:
                    warns.append(f"CPU GEMM {lib} N={n} {t} thr.: {v:.0f} GFLOP/s is above the measured FMA "
                                 f"peak ({peak / 1e9:.0f}): the peak was measured on a busy machine")
    for t, p in r.fma_peak().items():
        if p["best"] / 1e9 > t * 6e9 * 64 / 1e9:
            fails.append(f"FMA peak {t} thr. {p['best'] / 1e9:.0f} GFLOP/s is beyond physical limits")
    for t, pts in r.copy_curve().items():
        for nbytes, best, _ in pts:
            if best > 4e12:
                fails.append(f"CPU copy {fmt_bytes(nbytes)}: {best / 1e9:.0f} GB/s is beyond physical limits")
    for k, pts in r.gemm_gpu().items():
        for n, v in pts:
            if v > 2000:
                fails.append(f"GPU matmul {k} N={n}: {v:.0f} TFLOP/s is beyond physical limits")
    gops, copy = r.membound_gpu()
    for k, v, _ in gops + ([("device copy", copy, None)] if copy else []):
        if v > 20000:
            fails.append(f"GPU {k}: {v:.0f} GB/s is beyond physical limits")
    s1 = r.seed1()
    if "cpu_ms" in s1 and "gpu_total_ms" in s1:
        parts = s1["h2d_ms"] + s1["compute_ms"] + s1["d2h_ms"]
        if parts > 2 * s1["gpu_total_ms"] or parts < 0.5 * s1["gpu_total_ms"]:
            warns.append(f"seed 1: the GPU phases ({parts:.2f} ms) do not add up to the total ({s1['gpu_total_ms']:.2f} ms)")
    del threads
    return fails, warns


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folder")
    ap.add_argument("--check", action="store_true", help="sanity-check the numbers; exit 1 on failure")
    ap.add_argument("--no-plots", action="store_true", help="do not draw (no matplotlib)")
    a = ap.parse_args()
    r = Results(a.folder)
    plots = {}
    if not a.no_plots:
        try:
            import plots as plot_module
            plots = plot_module.draw_all(r, a.folder)
        except ImportError as e:
            print(f"make_report: no plots ({e})", file=sys.stderr)
    write_report(r, plots)
    rows = summary_rows(r)
    width = max((len(k) for k, _ in rows), default=10)
    print(f"\nwick {r.versions.get('wick_commit', '?')}, {r.versions.get('mode', '?')} run"
          + (" (SYNTHETIC TEST DATA)" if r.synthetic else ""))
    for k, v in rows:
        print(f"  {k.ljust(width)}  {v}")
    print(f"  {'report'.ljust(width)}  {os.path.join(a.folder, 'report.md')} and "
          f"{sum(1 for p in plots.values() if p)} plots")
    if a.check:
        fails, warns = check(r, None if a.no_plots else plots)
        for w in warns:
            print("check: warning: " + w)
        for f in fails:
            print("check: FAILED: " + f)
        print(f"check: {'ok' if not fails else f'{len(fails)} failure(s)'}"
              + (f", {len(warns)} warning(s)" if warns else ""))
        return 1 if fails else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
