#!/usr/bin/env python3
"""test_report.py: the report generator and its plots on recorded results, so that a change to
the benchmarks' JSON or to the scripts cannot break the report silently. For CI:

    python3 scripts/report/test_report.py            (Debian's python3 with python3-matplotlib)

The recorded results are the committed sample report's raw/ (docs/report/cpu-only/raw, a CPU-only
full run; WICK_REPORT_RECORDED names another). The tests pass on the runs before and after bench/cpu's
GEMM rows became paired ones, so regenerating the sample report does not break them. The GPU path
is tested on a copy of them with GPU rows added by this file: those numbers are invented, marked
synthetic in the JSON, and the report made from them says so on top.
"""
import copy
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
RECORDED = os.environ.get("WICK_REPORT_RECORDED") or os.path.join(ROOT, "docs", "report", "cpu-only", "raw")
MAKE = os.path.join(HERE, "make_report.py")
SECTIONS = ["## Summary", "## 1. The machine", "## 2. Seed program 1", "## 3. Seed program 2",
            "## 4. GEMM", "## 5. Memory-bound ops", "## 6. How it was measured"]


def have_matplotlib():
    try:
        import matplotlib  # noqa: F401
        return True
    except ImportError:
        return False


def run(folder, *args):
    p = subprocess.run([sys.executable, MAKE, folder, *args], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def load(folder, name):
    with open(os.path.join(folder, "raw", name + ".json")) as f:
        return json.load(f)


def save(folder, name, data):
    with open(os.path.join(folder, "raw", name + ".json"), "w") as f:
        json.dump(data, f)


def row(name, **counters):
    r = {"name": name, "run_name": name, "run_type": "iteration", "repetitions": 1,
         "repetition_index": 0, "threads": 1, "iterations": 1, "real_time": 1.0, "cpu_time": 1.0,
         "time_unit": "ms"}
    r.update(counters)
    if "median_ms" in counters:
        r["real_time"] = counters["median_ms"]
    return r


def set_memcpy_rows(cpu_ops, points):
    """Replaces bench_cpu_ops' memcpy rows by all-thread ones: [(floats, bytes/s counted)]."""
    cpu_ops["benchmarks"] = [r for r in cpu_ops["benchmarks"] if not r["name"].startswith("BM_memcpy")]
    for floats, bps in points:
        ns = floats * 8 / bps * 1e9
        cpu_ops["benchmarks"].append(row(f"BM_memcpy/{floats}/0", real_time=ns, cpu_time=ns,
                                         time_unit="ns", bytes_per_second=bps, omp_threads=2))


def add_synthetic_gpu(folder):
    """GPU rows in the shapes bench_training and bench/gpu write, with invented numbers."""
    with open(os.path.join(folder, "raw", "versions.txt")) as f:
        lines = [x for x in f if not x.startswith("gpu_used:")]
    lines.append("gpu_used: yes\n")
    lines.append("nvidia_smi: Synthetic GPU, 000.00, 1000 MiB, 1000 MHz, 100 W\n")
    with open(os.path.join(folder, "raw", "versions.txt"), "w") as f:
        f.writelines(lines)
    t = load(folder, "training")
    t["context"].update({"synthetic": "test fixture of test_report.py, not a measurement",
                         "gpu": "Synthetic GPU", "gpu_sms": "100", "gpu_compute_capability": "9.0",
                         "gpu_memory_gib": "80.0", "gpu_l2_mib": "50.0", "cuda_runtime": "13.0",
                         "cuda_driver_api": "13.0"})
    stats = lambda ms: {"median_ms": ms, "min_ms": ms * 0.9, "p10_ms": ms * 0.95,
                        "p90_ms": ms * 1.1, "max_ms": ms * 1.3, "reps": 10}
    rows = [row("seed1/gpu/iterations:1/manual_time", **stats(1.5), h2d_median_ms=0.8,
                compute_median_ms=0.1, d2h_median_ms=0.5, **{"GFLOP/s": 20000.0}),
            row("seed2/gpu/iterations:1/manual_time", **stats(0.2)),
            row("op_latency/gpu_sync/iterations:1/manual_time", **stats(0.008), us_per_op=8.0),
            row("op_latency/gpu_queued/iterations:1/manual_time", **stats(0.003), us_per_op=3.0)]
    for r in t["benchmarks"]:
        if r["name"].startswith("mlp/cpu/"):
            w = int(r["width"])
            flops = 5 * 2 * 256 * w * w
            for where, floor in (("gpu", 0.15), ("gpu_copy", 0.3)):
                ms = floor + flops / 20e12 * 1e3
                g = copy.deepcopy(r)
                g.update(stats(ms))
                g["name"] = g["run_name"] = r["name"].replace("mlp/cpu/", f"mlp/{where}/")
                g["real_time"] = ms
                g["GFLOP/s"] = flops / (ms / 1e3) / 1e9
                rows.append(g)
    t["benchmarks"] += rows
    save(folder, "training", t)
    gpu = {"context": {"synthetic": "test fixture of test_report.py, not a measurement"},
           "benchmarks": [row("BM_device_copy/iterations:30/manual_time", median_ms=0.14, **{"GB/s": 4000.0}),
                          row("BM_add/iterations:30/manual_time", median_ms=0.2, of_copy=0.92, **{"GB/s": 3680.0}),
                          row("BM_sum/iterations:30/manual_time", median_ms=0.1, of_copy=0.95, **{"GB/s": 3800.0}),
                          row("BM_softmax/1024/iterations:30/manual_time", median_ms=0.2, of_copy=0.8, **{"GB/s": 3200.0}),
                          row("BM_h2d_wick/iterations:10/manual_time", median_ms=5.0, **{"GB/s": 50.0}),
                          row("BM_d2h_wick/iterations:10/manual_time", median_ms=5.0, **{"GB/s": 50.0})]}
    for n in (1024, 2048, 4096):
        for cub, tf in ((0, 20.0), (1, 50.0)):
            gpu["benchmarks"].append(row(f"BM_matmul/n:{n}/cublas:{cub}/iterations:10/manual_time",
                                         median_ms=1.0, **{"TFLOP/s": tf * n / 4096}))
    save(folder, "gpu", gpu)
    ladder = {"context": {"synthetic": "test fixture of test_report.py, not a measurement"},
              "benchmarks": []}
    for n in (512, 1024, 2048):
        for kernel, tf in (("01_naive", 0.5), ("08_cp_async", 30.0), ("cublas", 40.0),
                           ("09_tf32_mma", 96.0), ("cublas_tf32", 120.0), ("10_bf16_mma", 200.0),
                           ("11_wgmma_tma", 450.0), ("cublas_bf16", 500.0)):
            ladder["benchmarks"].append(row(f"gemm/square_{n}/{kernel}/iterations:10/manual_time",
                                            median_ms=1.0, **{"TFLOP/s": tf * n / 2048}))
    # A step 8 tile variant (a tuning row at one size): docs/gemm.md tables it, the report not.
    ladder["benchmarks"].append(row("gemm/square_2048/08_cp_async_128x256_s3/iterations:10/manual_time",
                                    median_ms=1.0, **{"TFLOP/s": 35.0}))
    save(folder, "gemm_ladder", ladder)


H200_RESULTS = os.path.join(ROOT, "docs", "results")


def add_recorded_h200(folder):
    """The GPU JSON that bench/gpu/check.sh wrote on the first lent H200 (2026-12-04), as
    recorded in docs/results/: real rows in the exact shapes the programs write."""
    for name, recorded in (("gpu", "2026-12-04-h200.json"), ("gemm_ladder", "gemm-ladder-2026-12-04.json"),
                           ("training", "training-2026-12-04-h200.json")):
        shutil.copy(os.path.join(H200_RESULTS, recorded), os.path.join(folder, "raw", name + ".json"))
    with open(os.path.join(folder, "raw", "versions.txt")) as f:
        lines = [x for x in f if not x.startswith("gpu_used:")]
    lines.append("gpu_used: yes\n")
    with open(os.path.join(folder, "raw", "versions.txt"), "w") as f:
        f.writelines(lines)
    with open(os.path.join(folder, "raw", "devices.txt"), "w") as f:
        f.write("cpu: available\ncuda: yes, 1 device(s)\n  cuda:0 NVIDIA H200\n")


class ReportTest(unittest.TestCase):
    def setUp(self):
        if not os.path.isdir(RECORDED):
            self.skipTest(f"no recorded results at {RECORDED}")
        self.tmp = tempfile.mkdtemp(prefix="wick-report-test-")
        shutil.copytree(RECORDED, os.path.join(self.tmp, "raw"))

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def report(self):
        with open(os.path.join(self.tmp, "report.md")) as f:
            return f.read()

    def assert_sections_in_order(self, text):
        pos = [text.find(s) for s in SECTIONS]
        self.assertTrue(all(p >= 0 for p in pos), f"missing sections: {[s for s, p in zip(SECTIONS, pos) if p < 0]}")
        self.assertEqual(pos, sorted(pos), "sections out of order")

    def assert_pngs(self, names):
        for n in names:
            p = os.path.join(self.tmp, n)
            self.assertTrue(os.path.exists(p) and os.path.getsize(p) > 10000, f"{n} missing or tiny")
            with open(p, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
            self.assertIn(f"]({n})", self.report(), f"{n} not linked from report.md")

    @unittest.skipUnless(have_matplotlib(), "matplotlib not installed")
    def test_cpu_only(self):
        rc, out = run(self.tmp, "--check")
        self.assertEqual(rc, 0, out)
        text = self.report()
        self.assert_sections_in_order(text)
        self.assertIn("No GPU:", text)
        self.assertIn("GPU matmul: not measured. No GPU: ", text)
        self.assertNotIn("nan", text.lower().replace("nanosec", ""))
        self.assert_pngs(["crossover.png", "gemm_cpu.png", "membound_cpu.png"])
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "gemm_gpu.png")))
        self.assertIn("check: ok", out)

    @unittest.skipUnless(have_matplotlib(), "matplotlib not installed")
    def test_synthetic_gpu(self):
        add_synthetic_gpu(self.tmp)
        rc, out = run(self.tmp, "--check")
        self.assertEqual(rc, 0, out)
        text = self.report()
        self.assert_sections_in_order(text)
        self.assertIn("SYNTHETIC TEST DATA", text)
        self.assertIn("with the copies", text)
        self.assertIn("The GPU is faster than the best CPU step (all threads or one) from **W = ", text)
        self.assertIn("% of the cuBLAS row of the same precision", text)
        self.assertIn("FP32 08_cp_async 30.0 at N = 2048 (75% of cuBLAS); TF32 09_tf32_mma 96.0 at "
                      "N = 2048 (80% of cuBLAS); BF16 11_wgmma_tma 450 at N = 2048 (90% of cuBLAS)", text)
        self.assertIn("| 08_cp_async | FP32 | 7.50 (75%) |", text)  # the ladder bench's rows
        self.assertNotIn("08_cp_async_128x256_s3", text)  # tuning rows stay in docs/gemm.md
        # Each precision against its own cuBLAS: TF32 96/120, BF16 200/500 and 450/500; the
        # references themselves carry no percentage, and the float32 peak is SGEMM's (40 at 2048).
        self.assertIn("| 09_tf32_mma | TF32 | 24.0 (80%) |", text)
        self.assertIn("| 10_bf16_mma | BF16 | 50.0 (40%) |", text)
        self.assertIn("| 11_wgmma_tma | BF16 | 112 (90%) |", text)
        self.assertIn("| cuBLAS BF16 | BF16 | 125 |", text)
        self.assertIn("cuBLAS float32 matmul peak (measured) | **40.0 TFLOP/s**", text)
        self.assertIn("device copy ceiling", text)
        self.assertNotIn("No GPU:", text)
        self.assert_pngs(["seed1.png", "crossover.png", "gemm_cpu.png", "gemm_gpu.png",
                          "membound_cpu.png", "membound_gpu.png"])

    @unittest.skipUnless(have_matplotlib(), "matplotlib not installed")
    def test_recorded_h200(self):
        if not os.path.exists(os.path.join(H200_RESULTS, "2026-12-04-h200.json")):
            self.skipTest("no recorded H200 results in docs/results")
        add_recorded_h200(self.tmp)
        rc, out = run(self.tmp, "--check")
        self.assertEqual(rc, 0, out)
        text = self.report()
        self.assert_sections_in_order(text)
        self.assertNotIn("SYNTHETIC", text)
        self.assertNotIn("No GPU:", text)
        # The run's own figures: the best kernel per precision and the copy ceiling.
        self.assertIn("FP32 08_cp_async 31.8 at N = 4096 (62% of cuBLAS)", text)
        self.assertIn("BF16 11_wgmma_tma 558 at N = 8192 (72% of cuBLAS)", text)
        self.assertIn("4,162", text)
        self.assert_pngs(["seed1.png", "crossover.png", "gemm_gpu.png", "membound_gpu.png"])

    @unittest.skipUnless(have_matplotlib(), "matplotlib not installed")
    def test_without_peers(self):
        os.remove(os.path.join(self.tmp, "raw", "cpu_gemm.json"))
        with open(os.path.join(self.tmp, "raw", "versions.txt")) as f:
            v = [x for x in f if not x.startswith(("openblas:", "libtorch:"))]
        with open(os.path.join(self.tmp, "raw", "versions.txt"), "w") as f:
            f.writelines(v + ["openblas: not installed\n", "libtorch: not installed\n"])
        rc, out = run(self.tmp, "--check")
        self.assertEqual(rc, 0, out)
        text = self.report()
        self.assertIn("No library comparison", text)
        self.assertIn("OpenBLAS: not installed; libtorch: not installed", text)

    @unittest.skipUnless(have_matplotlib(), "matplotlib not installed")
    def test_vs_libtorch_rows_split_by_section(self):
        # bench_vs_libtorch's paired training rows go to section 3, its memory-bound ops to section 5.
        def pair(name, wick_us, torch_us, lo, hi):
            return row(name, wick_us=wick_us, torch_us=torch_us, wick_vs_torch=torch_us / wick_us,
                       wick_vs_torch_lo=lo, wick_vs_torch_hi=hi, rounds=9)
        rows = [pair("paired/mlp_step/1", 20000.0, 30000.0, 1.4, 1.6), pair("paired/mlp_step/2", 12000.0, 60000.0, 4, 6),
                pair("paired/mlp_step_torch_blas_threads/2", 12000.0, 18000.0, 1.4, 1.6),
                pair("paired/where_scalar/2", 100.0, 2000.0, 19, 21),
                pair("paired/sum/1", 90.0, 45.0, 0.45, 0.55)]
        save(self.tmp, "vs_libtorch", {"context": {}, "benchmarks": rows})
        rc, out = run(self.tmp, "--check")
        self.assertEqual(rc, 0, out)
        text = self.report()
        s3, s5 = text.index("## 3. Seed program 2"), text.index("## 5. Memory-bound ops")
        s6 = text.index("## 6. How it was measured")
        mlp = text.index("| MLP step (1024 wide, batch 256) | 1 | 20.0 ms | 30.0 ms | 1.50 (1.40-1.60) |")
        where = text.index("| where(mask, 0, g) | 2 | 100 us | 2.00 ms | 20.00 (19.00-21.00) |")
        total = text.index("| sum | 1 | 90.0 us | 45.0 us | 0.50 (0.45-0.55) |")
        self.assertIn("rows (`paired/`)", text[s6:])
        self.assertIn("here wick's sum ran at 0.50 of libtorch's speed on 1 thread.", text[s5:s6])
        # libtorch slower on 2 threads than on 1: the note, and its best setting's row below.
        blas = text.index("| the same, libtorch on 1 intra-op thread and OpenBLAS on all | 2 | 12.0 ms | 18.0 ms |")
        note = text.index("libtorch's MLP step took longer on 2 threads than on 1 (60.0 ms against 30.0 ms)")
        self.assertTrue(mlp < blas < note < s5)
        # A paired row whose reported run did not measure fails the check.
        save(self.tmp, "vs_libtorch", {"context": {}, "benchmarks": rows + [row("paired/exp/1")]})
        rc, out = run(self.tmp, "--check", "--no-plots")
        self.assertEqual(rc, 1, out)
        self.assertIn("paired/exp/1: no wick_us", out)
        self.assertTrue(s3 < mlp < s5 < where < s6 and s5 < total < s6)

    def test_insane_numbers_fail_the_check(self):
        g = load(self.tmp, "cpu_gemm")
        # One square GEMM row that the tables read: a paired row's wick counter where main.sh
        # ran bench/cpu's paired rows (it does now), else every row of an sgemm/wick benchmark
        # (its repetitions and their median).
        square = re.compile(r"sgemm_paired/(\d+)x\1x\1/")
        paired = [r for r in g["benchmarks"] if square.match(r["name"])]
        if paired:
            paired[0]["wick_GFLOP/s"] = 1e6
        else:
            first = next(r["run_name"] for r in g["benchmarks"] if r["name"].startswith("sgemm/wick/"))
            for r in g["benchmarks"]:
                if r.get("run_name") == first:
                    r["GFLOP/s"] = 1e6
        save(self.tmp, "cpu_gemm", g)
        t = load(self.tmp, "training")
        t["benchmarks"][0]["median_ms"] = float("nan")
        save(self.tmp, "training", t)
        rc, out = run(self.tmp, "--check", "--no-plots")
        self.assertEqual(rc, 1, out)
        self.assertIn("exceeds", out)
        self.assertIn("not finite", out)

    def test_repetitions_give_their_median(self):
        # The CPU ladder's 2-thread wick rung at 1024^3: repetitions 500, 100, 300 and their
        # median aggregate 300; the table must show the median, not the first or last repetition.
        g = load(self.tmp, "cpu_gemm")
        name = "ladder/wick/1024x1024x1024/threads:2/real_time"
        self.assertTrue(any(r.get("run_name") == name for r in g["benchmarks"]), "no " + name)
        reps = iter([500.0, 100.0, 300.0])
        for r in g["benchmarks"]:
            if r.get("run_name") == name:
                if r.get("run_type", "iteration") == "iteration":
                    r["GFLOP/s"] = next(reps)
                elif r.get("aggregate_name") == "median":
                    r["GFLOP/s"] = 300.0
        save(self.tmp, "cpu_gemm", g)
        rc, out = run(self.tmp, "--no-plots")
        self.assertEqual(rc, 0, out)
        self.assertRegex(self.report(), r"\| wick \| 2 \| 300 \|")

    def test_paired_rows_take_precedence(self):
        # bench/cpu's sgemm_paired rows (the libraries timed interleaved) are what the GEMM
        # tables show when present: each library's median round, and the median per-round ratio
        # with its 25th-75th percentiles; the separate sgemm/<lib> rows are then not used.
        g = load(self.tmp, "cpu_gemm")
        g["benchmarks"] = [r for r in g["benchmarks"] if not r["name"].startswith(("sgemm/", "sgemm_paired/"))]
        g["benchmarks"] += [
            row("sgemm_paired/1024x1024x1024/threads:1/iterations:1/repeats:1/real_time", rounds=9,
                threads=1, **{"wick_GFLOP/s": 90.0, "openblas_GFLOP/s": 100.0, "torch_GFLOP/s": 80.0,
                              "wick_vs_openblas": 0.93, "wick_vs_openblas_lo": 0.91,
                              "wick_vs_openblas_hi": 0.96, "wick_vs_torch": 1.1,
                              "wick_vs_torch_lo": 1.05, "wick_vs_torch_hi": 1.2}),
            row("sgemm_paired/64x1024x2048/threads:2/iterations:1/repeats:1/real_time", rounds=7,
                threads=2, **{"wick_GFLOP/s": 50.0, "openblas_GFLOP/s": 40.0,
                              "wick_vs_openblas": 1.26, "wick_vs_openblas_lo": 1.2,
                              "wick_vs_openblas_hi": 1.3})]
        save(self.tmp, "cpu_gemm", g)
        rc, out = run(self.tmp, "--check", "--no-plots")
        self.assertEqual(rc, 0, out)
        text = self.report()
        self.assertIn("timed interleaved, in rounds (7 to 9 per row)", text)
        self.assertIn("| 1024 | 90.0 | 100 | 80.0 | ", text)
        self.assertIn("| 93% (91-96%) | 110% (105-120%) |", text)
        self.assertIn("| 64x1024x2048 | 2 | 50.0 | 40.0 | - | 126% (120-130%) | - |", text)
        self.assertIn("wick against the libraries", text)
        self.assertIn("CPU GEMM N=1024, 1 thr. (GFLOP/s) | wick 90.0, OpenBLAS 100, libtorch 80.0", text)
        if have_matplotlib():  # the GEMM plot gains a row of per-round ratios
            rc, out = run(self.tmp, "--check")
            self.assertEqual(rc, 0, out)
            self.assert_pngs(["gemm_cpu.png"])

    def test_paired_row_without_measurement_fails_the_check(self):
        g = load(self.tmp, "cpu_gemm")
        g["benchmarks"].append(row("sgemm_paired/256x256x256/threads:1/iterations:1/repeats:1/real_time",
                                   real_time=200.0))
        save(self.tmp, "cpu_gemm", g)
        rc, out = run(self.tmp, "--check", "--no-plots")
        self.assertEqual(rc, 1, out)
        self.assertIn("no wick_GFLOP/s", out)

    def test_op_above_its_ceiling_is_marked(self):
        # An op far above its copy ceiling (a ceiling measured low) is marked and explained;
        # one under it is not.
        c = load(self.tmp, "cpu_ops")
        for r in c["benchmarks"]:
            if r["name"].startswith("BM_add/"):
                r["bytes_per_second"] = 1e13
            elif r["name"].startswith("BM_add_broadcast_row/"):
                r["bytes_per_second"] = 1e9  # far under any ceiling, whatever the recorded run gave
        save(self.tmp, "cpu_ops", c)
        rc, out = run(self.tmp, "--no-plots")
        self.assertEqual(rc, 0, out)
        text = self.report()
        self.assertRegex(text, r"\| add \| 2 \| [^|]+ \| [^|]+ \| [^|]+ \| [0-9]+% \(!\) \|")
        self.assertIn("(!) more than 125% of the ceiling", text)
        self.assertNotRegex(text, r"\| add, broadcast row \|[^\n]*\(!\)")

    def test_read_only_sum_has_more_room(self):
        # A sum reads only: 140% of the copy's counted rate is within its 3/2 and not marked;
        # an add at the same 140% is.
        c = load(self.tmp, "cpu_ops")
        set_memcpy_rows(c, ((1 << 16, 100e9), (1 << 26, 100e9)))
        for r in c["benchmarks"]:
            if r["name"].startswith(("BM_sum/", "BM_add/")):
                floats = int(r["name"].split("/")[1].split("_")[0])
                nbytes = floats * (4 if r["name"].startswith("BM_sum/") else 12)
                r["real_time"] = r["cpu_time"] = nbytes / 140e9 * 1e9
                r["time_unit"] = "ns"
                r["bytes_per_second"] = 140e9
        save(self.tmp, "cpu_ops", c)
        rc, out = run(self.tmp, "--no-plots")
        self.assertEqual(rc, 0, out)
        text = self.report()
        self.assertRegex(text, r"\| sum \| 2 \| [^|]+ \| 140 \| 100 \| 140% \|")
        self.assertRegex(text, r"\| add \| 2 \| [^|]+ \| 140 \| 100 \| 140% \(!\) \|")

    def test_ceiling_from_the_same_program(self):
        # bench_cpu_ops' own all-thread memcpy, when recorded, is the ceiling of its ops (the
        # same run); without it machine_info's copy is. Here its copy moves 8 MiB at 100 GB/s
        # and 128 MiB at 50, so exp (8 MiB) is set against 100 GB/s.
        c = load(self.tmp, "cpu_ops")
        set_memcpy_rows(c, ((1 << 20, 100e9), (1 << 24, 50e9)))
        save(self.tmp, "cpu_ops", c)
        rc, out = run(self.tmp, "--no-plots")
        self.assertEqual(rc, 0, out)
        text = self.report()
        self.assertRegex(text, r"\| exp \| 2 \| 8 MiB \| [^|]+ \| 100 \| [^|]+ \| same program \|")
        self.assertIn("| memcpy, 2 thr. (bench_cpu_ops) | 2 | 128 MiB | 50.0 |", text)
        self.assertRegex(text, r"\| add kernel, 2 thr\. \(bench/cpu\) \| 2 \| [^\n]*\| same program \|")

    def test_no_plots(self):
        rc, out = run(self.tmp, "--no-plots")
        self.assertEqual(rc, 0, out)
        self.assert_sections_in_order(self.report())


if __name__ == "__main__":
    unittest.main(verbosity=2)
