"""results.py: reads what scripts/main.sh leaves in REPORT_DIR/raw (Google Benchmark JSON, the
seed programs' output, versions, the machine-load lines) and derives the figures the report
shows. No matplotlib here: make_report.py uses it with and without plots, plots.py draws from it.
"""
import json
import math
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "gpu"))
from gemm_table import reference_of  # noqa: E402

# ---------------------------------------------------------------------------------------------
# small helpers


def finite(x):
    return isinstance(x, (int, float)) and math.isfinite(x)


def fmt(x, digits=3):
    """A number with `digits` significant digits, or '-' when missing."""
    if x is None or not finite(x):
        return "-"
    if x == 0:
        return "0"
    mag = math.floor(math.log10(abs(x)))
    decimals = max(0, digits - 1 - mag)
    return f"{x:,.{decimals}f}"


def fmt_bytes(b):
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= scale:
            v = b / scale
            return f"{v:g} {unit}" if v == int(v) else f"{v:.1f} {unit}"
    return f"{int(b)} B"


def time_unit_s(unit):
    return {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[unit]


def read_kv(path):
    """'key: value' lines."""
    out = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                if ": " in line:
                    k, v = line.rstrip("\n").split(": ", 1)
                    out[k.strip()] = v.strip()
    return out


LOAD_RE = re.compile(
    r"^(?P<step>[^\t]+)\t(?P<tool>quiet-run|load-check): wall (?P<wall>[\d.]+)s, own CPU "
    r"(?P<own>[\d.]+)s, other processes (?P<other>[\d.]+)s \((?P<pct>\d+)% of (?P<ncpu>\d+) CPUs\)")


class Bench:
    """One Google Benchmark JSON file."""

    def __init__(self, path):
        with open(path) as f:
            self.data = json.load(f)
        self.context = self.data.get("context", {})
        self.rows = self.data.get("benchmarks", [])

    def runs(self):
        """One row per benchmark: its median aggregate where it ran with repetitions (named as the
        benchmark, so that name patterns match), else its single measurement; no errors."""
        medians = {r.get("run_name"): r for r in self.rows
                   if r.get("aggregate_name") == "median" and not r.get("error_occurred")}
        out, seen = [], set()
        for r in self.repetitions():
            name = r.get("run_name")
            if name not in medians:
                out.append(r)
            elif name not in seen:
                seen.add(name)
                out.append(dict(medians[name], name=name))
        return out

    def repetitions(self):
        """Every measurement row, one per repetition (no aggregates, no errors)."""
        return [r for r in self.rows
                if r.get("run_type", "iteration") == "iteration" and not r.get("error_occurred")]

    def errors(self):
        return [r for r in self.rows if r.get("error_occurred")]

    def aggregate(self, run_name, which="median"):
        for r in self.rows:
            if r.get("run_name") == run_name and r.get("aggregate_name") == which:
                return r
        return None


def real_rate(row, key):
    """A rate counter per second of wall-clock time. Google Benchmark divides rates by CPU time
    unless the benchmark uses real or manual time; converted here so that every figure in the
    report is per second of wall clock (what a user waits)."""
    v = row.get(key)
    if v is None:
        return None
    name = row.get("name", "")
    if "/real_time" in name or "/manual_time" in name:
        return v
    cpu, real = row.get("cpu_time"), row.get("real_time")
    if cpu and real:
        return v * cpu / real
    return v


def bytes_per_call(row):
    """Bytes one iteration moved, from the rate and the time of the same clock."""
    bps = row.get("bytes_per_second")
    if not bps:
        return None
    name = row.get("name", "")
    t = row["real_time"] if ("/real_time" in name or "/manual_time" in name) else row["cpu_time"]
    b = bps * t * time_unit_s(row.get("time_unit", "ns"))
    return round(b / 4096) * 4096 if b > 8192 else b  # rate x time loses the last digits


def interpolate_log(points, x):
    """y at x on [(x, y)] sorted by x, linear in log x; the nearest end outside; None if empty."""
    if not points:
        return None
    if x <= points[0][0]:
        return points[0][1]
    if x >= points[-1][0]:
        return points[-1][1]
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        if x0 <= x <= x1:
            return y0 + (math.log(x) - math.log(x0)) / (math.log(x1) - math.log(x0)) * (y1 - y0)
    return None


def arg(name, key):
    """The value of 'key:VALUE' in a benchmark name, as a number, or None."""
    m = re.search(r"(?:^|/)" + re.escape(key) + r":(\d+)", name)
    return int(m.group(1)) if m else None


# ---------------------------------------------------------------------------------------------
# the whole folder


class Results:
    def __init__(self, folder):
        self.dir = folder
        self.raw = os.path.join(folder, "raw")
        self.versions = read_kv(os.path.join(self.raw, "versions.txt"))
        self.seeds = read_kv(os.path.join(self.raw, "seeds.txt"))
        self.skipped = read_kv(os.path.join(self.raw, "skipped.txt"))
        self.benches = {}
        self.broken = {}
        for name in ("machine_info", "training", "cpu_ops", "cpu_gemm", "vs_libtorch", "gpu", "gemm_ladder"):
            path = os.path.join(self.raw, name + ".json")
            if os.path.exists(path):
                try:
                    self.benches[name] = Bench(path)
                except (OSError, ValueError) as e:
                    self.broken[name] = str(e)
        self.load = []
        p = os.path.join(self.raw, "load.txt")
        if os.path.exists(p):
            with open(p) as f:
                for line in f:
                    m = LOAD_RE.match(line.rstrip("\n"))
                    if m:
                        d = m.groupdict()
                        self.load.append({"step": d["step"], "tool": d["tool"],
                                          "wall": float(d["wall"]), "own": float(d["own"]),
                                          "other": float(d["other"]), "pct": int(d["pct"]),
                                          "ncpu": int(d["ncpu"])})
        self.steps = []
        p = os.path.join(self.raw, "steps.txt")
        if os.path.exists(p):
            with open(p) as f:
                for line in f:
                    parts = line.split()
                    if len(parts) == 2:
                        self.steps.append((parts[0], int(parts[1])))
        self.synthetic = any(b.context.get("synthetic") for b in self.benches.values())

    def b(self, name):
        return self.benches.get(name)

    # ---- status lines ----
    def gpu_used(self):
        return self.versions.get("gpu_used", "no: unknown").startswith("yes") and "gpu" in self.benches

    def gpu_reason(self):
        v = self.versions.get("gpu_used", "")
        if v.startswith("no: "):
            return v[4:]
        if "gpu" not in self.benches:
            return self.skipped.get("gpu", "the GPU benchmarks did not run")
        return ""

    def peer_status(self, peer):
        """'1.13.1 (...)', 'not installed' or 'unknown'."""
        return self.versions.get(peer, "unknown")

    # ---- 1. the machine ----
    def cpu_model(self):
        m = self.b("machine_info")
        return m.context.get("cpu_model") if m else None

    def hw_threads(self):
        m = self.b("machine_info")
        if m and m.context.get("hw_threads"):
            return int(m.context["hw_threads"])
        for b in self.benches.values():
            if b.context.get("num_cpus"):
                return int(b.context["num_cpus"])
        return None

    def fma_peak(self):
        """{threads: {...}} for the fastest vector width: 'best' and 'median' are the cores'
        capacity (each thread's FLOPs per second of its own CPU time, summed; the report's peak,
        hardly disturbed by other processes), 'wall_best' and 'wall_median' the FLOPs per second
        of wall clock in this run. Older JSON without the capacity counter: wall clock only."""
        m = self.b("machine_info")
        out = {}
        if not m:
            return out
        groups = {}
        for r in m.repetitions():
            mm = re.match(r"fma_peak/(\w+)/threads:(\d+)", r["name"])
            if mm and finite(r.get("FLOP/s")):
                cap = r.get("FLOP/s_capacity")
                groups.setdefault((int(mm.group(2)), mm.group(1)), []).append(
                    (cap if finite(cap) and cap > 0 else r["FLOP/s"], r["FLOP/s"]))
        for (t, isa), vals in groups.items():
            cap = [v[0] for v in vals]
            wall = [v[1] for v in vals]
            if t not in out or max(cap) > out[t]["best"]:
                out[t] = {"best": max(cap), "median": statistics.median(cap), "isa": isa,
                          "wall_best": max(wall), "wall_median": statistics.median(wall),
                          "reps": len(vals)}
        return out

    def peak_for(self, threads):
        """FLOP/s: the higher of machine_info's capacity and bench/cpu's own start-up peak for
        these threads (both best-of-several ceilings; a busy moment only lowers a ceiling, and
        on a drifting VM one of the two can land in a slow moment)."""
        p = self.fma_peak()
        best = [p[threads]["best"]] if threads in p else []
        g = self.b("cpu_gemm")
        key = {1: "fma_peak_gflops_1_thread", 2: "fma_peak_gflops_2_threads"}.get(threads)
        if g and key:
            try:
                own = float(g.context.get(key, "nan")) * 1e9
                if finite(own) and own > 0:
                    best.append(own)
            except ValueError:
                pass
        return max(best) if best else None

    def copy_curve(self):
        """{threads: [(bytes moved per call, best B/s, median B/s)]} from machine_info."""
        m = self.b("machine_info")
        out = {}
        if not m:
            return out
        groups = {}
        for r in m.repetitions():
            mm = re.match(r"copy/threads:(\d+)/bytes:(\d+)", r["name"])
            if mm and finite(r.get("bytes_per_second")):
                groups.setdefault((int(mm.group(1)), int(mm.group(2))), []).append(
                    r["bytes_per_second"])
        for (t, size), vals in sorted(groups.items()):
            out.setdefault(t, []).append((2 * size, max(vals), statistics.median(vals)))
        return out

    def memory_bandwidth(self):
        """{threads: (best, median)} of the copy at the largest size (main memory)."""
        return {t: (pts[-1][1], pts[-1][2]) for t, pts in self.copy_curve().items() if pts}

    def ceiling_curve(self, threads=None):
        """[(bytes moved, B/s)]: at each size the best copy on `threads` threads, or of any thread
        count when threads is None or was not measured."""
        curve = self.copy_curve()
        best = {}
        for pts in ([curve[threads]] if threads in curve else curve.values()):
            for nbytes, b, _ in pts:
                best[nbytes] = max(best.get(nbytes, 0), b)
        return sorted(best.items())

    def all_threads(self):
        """The largest thread count the copy ran on: what wick's ops use by default."""
        return max(self.copy_curve(), default=None)

    def ceiling_at(self, bytes_moved, threads=None):
        """machine_info's copy ceiling on `threads` threads (None: the best of any) at a working
        set, interpolated in log size; the nearest end outside the measured range."""
        return interpolate_log(self.ceiling_curve(threads), bytes_moved)

    def gpu_info(self):
        t = self.b("training")
        ctx = t.context if t else {}
        info = {k: ctx[k] for k in ("gpu", "gpu_sms", "gpu_compute_capability", "gpu_memory_gib",
                                    "gpu_l2_mib", "cuda_runtime", "cuda_driver_api") if k in ctx}
        g = self.b("gpu")
        if g:
            for r in g.runs():
                if r["name"].startswith("BM_device_copy") and finite(r.get("GB/s")):
                    info["device_copy_gbps"] = r["GB/s"]
            gemm = self.gemm_gpu()
            # The float32 peak only (SGEMM): the TF32 and BF16 references run other precisions.
            cub = [tf for _, tf in gemm.get("cuBLAS", [])]
            if cub:
                info["cublas_peak_tflops"] = max(cub)
        return info

    # ---- 2 and 3. seed programs, MLP ----
    def training_row(self, name):
        t = self.b("training")
        if not t:
            return None
        for r in t.rows:
            if r["name"].split("/iterations:")[0] == name:
                return r
        return None

    def seed1(self):
        cpu, gpu = self.training_row("seed1/cpu"), self.training_row("seed1/gpu")
        out = {}
        if cpu and not cpu.get("error_occurred"):
            out["cpu_ms"] = cpu["median_ms"]
            out["cpu_p10"], out["cpu_p90"] = cpu.get("p10_ms"), cpu.get("p90_ms")
            out["cpu_gflops"] = cpu.get("GFLOP/s")
        if gpu and not gpu.get("error_occurred"):
            for k in ("h2d", "compute", "d2h"):
                out[k + "_ms"] = gpu[k + "_median_ms"]
            out["gpu_total_ms"] = gpu["median_ms"]
            out["gpu_gflops"] = gpu.get("GFLOP/s")
            if "cpu_ms" in out:
                out["speedup_with_copies"] = out["cpu_ms"] / out["gpu_total_ms"]
                out["speedup_compute_only"] = out["cpu_ms"] / out["compute_ms"]
        if gpu and gpu.get("error_occurred"):
            out["gpu_error"] = gpu.get("error_message", "error")
        return out

    def seed2(self):
        out = {}
        for where in ("cpu", "gpu"):
            r = self.training_row("seed2/" + where)
            if r and not r.get("error_occurred"):
                out[where + "_ms"] = r["median_ms"]
                out[where + "_p10"], out[where + "_p90"] = r.get("p10_ms"), r.get("p90_ms")
        return out

    def op_latency(self):
        out = {}
        for key in ("cpu", "gpu_sync", "gpu_queued"):
            r = self.training_row("op_latency/" + key)
            if r and not r.get("error_occurred"):
                out[key] = r["us_per_op"]
        return out

    def mlp(self):
        """{where: [(width, median ms, p10, p90, GFLOP/s)]} sorted by width."""
        t = self.b("training")
        out = {}
        if not t:
            return out
        for r in t.runs():
            mm = re.match(r"mlp/(\w+)/width:(\d+)", r["name"])
            if mm:
                out.setdefault(mm.group(1), []).append(
                    (int(mm.group(2)), r["median_ms"], r.get("p10_ms"), r.get("p90_ms"),
                     r.get("GFLOP/s")))
        for v in out.values():
            v.sort()
        return out

    def mlp_batch(self):
        t = self.b("training")
        return int(t.context.get("mlp_batch", 256)) if t else 256

    def best_cpu_step(self):
        """{width: ms}: the faster of the CPU's all-threads and one-thread step at each width
        (the GPU is compared with the best the CPU did)."""
        m = self.mlp()
        best = {}
        for key in ("cpu", "cpu_1thread"):
            for w, ms, *_ in m.get(key, []):
                best[w] = min(best.get(w, ms), ms)
        return best

    def crossover(self, gpu_key="gpu"):
        """The smallest width from which the GPU step is faster than the best CPU step at every
        larger width measured, None when it never is (or there is no GPU line)."""
        m = self.mlp()
        if "cpu" not in m or gpu_key not in m:
            return None
        cpu = self.best_cpu_step()
        gpu = {w: ms for w, ms, *_ in m[gpu_key]}
        widths = sorted(set(cpu) & set(gpu))
        cross = None
        for w in reversed(widths):
            if gpu[w] < cpu[w]:
                cross = w
            else:
                break
        return cross

    # ---- 4. GEMM ----
    def gemm_cpu_paired(self):
        """bench/cpu's sgemm_paired rows (the libraries timed interleaved, paired.hpp):
        {(shape, threads): {"gflops": {lib: GFLOP/s}, "vs": {peer: (median, p25, p75)},
        "rounds": n}}, shape as "MxKxN" with "T" when B is transposed."""
        g = self.b("cpu_gemm")
        out = {}
        if not g:
            return out
        for r in g.runs():
            mm = re.match(r"sgemm_paired/(\d+x\d+x\d+T?)/threads:(\d+)", r["name"])
            if not mm:
                continue
            gflops = {k[:-len("_GFLOP/s")]: r[k] for k in r
                      if k.endswith("_GFLOP/s") and finite(r[k]) and r[k] > 0}
            vs = {k[len("wick_vs_"):]: (r[k], r.get(k + "_lo"), r.get(k + "_hi")) for k in r
                  if k.startswith("wick_vs_") and not k.endswith(("_lo", "_hi")) and finite(r[k])}
            out[(mm.group(1), int(mm.group(2)))] = {"gflops": gflops, "vs": vs,
                                                   "rounds": int(r.get("rounds", 0))}
        return out

    @staticmethod
    def square_side(shape):
        """N for a shape "NxNxN" (B not transposed), else None."""
        mm = re.fullmatch(r"(\d+)x(\d+)x(\d+)", shape)
        return int(mm.group(1)) if mm and mm.group(1) == mm.group(2) == mm.group(3) else None

    def gemm_cpu(self):
        """{lib: {threads: [(N, GFLOP/s)]}} for square sgemm, from bench/cpu's JSON: its paired
        rows where it has them, else its one-library-at-a-time sgemm rows."""
        g = self.b("cpu_gemm")
        out = {}
        if not g:
            return out
        paired = self.gemm_cpu_paired()
        if paired:
            for (shape, t), d in paired.items():
                n = self.square_side(shape)
                if n:
                    for lib, v in d["gflops"].items():
                        out.setdefault(lib, {}).setdefault(t, []).append((n, v))
        else:
            for r in g.runs():
                mm = re.match(r"sgemm/(\w+)/(\d+)x(\d+)x(\d+)/threads:(\d+)", r["name"])
                if mm and mm.group(2) == mm.group(3) == mm.group(4) and finite(r.get("GFLOP/s")):
                    out.setdefault(mm.group(1), {}).setdefault(int(mm.group(5)), []).append(
                        (int(mm.group(2)), real_rate(r, "GFLOP/s")))
        for libs in out.values():
            for v in libs.values():
                v.sort()
        return out

    def gemm_cpu_shapes(self):
        """Non-square and transposed sgemm rows: [(shape, lib, threads, GFLOP/s)], paired where
        bench/cpu ran its paired rows."""
        g = self.b("cpu_gemm")
        out = []
        if not g:
            return out
        paired = self.gemm_cpu_paired()
        if paired:
            for (shape, t), d in paired.items():
                if not self.square_side(shape):
                    out += [(shape, lib, t, v) for lib, v in d["gflops"].items()]
            return out
        for r in g.runs():
            mm = re.match(r"sgemm/(\w+)/((\d+)x(\d+)x(\d+)(T?))/threads:(\d+)", r["name"])
            if mm and not (mm.group(3) == mm.group(4) == mm.group(5) and not mm.group(6)):
                out.append((mm.group(2), mm.group(1), int(mm.group(7)), real_rate(r, "GFLOP/s")))
        return out

    def gemm_ladder_cpu(self):
        g = self.b("cpu_gemm")
        out = []
        if not g:
            return out
        for r in g.runs():
            mm = re.match(r"ladder/(\w+)/\d+x\d+x\d+/threads:(\d+)", r["name"])
            if mm:
                out.append((mm.group(1), int(mm.group(2)), real_rate(r, "GFLOP/s")))
        return out

    def gemm_cpu_fallback(self):
        """wick's matmul through the tensor API (bench_cpu_ops), when bench/cpu did not run."""
        c = self.b("cpu_ops")
        out = []
        if not c:
            return out
        for r in c.runs():
            mm = re.match(r"BM_matmul/(\d+)$", r["name"])
            if mm:
                out.append((int(mm.group(1)), real_rate(r, "GFLOP/s")))
        return sorted(out)

    def gemm_gpu(self):
        """{kernel: [(N, TFLOP/s)]}: square GPU matmuls. From bench/gpu's matmul ladder when it
        ran (gemm/square_N/<kernel>: every ladder step, 'cuBLAS' for SGEMM, 'cuBLAS TF32'),
        else from bench_gpu's BM_matmul rows (cublas:0/1 read as 'wick auto'/'cuBLAS'). Step 8's
        tile variants (08_cp_async_<tile>: a tuning sweep at two sizes, tabled in docs/gemm.md)
        are left out."""
        out = {}
        ladder = self.b("gemm_ladder")
        if ladder:
            names = {"cublas": "cuBLAS", "cublas_tf32": "cuBLAS TF32", "cublas_bf16": "cuBLAS BF16"}
            for r in ladder.runs():
                m = re.match(r"gemm/square_(\d+)/([^/]+)", r["name"])
                if m and finite(r.get("TFLOP/s")) and not m.group(2).startswith("08_cp_async_"):
                    kernel = names.get(m.group(2), m.group(2))
                    out.setdefault(kernel, []).append((int(m.group(1)), r["TFLOP/s"]))
            for v in out.values():
                v.sort()
            if out:
                return out
        g = self.b("gpu")
        if not g:
            return out
        for r in g.runs():
            if not finite(r.get("TFLOP/s")):
                continue
            name = r["name"]
            n = arg(name, "n")
            if n is None:
                continue
            parts = [p for p in name.split("/") if not p.startswith(("n:", "iterations:", "manual_time",
                                                                     "real_time", "min_time:"))]
            kernel = "/".join(parts).replace("BM_matmul", "").strip("/")
            kernel = {"cublas:0": "wick auto", "cublas:1": "cuBLAS"}.get(kernel, kernel or "matmul")
            out.setdefault(kernel, []).append((n, r["TFLOP/s"]))
        for v in out.values():
            v.sort()
        return out

    # ---- 5. memory-bound ops ----
    def own_copy_curve(self, program, threads):
        """[(bytes moved, B/s)] of the memcpy rows a benchmark program timed beside its ops
        (bench_cpu_ops: BM_memcpy/<floats>/<threads, 0: all>, counter omp_threads; bench/cpu:
        memcpy/<floats>/<threads>), on `threads` threads, by size."""
        b = self.b(program)
        pts = {}
        if not b:
            return []
        for r in b.runs():
            mm = re.match(r"(BM_memcpy|memcpy)/(\d+)(?:/(\d+))?", r["name"])
            if not mm or not r.get("bytes_per_second"):
                continue
            # bench_cpu_ops counts its copy's OpenMP threads in omp_threads (Google Benchmark's
            # own "threads" is its thread count, always 1 here); a row without it ran on one.
            t = int(r.get("omp_threads", 1)) if program == "cpu_ops" else int(mm.group(3) or 1)
            if t == threads:
                pts[bytes_per_call(r)] = real_rate(r, "bytes_per_second")
        return sorted(pts.items())

    def op_ceiling(self, program, bytes_moved, threads):
        """(copy ceiling in B/s, where it comes from) for an op a program timed: that program's
        own memcpy on the same threads when it has one (the same run, the same minutes), else
        machine_info's; both interpolated in log size."""
        own = self.own_copy_curve(program, threads)
        if own:
            return interpolate_log(own, bytes_moved), "same program"
        return self.ceiling_at(bytes_moved, threads), "machine_info"

    def membound_cpu(self):
        """[(label, bytes moved per call, B/s wall clock, threads, program)] from bench_cpu_ops
        (its ops on all threads, its memcpy on 1 and all) and bench/cpu's 2^24-float add, 1 and
        all threads."""
        out = []
        c = self.b("cpu_ops")
        labels = {"BM_memcpy": "memcpy (bench_cpu_ops)", "BM_add": "add", "BM_add_broadcast_row":
                  "add, broadcast row", "BM_exp": "exp", "BM_sum": "sum", "BM_softmax_rows":
                  "softmax (rows of 1024)", "BM_mul_scalar": "mul by a number",
                  "BM_where_scalar": "where(mask, 0, g)", "BM_add_alpha": "add with alpha"}
        if c:
            for r in c.runs():
                base = r["name"].split("/")[0]
                if base in labels and r.get("bytes_per_second"):
                    threads = int(r.get("omp_threads", 1)) if base == "BM_memcpy" else self.all_threads()
                    label = labels[base]
                    if base == "BM_memcpy":
                        label = f"memcpy, {threads} thr. (bench_cpu_ops)"
                    out.append((label, bytes_per_call(r), real_rate(r, "bytes_per_second"), threads,
                                "cpu_ops"))
        g = self.b("cpu_gemm")
        if g:
            for r in g.runs():
                mm = re.match(r"(add_kernel|add_op)/(\d+)/(\d+)", r["name"])
                if mm and r.get("bytes_per_second"):
                    out.append((f"{mm.group(1).replace('_', ' ')}, {mm.group(3)} thr. (bench/cpu)",
                                bytes_per_call(r), real_rate(r, "bytes_per_second"),
                                int(mm.group(3)), "cpu_gemm"))
        return out

    def membound_gpu(self):
        """[(label, GB/s, fraction of copy)] and the copy GB/s."""
        g = self.b("gpu")
        out, copy = [], None
        if not g:
            return out, copy
        for r in g.runs():
            name = r["name"].split("/iterations:")[0]
            if name.startswith("BM_device_copy"):
                copy = r.get("GB/s")
            elif finite(r.get("GB/s")) and not name.startswith(("BM_h2d", "BM_d2h")) \
                    and "TFLOP/s" not in r:
                out.append((name.replace("BM_", ""), r["GB/s"], r.get("of_copy")))
        return out, copy

    def transfers_gpu(self):
        g = self.b("gpu")
        out = []
        if g:
            for r in g.runs():
                name = r["name"].split("/iterations:")[0]
                if name.startswith(("BM_h2d", "BM_d2h")) and finite(r.get("GB/s")):
                    out.append((name.replace("BM_", ""), r["GB/s"]))
        return out

    # ---- peers on the training step ----
    def vs_libtorch(self):
        """{(what, args): {"wick": ms, "torch": ms, "vs": (median, p25, p75)}} from the paired/<what>/<args>
        rows: each library's median round (time per call) and wick's speed over libtorch's, the median
        of the per-round ratios with its middle half (the two timed interleaved, bench/paired.hpp)."""
        v = self.b("vs_libtorch")
        out = {}
        if not v:
            return out
        for r in v.runs():
            mm = re.match(r"paired/(\w+?)/(.*)", r["name"].split("/iterations:")[0])
            if mm and "wick_us" in r and "torch_us" in r:
                out[(mm.group(1), mm.group(2))] = {
                    "wick": r["wick_us"] / 1e3, "torch": r["torch_us"] / 1e3,
                    "vs": tuple(r.get("wick_vs_torch" + k, float("nan")) for k in ("", "_lo", "_hi"))}
        return out

    # ---- 6. spread ----
    def training_spread(self):
        """[(name, reps, (p90 - p10) / median)] of the training rows."""
        t = self.b("training")
        out = []
        if not t:
            return out
        for r in t.runs():
            if r.get("median_ms") and r.get("p10_ms") is not None:
                out.append((r["name"].split("/iterations:")[0], int(r.get("reps", 0)),
                            (r["p90_ms"] - r["p10_ms"]) / r["median_ms"]))
        return out

    def max_foreign_load(self):
        return max((x["pct"] for x in self.load), default=None)


def gemm_precision(kernel):
    """The precision a GPU matmul kernel computes in: 'TF32' or 'BF16' (tensor cores, float32
    accumulate), else 'FP32'. From bench/gpu/gemm_table.py's rule, the one docs/gemm.md uses."""
    ref = reference_of(kernel.lower())
    return {"cublas": "FP32", "cublas_tf32": "TF32", "cublas_bf16": "BF16"}[ref]


def gemm_reference(kernel):
    """The cuBLAS row a kernel is compared with: the same precision."""
    return {"FP32": "cuBLAS", "TF32": "cuBLAS TF32", "BF16": "cuBLAS BF16"}[gemm_precision(kernel)]
