#!/usr/bin/env python3
"""Fits kernels/vecmath.h's verfcPos: erfc(a) = (1 + a p(a))^-4 on [0, 4], p of degree 8.

Minimax in erfc's absolute error by Lawson's iteratively reweighted least squares on 8,000
Chebyshev nodes, then checked in float32 arithmetic (the coefficients rounded to float, Horner
in float, as vecmath.h evaluates it) on a dense grid of [0, 9]. Needs numpy (Debian's
python3-numpy: /usr/bin/python3). Prints the coefficients, highest degree first, and the error.
"""
import math
import sys

import numpy as np

POWER, DEGREE, HI = 4, 9, 4.0   # (1 + c1 a + ... + c9 a^9)^-POWER


def fit(iters=60):
    n = 8000
    a = HI / 2 + HI / 2 * np.cos(np.pi * (np.arange(n) + 0.5) / n)
    erfc = np.array([math.erfc(v) for v in a])
    g = erfc ** (-1.0 / POWER) - 1.0
    basis = np.stack([(a / HI) ** k for k in range(1, DEGREE + 1)], axis=1)
    slope = POWER * erfc / (1.0 + g)   # d erfc / d g: g's error in erfc's terms
    w = np.full(n, 1.0 / n)
    for _ in range(iters):
        sw = np.sqrt(w) * slope
        c, *_ = np.linalg.lstsq(basis * sw[:, None], g * sw, rcond=None)
        err = np.abs((basis @ c - g) * slope)
        w = w * err + 1e-300
        w /= w.sum()
    return c / HI ** np.arange(1, DEGREE + 1)


def erfc_f32(c, a):
    f = np.float32
    a = a.astype(f)
    ac = np.minimum(a, f(HI))
    p = f(c[-1])
    for k in range(len(c) - 2, -1, -1):
        p = (p * ac).astype(f) + f(c[k])
    r = (f(1) / (f(1) + (p * ac).astype(f))).astype(f)
    for _ in range(int(math.log2(POWER))):
        r = (r * r).astype(f)
    return np.where(a >= f(HI), f(0), r)


def main():
    c = fit()
    a = np.linspace(0.0, 9.0, 900001)
    err = np.abs(erfc_f32(c, a).astype(np.float64) - np.array([math.erfc(v) for v in a])).max()
    print("coefficients, a^9 .. a^1:", " ".join("%.8e" % float(np.float32(v)) for v in c[::-1]))
    print("max absolute error of erfc in float32 on [0, 9]: %.3g" % err)
    return 0 if err < 7e-7 else 1


if __name__ == "__main__":
    sys.exit(main())
