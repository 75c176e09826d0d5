#!/usr/bin/python3
"""The oracle check of the wavelet library (analysis/anomaly/dwt.h) against
PyWavelets: generates seeded cases (signals of many lengths and kinds,
every wavelet and mode, levels 1..max and above, single levels, idwt of
random coefficients, thresholds, universal thresholds, denoising), runs
them through tests/tools/dwt_oracle (the C side, line format in its
header comment) and compares every number.

Tolerance: 1e-9 relative to the largest magnitude in the array, that is
|c - p| <= 1e-9 * max(|p|, scale), scale the largest |value| of pywt's
array, since elementwise relative error is meaningless near zero. For coefficient arrays the scale is the largest
magnitude over all arrays of the case (cA with the cD): a detail
coefficient of a smooth signal is a cancellation whose rounding is
relative to the signal, not to itself. For the same reason the universal
threshold's scale is the threshold the largest coefficient of the
decomposition would give (that of a constant signal is rounding noise).
Thresholding is elementwise, so its results are compared elementwise
(scale 0: a zero must be a zero). Integers (lengths, levels)
must be equal.

pywt 1.1.1 never returns from a 'reflect' dwt of a single sample (its
period, 2n - 2, is 0): those cases (and levels whose input would be one
sample) are left out; the library takes the sample as constant.

One departure from pywt, on purpose: pywt.threshold(0, 0, 'soft') is NaN
(0/0); the library keeps 0, and the reference here replaces those NaNs by
0 (counted in the summary).

usage: dwt_oracle.py PATH/TO/dwt_oracle    exit 0 if all agree, else 1"""
import math
import subprocess
import sys
import warnings

import numpy as np
import pywt

TOL = 1e-9
WAVELETS = ["haar"] + ["db%d" % i for i in range(1, 11)]
MODES = ["symmetric", "periodization", "zero", "constant", "periodic",
         "reflect"]
LENGTHS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 16, 17, 20, 31, 32, 33, 64, 100,
           127, 128, 255, 256, 1000, 1023]
SHORT = [1, 2, 3, 5, 8, 13, 17, 64, 1023]     # lengths of every kind
rng = np.random.default_rng(20261124)
fixed_nans = 0
warnings.simplefilter("ignore")     # pywt warns of levels above the max


def signal(kind, n):
    if kind == "random":
        return rng.normal(size=n) * 10 ** rng.uniform(-3, 3)
    if kind == "constant":
        return np.full(n, rng.uniform(-100, 100))
    if kind == "tiny":
        return rng.normal(size=n) * 1e-300
    if kind == "huge":
        return rng.normal(size=n) * 1e300
    if kind == "mixed":
        return rng.normal(size=n) * 10.0 ** rng.uniform(-200, 200, size=n)
    if kind == "spikes":
        x = rng.normal(size=n) * 0.01
        k = max(1, n // 50)
        x[rng.integers(0, n, size=k)] += rng.choice([-1, 1], size=k) * 1e4
        return x
    if kind == "ramp":
        return np.arange(n, dtype=float) * 0.37 - 3.0
    raise ValueError(kind)


KINDS = ["random", "constant", "tiny", "huge", "mixed", "spikes", "ramp"]


def line(op, w="-", mode="-", level=0, flag="-", param=0.0, values=()):
    vals = " ".join(repr(float(v)) for v in values)
    return "%s %s %s %d %s %r %d %s" % (op, w, mode, level, flag,
                                        float(param), len(values), vals)


def pywt_hangs(n, w, mode, level):
    """Whether pywt would dwt a single sample in 'reflect' mode."""
    if mode != "reflect":
        return False
    dec_len = pywt.Wavelet(w).dec_len
    if level == 0:
        level = pywt.dwt_max_level(n, dec_len)
    for _ in range(level):
        if n == 1:
            return True
        n = pywt.dwt_coeff_len(n, dec_len, mode)
    return False


def soft_ref(c, t, how):
    global fixed_nans
    with np.errstate(invalid="ignore"):
        r = pywt.threshold(np.asarray(c, dtype=float), t, how)
    bad = (np.asarray(c) == 0) & np.isnan(r)
    fixed_nans += int(bad.sum())
    r[bad] = 0.0
    return r


def gen_cases():
    """Yields (input line, {label: (reference array, scale or None)})."""
    for n in list(range(1, 80)) + [127, 128, 1000, 4097, 1 << 20]:
        for w in WAVELETS:
            for mode in MODES:
                lv = [pywt.dwt_coeff_len(n, pywt.Wavelet(w).dec_len, mode)]
                lv.append(len(pywt.idwt(np.zeros(lv[0]), None, w, mode))
                          if mode == "periodization" or
                          2 * lv[0] + 2 > pywt.Wavelet(w).dec_len else 0)
                lv.append(pywt.dwt_max_level(n, pywt.Wavelet(w).dec_len))
                yield (line("len", w, mode, values=()).replace(" 0 ", " %d " % n, 1)
                       if False else "len %s %s 0 - 0.0 %d" % (w, mode, n),
                       {"len": (np.array(lv, dtype=float), None)})
    for w in WAVELETS:
        for mode in MODES:
            for n in LENGTHS:
                for kind in KINDS if n in SHORT else ["random"]:
                    x = signal(kind, n)
                    yield from wavedec_cases(x, w, mode)
                yield from single_cases(signal("random", n), w, mode)
    yield from threshold_cases()
    yield from denoise_cases()
    yield from error_cases()


def wavedec_cases(x, w, mode):
    n, dec_len = len(x), pywt.Wavelet(w).dec_len
    top = pywt.dwt_max_level(n, dec_len)
    levels = sorted(set([0] + list(range(1, top + 1)) + [top + 1]))
    if n > 256:
        levels = sorted(set([0, 1, top, top + 1]))
    for level in levels:
        if pywt_hangs(n, w, mode, max(level, 1)):
            continue
        coeffs = pywt.wavedec(x, w, mode, None if level == 0 else level)
        lens = [len(coeffs) - 1] + [len(c) for c in coeffs]
        rec = pywt.waverec(coeffs, w, mode)
        allc = np.concatenate(coeffs)
        yield (line("wavedec", w, mode, level, values=x),
               {"lens": (np.array(lens, dtype=float), None),
                "coef": (allc, np.max(np.abs(allc))),
                "rec": (rec, np.max(np.abs(rec)))})


def single_cases(x, w, mode):
    if pywt_hangs(len(x), w, mode, 1):
        return
    ca, cd = pywt.dwt(x, w, mode)
    s = max(np.max(np.abs(ca)), np.max(np.abs(cd)))
    yield (line("dwt", w, mode, values=x), {"ca": (ca, s), "cd": (cd, s)})
    m = len(ca)
    a, d = rng.normal(size=m), rng.normal(size=m)
    rec = pywt.idwt(a, d, w, mode)
    yield (line("idwt", w, mode, values=np.concatenate([a, d])),
           {"rec": (rec, np.max(np.abs(rec)))})


def threshold_cases():
    base = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 1e-300,
                     -1e300, 0.9999999999999999, 1.0000000000000002, 3.5])
    for t in [0.0, 0.5, 1.0, 2.0, 1e-300, 1e300]:
        for how in ["soft", "hard"]:
            for x in [base, rng.normal(size=257) * 3]:
                r = soft_ref(x, t, how)
                yield (line("thr", flag=how, param=t, values=x),
                       {"thr": (r, 0.0)})


def denoise_ref(x, w, mode, level, how, scale):
    coeffs = pywt.wavedec(x, w, mode, None if level == 0 else level)
    if len(coeffs) < 2 or len(x) < 2:
        return np.array(x, dtype=float), None
    sigma = np.median(np.abs(coeffs[-1])) / 0.6745
    t = sigma * math.sqrt(2 * math.log(len(x)))
    big = max(np.max(np.abs(c)) for c in coeffs) / 0.6745 * \
        math.sqrt(2 * math.log(len(x)))
    coeffs[1:] = [soft_ref(c, t * scale, how) for c in coeffs[1:]]
    return pywt.waverec(coeffs, w, mode)[:len(x)], (t, big)


def denoise_cases():
    for w in WAVELETS:
        for mode in MODES:
            for n in [1, 2, 3, 5, 17, 100, 1001, 4096]:
                for kind in KINDS if n in (3, 100, 1001) else ["random"]:
                    x = signal(kind, n)
                    if kind == "random":
                        x = np.sin(np.arange(n) / 7.0) * 5 + x
                    top = pywt.dwt_max_level(n, pywt.Wavelet(w).dec_len)
                    for level, how, scale in [(0, "soft", 1.0),
                                              (1, "hard", 1.0),
                                              (max(1, top - 1), "soft", 0.5),
                                              (top + 1, "soft", 2.0)]:
                        if n > 256 and level not in (0, 1) or \
                                pywt_hangs(n, w, mode, level):
                            continue
                        ref, t = denoise_ref(x, w, mode, level, how, scale)
                        yield (line("denoise", w, mode, level, how, scale, x),
                               {"den": (ref, np.max(np.abs(ref)))})
                        if t is not None and level in (0, 1):
                            yield (line("univ", w, mode, level, values=x),
                                   {"univ": (np.array([t[0]]), t[1])})


def error_cases():
    # pywt raises ValueError for these; the library -EINVAL (-22)
    yield ("idwt db4 symmetric 0 - 0.0 6 1 2 3 4 5 6", {"err": (np.array([-22.0]), None)})
    yield ("dwt haar symmetric 0 - 0.0 0", {"err": (np.array([-22.0]), None)})
    yield ("wavedec db2 symmetric 0 - 0.0 3 1 nan 3", {"err": (np.array([-33.0]), None)})


def parse_output(text):
    blocks, cur = [], {}
    for ln in text.splitlines():
        if ln == "end":
            blocks.append(cur)
            cur = {}
            continue
        f = ln.split()
        if f[0] == "err":
            cur["err"] = np.array([float(f[1])])
        else:
            cur[f[0]] = np.array([float(v) for v in f[2:]])
            if int(f[1]) != len(cur[f[0]]):
                raise SystemExit("FAIL: malformed output line: " + ln[:80])
    return blocks


def main():
    binary = sys.argv[1]
    cases = list(gen_cases())
    inp = "\n".join(c[0] for c in cases) + "\n"
    out = subprocess.run([binary], input=inp, capture_output=True, text=True,
                         check=True).stdout
    blocks = parse_output(out)
    if len(blocks) != len(cases):
        raise SystemExit("FAIL: %d cases, %d answers" % (len(cases), len(blocks)))
    numbers, worst, worst_case, bad = 0, 0.0, "", 0
    for (inl, exp), got in zip(cases, blocks):
        if set(exp) != set(got):
            print("FAIL: %s: expected %s, got %s" % (inl[:70], sorted(exp), sorted(got)))
            bad += 1
            continue
        for label, (ref, scale) in exp.items():
            c = got[label]
            if len(c) != len(ref):
                print("FAIL: %s: %s has %d values, pywt %d" % (inl[:70], label, len(c), len(ref)))
                bad += 1
                continue
            numbers += len(ref)
            if scale is None:
                if not np.array_equal(c, ref):
                    print("FAIL: %s: %s %s, pywt %s" % (inl[:70], label, c, ref))
                    bad += 1
                continue
            den = np.maximum(np.abs(ref), scale)
            err = np.abs(c - ref)
            with np.errstate(invalid="ignore", divide="ignore"):
                rel = np.where(err == 0, 0.0, err / den)
            if not np.all(np.isfinite(c)) or np.any(rel > TOL) or np.any(np.isnan(rel)):
                i = int(np.nanargmax(np.where(np.isnan(rel), np.inf, rel)))
                print("FAIL: %s: %s[%d] = %r, pywt %r (relative error %.3g)"
                      % (inl[:70], label, i, c[i], ref[i], rel[i]))
                bad += 1
                continue
            if len(rel) and rel.max() > worst:
                worst, worst_case = float(rel.max()), inl[:60] + " " + label
    print("dwt_pywt: %d cases, %d numbers compared with pywt %s; worst relative "
          "error %.3g (%s); %d pywt NaNs of soft(0, 0) taken as 0"
          % (len(cases), numbers, pywt.__version__, worst, worst_case, fixed_nans))
    if bad:
        print("FAIL: %d mismatches (tolerance %g relative to the array's largest magnitude)"
              % (bad, TOL))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
