#!/usr/bin/env bash
# TLS cost on the collector-to-log-server path: the same frame stream
# (FRAMES frames of RECORDS records, two nodes) replayed with `beacon
# replay` into a beacon-logsrv over plain TCP and over TLS (GnuTLS, P-256
# certificate made here), each into its own durable Redis, flusher off so
# that ingest alone is timed. Prints one JSON object per line: records/s
# of each, and TLS over plain as a ratio measured in this run.
# usage: bench/tls_bench.sh BUILD_DIR [FRAMES [RECORDS]]
set -euo pipefail
BUILD=${1:?usage: tls_bench.sh BUILD_DIR [FRAMES [RECORDS]]}
FRAMES=${2:-4000}
RECORDS=${3:-250}
SRC=$(cd "$(dirname "$0")/.." && pwd)
. "$SRC/tests/lib/servers.sh"
T=$(mktemp -d "${TMPDIR:-/var/tmp}/bcn-bench.XXXXXX")
trap 'bcn_cleanup; rm -rf "$T"' EXIT
BEACON=$BUILD/cli/beacon

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
	-subj "/CN=bench CA" -keyout "$T/ca.key" -out "$T/ca.pem" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=localhost" \
	-keyout "$T/srv.key" -out "$T/srv.csr" 2>/dev/null
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' > "$T/ext"
openssl x509 -req -in "$T/srv.csr" -CA "$T/ca.pem" -CAkey "$T/ca.key" -CAcreateserial \
	-days 2 -extfile "$T/ext" -out "$T/srv.pem" 2>/dev/null
"$BEACON" keygen "$T/site.key"
"$BUILD/tests/mkframes" "$T/f.bin" "$T/exp" "$FRAMES" "$RECORDS" >/dev/null

run() { # mode, extra logsrv args..., then -- extra replay args...
	local mode=$1; shift
	local largs=() rargs=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do largs+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	rargs=("$@")
	bcn_alloc_port RP; bcn_alloc_port LP
	bcn_start_redis "$T/redis-$mode" "$RP"
	"$BUILD/logsrv/beacon-logsrv" --listen "127.0.0.1:$LP" --auth-key-file "$T/site.key" \
		--redis-port "$RP" --no-flusher --record-max-age 0 --log-level warning --max-preauth-per-peer 64 \
		"${largs[@]}" > "$T/logsrv-$mode.log" 2>&1 &
	local lpid=$!
	BCN_PIDS+=("$lpid")
	bcn_wait_port "$LP" "$lpid"
	local t0 t1
	t0=$(date +%s.%N)
	"$BEACON" replay --to "127.0.0.1:$LP" --key "$T/site.key" --timeout 600s \
		"${rargs[@]}" "$T/f.bin" > "$T/$mode.json" 2> "$T/$mode.err"
	t1=$(date +%s.%N)
	python3 - "$mode" "$t0" "$t1" "$T/$mode.json" "$FRAMES" "$RECORDS" > "$T/$mode.out" <<'PY'
import json, sys
mode, t0, t1, path, frames, records = sys.argv[1:]
r = json.load(open(path))
secs = float(t1) - float(t0)
print(json.dumps({"bench": "tls", "mode": mode, "frames": r["acked_frames"],
                  "records": r["acked_records"], "seconds": round(secs, 3),
                  "records_per_s": round(r["acked_records"] / secs)}))
PY
	cat "$T/$mode.out"
	bcn_stop "$lpid"
	bcn_stop "$REDIS_PID"
}
run plain
run tls --tls --tls-cert-file "$T/srv.pem" --tls-key-file "$T/srv.key" -- --tls --tls-ca-file "$T/ca.pem"
python3 - "$T/plain.out" "$T/tls.out" <<'PY'
import json, sys
p, t = (json.load(open(f)) for f in sys.argv[1:])
print(json.dumps({"bench": "tls", "metric": "tls_over_plain_records_per_s",
                  "ratio": round(t["records_per_s"] / p["records_per_s"], 3)}))
PY
