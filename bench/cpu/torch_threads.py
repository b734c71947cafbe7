#!/usr/bin/env python3
"""torch_threads.py: libtorch's MLP training step (the one of bench_vs_libtorch: Linear(1024, 1024),
ReLU, Linear(1024, 1024), batch 256, MSELoss, SGD) under each pairing of its two thread pools:
libtorch's intra-op OpenMP team (torch.set_num_threads) and the OpenBLAS pthreads its matmuls
run on (Debian's libtorch multiplies through libopenblas, whose threads set_num_threads does not
set). The settings take turns in rounds, as bench/paired.hpp does, each round a median of
`--steps` steps per setting, with a 0.15 s pause before each so that the last setting's pools
have stopped spinning.

    /usr/bin/python3 bench/cpu/torch_threads.py [--rounds 8] [--steps 5]

Prints each setting's median round in milliseconds per step. Why it exists: the report's
2-thread libtorch step was slower than its 1-thread step, and this says which pool costs what.
"""
import argparse
import ctypes
import ctypes.util
import statistics
import time

import torch

SETTINGS = [(1, 1), (1, 2), (2, 1), (2, 2)]  # (intra-op threads, OpenBLAS threads)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--steps", type=int, default=5)
    args = ap.parse_args()
    blas = ctypes.CDLL(ctypes.util.find_library("openblas") or "libopenblas.so.0")
    model = torch.nn.Sequential(torch.nn.Linear(1024, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 1024))
    data, target = torch.randn(256, 1024), torch.randn(256, 1024)
    sgd = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = torch.nn.MSELoss()

    def step():
        loss = loss_fn(model(data), target)
        sgd.zero_grad()
        loss.backward()
        sgd.step()

    def use(setting):
        torch.set_num_threads(setting[0])
        blas.openblas_set_num_threads(setting[1])

    rounds = {s: [] for s in SETTINGS}
    for s in SETTINGS:  # warm every pool
        use(s)
        step()
    for r in range(args.rounds):
        for j in range(len(SETTINGS)):
            s = SETTINGS[(r + j) % len(SETTINGS)]
            use(s)
            time.sleep(0.15)
            step()  # wakes the pools; not timed
            times = []
            for _ in range(args.steps):
                t0 = time.perf_counter()
                step()
                times.append(time.perf_counter() - t0)
            rounds[s].append(statistics.median(times))
    print(f"torch {torch.__version__}, {args.rounds} rounds of {args.steps} steps per setting")
    print("intra-op threads | OpenBLAS threads | ms per step (median round) | rounds min-max")
    for s in SETTINGS:
        v = rounds[s]
        print(f"{s[0]} | {s[1]} | {statistics.median(v) * 1e3:.1f} | {min(v) * 1e3:.1f}-{max(v) * 1e3:.1f}")


if __name__ == "__main__":
    main()
