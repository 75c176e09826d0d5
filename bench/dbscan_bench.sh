#!/usr/bin/env bash
# bcn_dbscan against scikit-learn (kd_tree) on 10^4, 10^5 and 10^6 2-D
# points, blobs plus uniform noise, eps the median distance to the 15th neighbour: time, peak
# memory and identical labels, one JSON object per size (docs/dbscan.md).
# usage: bench/dbscan_bench.sh BUILD_DIR [SIZES]   (SIZES: 1e4,1e5,1e6)
set -euo pipefail
BUILD=${1:?usage: dbscan_bench.sh BUILD_DIR [SIZES]}
SRC=$(cd "$(dirname "$0")/.." && pwd)
exec /usr/bin/python3 "$SRC/bench/dbscan_bench.py" "$BUILD/bench/dbscan_bench" "${2:-1e4,1e5,1e6}"
