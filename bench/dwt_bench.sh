#!/usr/bin/env bash
# The wavelet library (analysis/anomaly/dwt.h, bench/dwt_bench.c) against
# PyWavelets on the same signals (a sine, steps and seeded noise): the
# multilevel decomposition and reconstruction (wavedec + waverec) and the
# full universal-threshold denoising (wavedec, soft threshold of every
# detail level, waverec), the maximum level, symmetric mode, haar and db2,
# n = 2^10, 2^16, 2^20. Each time is the median of several repetitions
# (more for the small sizes); max_rel_err is the largest difference
# between the two outputs relative to the largest magnitude of pywt's.
# One JSON object per line:
#  {"bench":"dwt","op":"denoise","wavelet":"db2","n":1048576,"c_ms":..,
#   "pywt_ms":..,"speedup":..,"max_rel_err":..}
# usage: bench/dwt_bench.sh BUILD_DIR
set -euo pipefail
BUILD=${1:?usage: dwt_bench.sh BUILD_DIR}
BIN=$BUILD/bench/dwt_bench
[ -x "$BIN" ] || { echo "dwt_bench.sh: $BIN not built" >&2; exit 1; }
T=$(mktemp -d "${TMPDIR:-/var/tmp}/bcn-dwt.XXXXXX")
trap 'rm -rf "$T"' EXIT
/usr/bin/python3 - "$BIN" "$T" <<'PY'
import json, math, subprocess, sys, time
import numpy as np
import pywt

binary, tmp = sys.argv[1], sys.argv[2]


def pywt_op(op, x, w):
    coeffs = pywt.wavedec(x, w, "symmetric")
    if op == "denoise":
        sigma = np.median(np.abs(coeffs[-1])) / 0.6745
        t = sigma * math.sqrt(2 * math.log(len(x)))
        coeffs[1:] = [pywt.threshold(c, t, "soft") for c in coeffs[1:]]
    return pywt.waverec(coeffs, w, "symmetric")[:len(x)]


rng = np.random.default_rng(7)
for exp, reps in [(10, 201), (16, 31), (20, 7)]:
    n = 1 << exp
    i = np.arange(n)
    x = np.sin(i * 2 * np.pi / 500) * 10 + (i % 4096 < 2048) * 3 + rng.normal(size=n)
    x.astype("=f8").tofile(tmp + "/x.bin")
    for w in ["haar", "db2"]:
        for op in ["roundtrip", "denoise"]:
            r = subprocess.run([binary, op, w, str(reps), tmp + "/x.bin",
                                tmp + "/out.bin"], capture_output=True,
                               text=True, check=True)
            c_ms = json.loads(r.stdout)["c_ms"]
            c = np.fromfile(tmp + "/out.bin", dtype="=f8")
            times = []
            for _ in range(reps):
                t0 = time.perf_counter()
                ref = pywt_op(op, x, w)
                times.append((time.perf_counter() - t0) * 1e3)
            py_ms = float(np.median(times))
            err = float(np.max(np.abs(c - ref)) / np.max(np.abs(ref)))
            print(json.dumps({"bench": "dwt",
                              "op": "wavedec+waverec" if op == "roundtrip" else op,
                              "wavelet": w, "n": n, "c_ms": round(c_ms, 4),
                              "pywt_ms": round(py_ms, 4),
                              "speedup": round(py_ms / c_ms, 2),
                              "max_rel_err": float("%.3g" % err)}), flush=True)
PY
