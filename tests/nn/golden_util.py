"""Helpers shared by the make_*_golden.py scripts: smooth deterministic inputs, and numbers
printed as C++ initialiser lists (repr keeps every double's digits)."""
import math

import torch


def wave(shape, phase, scale=2.0, shift=0.0):
    n = math.prod(shape)
    return torch.tensor([scale * math.sin(0.37 * i + phase) + shift for i in range(n)],
                        dtype=torch.float64).reshape(shape)


def number(v):
    # C++ spellings of the non-finite values (<cmath>'s macros); repr keeps every other digit.
    v = float(v)
    if math.isnan(v):
        return "NAN"
    if math.isinf(v):
        return "INFINITY" if v > 0 else "-INFINITY"
    return repr(v)


def fmt(t):
    return "{" + ", ".join(number(v) for v in t.flatten().tolist()) + "}"


def ints(values):
    return "{" + ", ".join(str(int(v)) for v in values) + "}"
