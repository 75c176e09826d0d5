#!/usr/bin/env bash
# The wavelet library (analysis/anomaly/dwt.h) against PyWavelets, the
# oracle: tests/tools/dwt_oracle.py generates seeded cases (random,
# constant, tiny 1e-300, huge 1e300, mixed-magnitude, spiky and ramp
# signals of lengths 1 to 4097, db1..db10 and haar, the six modes, levels
# 1..max and one above, single levels, idwt, soft and hard thresholds, the
# universal threshold and the full denoising), runs them through
# tests/tools/dwt_oracle and compares every number with pywt's.
# Tolerance: 1e-9 relative to the largest magnitude in the array
# (|c - p| <= 1e-9 * max(|p|, scale)); lengths and levels exactly.
# Prints the number of cases and numbers compared and the worst relative
# error; exits 1 on any mismatch, 77 (skipped) without python3-pywt.
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_SRC:?}"
PY=/usr/bin/python3
ORACLE=$BCN_BUILD/tests/dwt_oracle
[ -x "$ORACLE" ] || { echo "FAIL: $ORACLE not built" >&2; exit 1; }
if ! "$PY" -c 'import pywt, numpy' 2>/dev/null; then
	echo "SKIP: $PY cannot import pywt and numpy (apt-get install python3-pywt)" >&2
	exit 77
fi
if ! "$PY" "$BCN_SRC/tests/tools/dwt_oracle.py" "$ORACLE"; then
	echo "FAIL: the wavelet library disagrees with pywt (lines above)" >&2
	exit 1
fi
echo "PASS: dwt_pywt"
