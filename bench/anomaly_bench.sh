#!/usr/bin/env bash
# The anomaly detection's cost and accuracy (docs/anomaly.md, "Cost"):
# bench/anomaly_bench writes one simulated day of a TaihuLight-size
# machine (288 forwarding nodes, 864 OSTs, 10,000 jobs) with five injected
# faults into an embedded store in a temporary directory and runs the
# hourly detection rounds over it; one JSON object with the wall seconds,
# the peak memory, recall and precision. Then the wavelet transform and
# DBSCAN against PyWavelets and scikit-learn (bench/dwt_bench.sh,
# bench/dbscan_bench.sh), when built.
# usage: bench/anomaly_bench.sh BUILD_DIR [HOURS [FWD [OSTS [JOBS]]]]
set -euo pipefail
BUILD=${1:?usage: anomaly_bench.sh BUILD_DIR [HOURS [FWD [OSTS [JOBS]]]]}
shift
SRC=$(cd "$(dirname "$0")/.." && pwd)
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
"$BUILD/bench/anomaly_bench" "$DIR/store" "${@:-24}"
[ -x "$BUILD/bench/dwt_bench" ] && [ -f "$SRC/bench/dwt_bench.sh" ] &&
	bash "$SRC/bench/dwt_bench.sh" "$BUILD"
[ -x "$BUILD/bench/dbscan_bench" ] && bash "$SRC/bench/dbscan_bench.sh" "$BUILD"
exit 0
