"""libtorch's MLP training step on N threads, for comparison with bench_training's mlp/cpu rows.

Usage: /usr/bin/python3 bench/cpu/torch_mlp_threads.py THREADS
Linear(W, W), ReLU, Linear(W, W) on a batch of 256, MSE loss, zero_grad, backward, SGD step (as
bench/bench_training.cpp's mlp rows); prints the median of 25 steps at widths 128 and 512.
docs/cpu-kernels.md ("Threads and shared CPUs") ran it alternately with 1 and 2 threads on a
loaded machine.
"""
import sys
import time

import torch

torch.set_num_threads(int(sys.argv[1]))
for width in (128, 512):
    model = torch.nn.Sequential(torch.nn.Linear(width, width), torch.nn.ReLU(),
                                torch.nn.Linear(width, width))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    data, target = torch.randn(256, width), torch.randn(256, width)
    times = []
    for _ in range(25):
        start = time.perf_counter()
        loss = torch.nn.functional.mse_loss(model(data), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        times.append(time.perf_counter() - start)
    times.sort()
    print(f"torch threads={sys.argv[1]} width={width} median {times[len(times) // 2] * 1e3:.3f} ms")
