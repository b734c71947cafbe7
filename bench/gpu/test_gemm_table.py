#!/usr/bin/env python3
"""test_gemm_table.py: checks gemm_table.py on a bench JSON made here in the shape that
wick_bench_gemm_ladder writes (a format fixture with made-up round figures, not a measurement):
the ratios to the same-precision cuBLAS row and to the measured peak, the rows reported as
errors, the replacement between the markers of a doc, the refusal of non-finite figures, and
the plot (when matplotlib is installed). Run by CTest ("cuda: gemm table script")."""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "gemm_table.py")


def row(shape, kernel, tflops, err=1e-6):
    return {"name": f"gemm/{shape}/{kernel}/iterations:10/manual_time", "run_type": "iteration",
            "TFLOP/s": tflops, "median_ms": 1.0, "min_ms": 0.9, "max_ms": 1.2,
            "rel_err": err, "peak_fp32": 60.0}


def fixture():
    rows = []
    for n, scale in ((512, 1.0), (1024, 2.0)):
        rows.append(row(f"square_{n}", "01_naive", 0.5 * scale))
        rows.append(row(f"square_{n}", "08_cp_async", 15.0 * scale))
        rows.append(row(f"square_{n}", "09_tf32_mma", 40.0 * scale, 2e-4))
        rows.append(row(f"square_{n}", "cublas", 20.0 * scale))
        rows.append(row(f"square_{n}", "cublas_tf32", 80.0 * scale, 2e-4))
        rows.append(row(f"square_{n}", "10_bf16_mma", 90.0 * scale, 3e-3))
        rows.append(row(f"square_{n}", "cublas_bf16", 120.0 * scale, 3e-3))
        rows.append(row(f"square_{n}", "11_wgmma_tma", 108.0 * scale, 3e-3))
        rows.append(row(f"square_{n}", "13_wgmma_tf32", 64.0 * scale, 7e-4))
    # Step 8's variants run at one size only (the bench runs them at 2048 and 4096).
    rows.append(row("square_1024", "08_cp_async_128x256_s3", 36.0))
    rows.append(row("square_1024", "08_cp_async_128x128_s3", 27.0))
    rows.append({"name": "gemm/square_1024/06_vectorized/iterations:10/manual_time",
                 "error_occurred": True, "error_message": "kernel 06_vectorized cannot take"})
    return {"context": {"date": "fixture", "device": "fixture device", "sm": "90",
                        "peak_fp32_tflops": "60.0"}, "benchmarks": rows}


def run(args):
    return subprocess.run([sys.executable, SCRIPT] + args, capture_output=True, text=True)


def main():
    failures = []

    def expect(cond, what):
        if not cond:
            failures.append(what)

    with tempfile.TemporaryDirectory() as tmp:
        bench = os.path.join(tmp, "bench.json")
        with open(bench, "w") as f:
            json.dump(fixture(), f)
        result = run([bench, "--commit", "abc1234"])
        expect(result.returncode == 0, f"exit {result.returncode}: {result.stderr}")
        out = result.stdout
        expect("| 08_cp_async | 15.00 (75%) | 30.00 (75%) |" in out, "FP32 step against SGEMM")
        expect("| 09_tf32_mma | 40.00 (50%) | 80.00 (50%) |" in out, "TF32 step against cuBLAS TF32")
        expect("| 01_naive | 0.50 (2%) | 1.00 (2%) |" in out, "naive row")
        expect("| 10_bf16_mma | 90.00 (75%) | 180.00 (75%) |" in out, "BF16 step against cuBLAS BF16")
        expect("| 11_wgmma_tma | 108.00 (90%) | 216.00 (90%) |" in out, "Hopper step against cuBLAS BF16")
        expect("| 13_wgmma_tf32 | 64.00 (80%) | 128.00 (80%) |" in out,
               "Hopper TF32 step against cuBLAS TF32, not BF16")
        expect("| square_512 | 10_bf16_mma | 1.000 | 0.900 to 1.200 | 90.00 | 75% | - |" in out,
               "no FP32-peak fraction for a tensor-core row")
        expect("| square_1024 | 08_cp_async | 1.000 | 0.900 to 1.200 | 30.00 | 75% | 50% |" in out,
               "detail row with the fraction of the measured peak")
        expect("06_vectorized: kernel 06_vectorized cannot take" in out, "error rows are listed")
        expect("commit abc1234" in out, "commit in the header")
        # Step 8's variants: their own table against SGEMM and step 8, none in the ladder's.
        expect("Step 8 variants (by name only" in out, "variant table")
        expect("| 08_cp_async | 30.00 (75%) |" in out, "step 8 as the variants' baseline")
        expect("| 08_cp_async_128x256_s3 | 36.00 (90%, 120%) |" in out, "variant against both")
        expect("| 08_cp_async_128x128_s3 | 27.00 (68%, 90%) |" in out, "second variant")
        ladder_table = out.split("Step 8 variants")[0]
        expect("08_cp_async_128x256_s3" not in ladder_table, "variants out of the square table")
        expect("| square_1024 | 08_cp_async_128x256_s3 | 1.000 | 0.900 to 1.200 | 36.00 | 90% | 60% |"
               in out, "variant in the detail table")

        doc = os.path.join(tmp, "doc.md")
        with open(doc, "w") as f:
            f.write("intro\n<!-- gemm-table:begin -->\nold\n<!-- gemm-table:end -->\nafter\n")
        plot = os.path.join(tmp, "plot.png")
        result = run([bench, "--doc", doc, "--plot", plot])
        expect(result.returncode == 0, f"--doc exit {result.returncode}: {result.stderr}")
        text = open(doc).read()
        expect(text.startswith("intro\n<!-- gemm-table:begin -->\nRun of fixture"), "doc head")
        expect("old" not in text and text.endswith("<!-- gemm-table:end -->\nafter\n"), "doc tail")
        try:
            import matplotlib  # noqa: F401
            expect(os.path.getsize(plot) > 10000, "plot written")
        except ImportError:
            print("matplotlib not installed: plot not checked")

        bad = fixture()
        bad["benchmarks"][0]["TFLOP/s"] = float("nan")
        with open(bench, "w") as f:
            json.dump(bad, f)
        expect(run([bench]).returncode != 0, "a NaN figure is refused")

    for what in failures:
        print("FAILED:", what)
    if not failures:
        print("gemm_table.py: all checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
