#!/usr/bin/env bash
# Per-node keys and roles at a real beacon-logsrv (docs/protocol.md "Keys",
# docs/logsrv.md "Roles"): a collector holding only its node key (beacon
# keygen --node) delivers; that key cannot speak for another node; with a
# role map, a compute node's io records are stored and the same node's
# frames are rejected once the map makes it an OSS (and nothing of them is
# stored), counted in role_rejected.
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_SRC:?}"
. "$BCN_SRC/tests/lib/servers.sh"
T=$(mktemp -d)
trap 'st=$?; bcn_cleanup || st=1; rm -rf "$T"; exit $st' EXIT
fail() { echo "FAIL: $*" >&2; for f in "$T"/logsrv*.log; do [ -f "$f" ] && tail -n 20 "$f" >&2; done; exit 1; }

RAW=$BCN_BUILD/tests/rawsend
BEACON=$BCN_BUILD/cli/beacon
"$BEACON" keygen "$T/site.key"
"$BEACON" keygen --node cn007 --site-key "$T/site.key" "$T/cn007.key"
"$BEACON" keygen --node cn008 --site-key "$T/site.key" "$T/cn008.key"
head -1 "$T/cn007.key" | grep -qx "node cn007" || fail "node key file header"
if "$BEACON" keygen --node cn009 --site-key "$T/cn007.key" "$T/x.key" 2>/dev/null; then
	fail "a node key derived from a node key"
fi
"$BCN_BUILD/tests/mkframes" "$T/f7.bin" "$T/e7" 10 100 cn007
"$BCN_BUILD/tests/mkframes" "$T/f8.bin" "$T/e8" 10 100 cn008
bcn_alloc_port RPORT
bcn_start_redis "$T/redis" "$RPORT" || fail "redis did not listen"

start_logsrv() { # name, extra args...
	local name=$1; shift
	bcn_alloc_port LPORT
	"$BCN_BUILD/logsrv/beacon-logsrv" --listen "127.0.0.1:$LPORT" \
		--auth-key-file "$T/site.key" --redis-port "$RPORT" \
		--redis-prefix "$name" --store-dir "$T/store-$name" --flush-idle 20ms \
		--record-max-age 0 --store-retention 36500d --stats-interval 1s \
		"$@" > "$T/logsrv-$name.log" 2>&1 &
	LPID=$!
	BCN_PIDS+=("$LPID")
	bcn_wait_port "$LPORT" "$LPID" || fail "beacon-logsrv $name did not listen"
	A=127.0.0.1:$LPORT
}
field() { python3 -c "import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])" "$1" "$2"; }
count() { # store dir, node
	printf 'store_dir = %s\n' "$1" > "$T/q.conf"
	"$BEACON" query --config "$T/q.conf" --layer client --entity "$2" | wc -l
}
wait_flushed() { # prefix
	for _ in $(seq 1 100); do
		[ "$(bcn_redis "$RPORT" LLEN "$1:queue")" = 0 ] && return 0
		sleep 0.1
	done
	fail "queue $1 not flushed"
}

# 1. node keys, no role map
start_logsrv keys
out=$("$RAW" "$A" "$T/cn007.key" cn007 frames "$T/f7.bin")
[ "$(field "$out" stored)" = 10 ] || fail "cn007 with its node key: $out"
out=$("$RAW" "$A" "$T/cn007.key" cn008 frames "$T/f8.bin")
[ "$(field "$out" handshake)" = failed ] || fail "cn007's key spoke for cn008: $out"
# the key relabelled as cn008's: the server derives the real one and refuses
sed 's/^node cn007$/node cn008/' "$T/cn007.key" > "$T/forged.key"
chmod 600 "$T/forged.key"
out=$("$RAW" "$A" "$T/forged.key" cn008 frames "$T/f8.bin")
[ "$(field "$out" handshake)" = failed ] || fail "forged key accepted: $out"
wait_flushed keys
[ "$(count "$T/store-keys" cn007)" -eq 1000 ] || fail "cn007 records not stored"
[ "$(count "$T/store-keys" cn008)" -eq 0 ] || fail "cn008 records stored"
bcn_stop "$LPID" || fail "logsrv keys exit status"

# 2. roles: cn007 compute (io records allowed), cn008 oss (io refused)
printf '# roles\ncn[001-007] compute\ncn008 oss\n' > "$T/roles"
start_logsrv roles --role-map "$T/roles" --role-default none
out=$("$RAW" "$A" "$T/cn007.key" cn007 frames "$T/f7.bin")
[ "$(field "$out" stored)" = 10 ] || fail "compute node's io records: $out"
out=$("$RAW" "$A" "$T/cn008.key" cn008 frames "$T/f8.bin")
[ "$(field "$out" rejected)" = 10 ] && [ "$(field "$out" stored)" = 0 ] ||
	fail "oss node's io records not rejected: $out"
wait_flushed roles
[ "$(count "$T/store-roles" cn007)" -eq 1000 ] || fail "cn007 records not stored"
[ "$(count "$T/store-roles" cn008)" -eq 0 ] || fail "cn008's rejected records stored"
sleep 1.5
rr=$(bcn_redis "$RPORT" HGET roles:stats role_rejected)
[ "${rr:-0}" -eq 10 ] || fail "role_rejected is '$rr', want 10"
grep -q "role map .*: 8 nodes, others none" "$T/logsrv-roles.log" || fail "role map not announced"
bcn_stop "$LPID" || fail "logsrv roles exit status"

# 3. a bad role map stops the server with the line and the reason
printf 'cn1 compute\ncn2 wizard\n' > "$T/badroles"
if "$BCN_BUILD/logsrv/beacon-logsrv" --listen 127.0.0.1:1 --auth-key-file "$T/site.key" \
	--redis-port "$RPORT" --role-map "$T/badroles" > "$T/bad.log" 2>&1; then
	fail "started with a bad role map"
fi
grep -q "line 2: unknown role" "$T/bad.log" || fail "no reason for the bad role map: $(cat "$T/bad.log")"
echo "logsrv_roles: ok"
