#!/usr/bin/env python3
"""Fits the polynomials of kernels/cpu/vec_math.hpp's atan and asin (float32 in, computed in
float64): least squares on Chebyshev nodes against mpmath at 50 digits, weighted by the
relative error of the final function, then checked on a dense grid. Prints C++ constants.

  atan(t) = t + t z P(z),  z = t^2 in [0, tan(pi/8)^2]
  asin(s) = s + s z R(z),  z = s^2 in [0, 1/4]
  erf: below; erfc(x) for x in [4, 10.1] = exp(-x^2) G(w) / x, w = 1/x^2 mapped to [-1, 1]

Run: /usr/bin/python3 scripts/fit_vec_math.py
"""
import mpmath
import numpy as np

mpmath.mp.dps = 50


def fit(name, f_mp, z_max, degree):
    # g(z) = (f(sqrt z) / sqrt z - 1) / z, evaluated in high precision (no cancellation).
    def g(z):
        s = mpmath.sqrt(z)
        return (f_mp(s) / s - 1) / z

    nodes = [z_max * (1 - mpmath.cos(mpmath.pi * (k + 0.5) / 200)) / 2 for k in range(200)]
    a = np.array([[float(z) ** j for j in range(degree + 1)] for z in nodes])
    b = np.array([float(g(z)) for z in nodes])
    # The final error is t z (P - g) relative to f ~ t: weight by z.
    w = np.array([float(z) for z in nodes])
    coeffs, *_ = np.linalg.lstsq(a * w[:, None], b * w, rcond=None)
    worst = 0.0
    for z in np.linspace(1e-6, z_max, 4001):
        s = np.sqrt(z)
        p = 0.0
        for c in coeffs[::-1]:
            p = p * z + c
        approx = s + s * z * p
        exact = f_mp(mpmath.mpf(s))
        worst = max(worst, abs(float((approx - exact) / exact)))
    print(f"// {name}: degree {degree}, max relative error {worst:.2e}")
    for c in coeffs:
        print(f"  {c!r},")


fit("atan", mpmath.atan, float(mpmath.tan(mpmath.pi / 8) ** 2), 6)
fit("asin", mpmath.asin, 0.25, 7)


def fit_erf(small_edge, big_edge, degree_small, degree_big):
    """erf(x) = x P(x^2) for |x| < small_edge; erf(x) = 1 - exp(-x^2) R(t) above, t mapping
    [small_edge, big_edge] to [-1, 1]. Errors are absolute on erf (which is >= 0.5 above)."""
    zmax = small_edge**2
    nodes = [zmax * (1 - mpmath.cos(mpmath.pi * (k + 0.5) / 200)) / 2 for k in range(200)]
    a = np.array([[float(z) ** j for j in range(degree_small + 1)] for z in nodes])
    b = np.array([float(mpmath.erf(mpmath.sqrt(z)) / mpmath.sqrt(z)) if z > 0 else 0 for z in nodes])
    p, *_ = np.linalg.lstsq(a, b, rcond=None)
    worst = 0.0
    for x in np.linspace(1e-4, small_edge, 3001):
        z = x * x
        v = 0.0
        for c in p[::-1]:
            v = v * z + c
        worst = max(worst, abs(float((x * v - mpmath.erf(x)) / mpmath.erf(x))))
    print(f"// erf, |x| < {small_edge}: x P(x^2), degree {degree_small}, max relative error {worst:.2e}")
    for c in p:
        print(f"  {c!r},")
    mid, half = (small_edge + big_edge) / 2, (big_edge - small_edge) / 2
    ts = [mpmath.cos(mpmath.pi * (k + 0.5) / 200) for k in range(200)]
    a = np.array([[float(t) ** j for j in range(degree_big + 1)] for t in ts])
    b = np.array([float(mpmath.erfc(mid + half * t) * mpmath.exp((mid + half * t) ** 2)) for t in ts])
    r, *_ = np.linalg.lstsq(a, b, rcond=None)
    worst = 0.0
    for x in np.linspace(small_edge, big_edge, 3001):
        t = (x - mid) / half
        v = 0.0
        for c in r[::-1]:
            v = v * t + c
        worst = max(worst, abs(float(1 - np.exp(-x * x) * v - mpmath.erf(x))))
    print(f"// erf, {small_edge} <= |x| <= {big_edge}: 1 - exp(-x^2) R((x - {mid}) / {half}), "
          f"degree {degree_big}, max absolute error {worst:.2e}")
    for c in r:
        print(f"  {c!r},")


fit_erf(0.75, 4.0, 7, 16)


def fit_erfc_tail(lo, hi, degree):
    """erfc(x) = exp(-x^2) G(t) / x for x in [lo, hi], t = (1/x^2 - mid) / half in [-1, 1]
    (x erfc(x) e^(x^2) tends to 1/sqrt(pi): smooth in 1/x^2). Errors relative on erfc."""
    wlo, whi = 1 / hi**2, 1 / lo**2
    mid, half = (wlo + whi) / 2, (whi - wlo) / 2

    def g(w):
        x = 1 / mpmath.sqrt(w)
        return x * mpmath.erfc(x) * mpmath.exp(x * x)

    ts = [mpmath.cos(mpmath.pi * (k + 0.5) / 200) for k in range(200)]
    a = np.array([[float(t) ** j for j in range(degree + 1)] for t in ts])
    b = np.array([float(g(mid + half * t)) for t in ts])
    c, *_ = np.linalg.lstsq(a, b, rcond=None)
    worst = 0.0
    for x in np.linspace(lo, hi, 3001):
        t = (1 / x**2 - mid) / half
        v = 0.0
        for cc in c[::-1]:
            v = v * t + cc
        worst = max(worst, abs(v / float(g(mpmath.mpf(1) / mpmath.mpf(x) ** 2)) - 1))
    print(f"// erfc, {lo} <= x <= {hi}: exp(-x^2) G((1/x^2 - {mid!r}) / {half!r}) / x, "
          f"degree {degree}, max relative error {worst:.2e}")
    for cc in c:
        print(f"  {cc!r},")


fit_erfc_tail(4.0, 10.1, 8)
