#!/usr/bin/env bash
# bcn_dbscan against scikit-learn, label for label: thousands of seeded
# cases (uniform, blobs, integer grids with ties at exactly eps, duplicates,
# collinear and far-away points, scaled by powers of two and by 0.1; 1, 2,
# 3 and 4 dimensions, up to 2000 points) through tests/tools/dbscan_oracle.py
# and, in one call, tests/tools/dbscan_oracle.c. Skips (77) without
# scikit-learn.
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_SRC:?}"
PY=/usr/bin/python3
if ! "$PY" -c 'import sklearn, numpy' 2>/dev/null; then
	echo "dbscan_sklearn: SKIP: $PY has no scikit-learn (apt-get install python3-sklearn)"
	exit 77
fi
exec "$PY" "$BCN_SRC/tests/tools/dbscan_oracle.py" \
	--oracle "$BCN_BUILD/tests/dbscan_oracle" "$@"
