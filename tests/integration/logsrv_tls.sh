#!/usr/bin/env bash
# TLS between collectors and a real beacon-logsrv (docs/logsrv.md "TLS"):
# certificates made here with openssl (no key lives in the repository);
# over TLS every record arrives, and the bytes on the wire (recorded by a
# relay) hold neither a frame magic nor a node name; a collector that
# does not trust the server's CA, or expects another name, is refused and
# stores nothing; a plain-TCP client is closed and counted.
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_SRC:?}"
. "$BCN_SRC/tests/lib/servers.sh"
T=$(mktemp -d)
RELAY=
trap 'st=$?; [ -n "$RELAY" ] && kill "$RELAY" 2>/dev/null; bcn_cleanup || st=1; rm -rf "$T"; exit $st' EXIT
fail() { echo "FAIL: $*" >&2; [ -f "$T/logsrv.log" ] && tail -n 20 "$T/logsrv.log" >&2; exit 1; }
command -v openssl >/dev/null || fail "openssl is missing (deploy/install-deps)"

BEACON=$BCN_BUILD/cli/beacon
mkcert() { # name, CA name, subjectAltName
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
		-subj "/CN=$1 CA" -keyout "$T/$1-ca.key" -out "$T/$1-ca.pem" 2>/dev/null
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$2" \
		-keyout "$T/$1.key" -out "$T/$1.csr" 2>/dev/null
	printf 'subjectAltName=%s\n' "$3" > "$T/$1.ext"
	openssl x509 -req -in "$T/$1.csr" -CA "$T/$1-ca.pem" -CAkey "$T/$1-ca.key" \
		-CAcreateserial -days 2 -extfile "$T/$1.ext" -out "$T/$1.pem" 2>/dev/null
}
mkcert srv logsrv.test "DNS:logsrv.test,DNS:localhost,IP:127.0.0.1"
mkcert other other.test "DNS:other.test"
"$BEACON" keygen "$T/site.key"
"$BCN_BUILD/tests/mkframes" "$T/f.bin" "$T/exp" 20 50     # cn001, cn002

bcn_alloc_port RPORT
bcn_start_redis "$T/redis" "$RPORT" || fail "redis did not listen"
bcn_alloc_port LPORT
"$BCN_BUILD/logsrv/beacon-logsrv" --listen "127.0.0.1:$LPORT" --auth-key-file "$T/site.key" \
	--tls --tls-cert-file "$T/srv.pem" --tls-key-file "$T/srv.key" \
	--redis-port "$RPORT" --store-dir "$T/store" --flush-idle 20ms \
	--record-max-age 0 --store-retention 36500d --stats-interval 1s > "$T/logsrv.log" 2>&1 &
LPID=$!
BCN_PIDS+=("$LPID")
bcn_wait_port "$LPORT" "$LPID" || fail "beacon-logsrv did not listen"
grep -q "TLS on" "$T/logsrv.log" || fail "TLS not announced"
bcn_alloc_port TPORT
python3 "$BCN_SRC/tests/integration/tcp_tap.py" "$TPORT" "$LPORT" "$T/wire.bin" "$T/tap.ready" &
RELAY=$!
bcn_wait_port "$TPORT" "$RELAY" || fail "relay did not listen"

replay() { # json out, extra args...
	local out=$1; shift
	"$BEACON" replay --to "127.0.0.1:$TPORT" --key "$T/site.key" --tls \
		"$@" "$T/f.bin" > "$T/$out.json" 2> "$T/$out.err"
}
jget() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }

# 1. the right CA: everything arrives, nothing readable on the wire
replay ok --tls-ca-file "$T/srv-ca.pem" || fail "TLS replay exited $?: $(cat "$T/ok.err")"
[ "$(jget "$T/ok.json" acked_records)" -eq 1000 ] || fail "acked: $(cat "$T/ok.json")"
for _ in $(seq 1 100); do
	[ "$(bcn_redis "$RPORT" LLEN bcn:queue)" = 0 ] && break
	sleep 0.1
done
printf 'store_dir = %s\n' "$T/store" > "$T/q.conf"
n=$("$BEACON" query --config "$T/q.conf" --layer client | wc -l)
[ "$n" -eq 1000 ] || fail "stored $n records, want 1000"
# 20 frames of 50 records: a few kilobytes, however compressed
[ "$(wc -c < "$T/wire.bin")" -gt 4000 ] || fail "the relay saw too little ($(wc -c < "$T/wire.bin") bytes)"
if grep -aq -e BCNF -e cn001 -e cn002 "$T/wire.bin"; then
	fail "frames crossed the wire in clear text"
fi

# 2. a CA the server's certificate is not signed by; 3. another name
replay badca --tls-ca-file "$T/other-ca.pem" --timeout 3s && fail "untrusted server accepted"
grep -q "TLS with .*certificate refused" "$T/badca.err" || fail "no reason: $(cat "$T/badca.err")"
replay badname --tls-ca-file "$T/srv-ca.pem" --tls-server-name other.test --timeout 3s &&
	fail "a server of another name accepted"
grep -q "certificate refused" "$T/badname.err" || fail "no reason: $(cat "$T/badname.err")"
n=$("$BEACON" query --config "$T/q.conf" --layer client | wc -l)
[ "$n" -eq 1000 ] || fail "refused replays stored records ($n)"

# 4. a plain-TCP collector is closed, and counted
out=$("$BCN_BUILD/tests/rawsend" "127.0.0.1:$LPORT" "$T/site.key" cn009 frames "$T/f.bin")
python3 -c "import json,sys; d=json.loads(sys.argv[1]); assert d['handshake']=='failed' and d['closed'], d" "$out" ||
	fail "plain TCP: $out"
sleep 1.5
tf=$(bcn_redis "$RPORT" HGET bcn:stats tls_failures)
[ "${tf:-0}" -ge 1 ] || fail "tls_failures not counted: '$tf'"
kill -0 "$LPID" || fail "the log server died"
echo "logsrv_tls: ok"
