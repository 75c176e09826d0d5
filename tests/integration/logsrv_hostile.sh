#!/usr/bin/env bash
# beacon-logsrv under attack by peers without the key (the connection side
# of the hostile-review issue): a DATA header with body_len < node_len after
# a real handshake must not crash it; a flood of bad AUTHs must not flood
# the log; dripping pre-auth connections from 127.0.0.2, more than the
# server's descriptors allow, must be closed at the handshake deadline and
# must not keep a collector on 127.0.0.1 from delivering every frame, nor
# grow the server's memory. Every part runs; the failures are listed.
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_SRC:?}"
. "$BCN_SRC/tests/lib/servers.sh"
T=$(mktemp -d)
trap 'st=$?; bcn_cleanup || st=1; rm -rf "$T"; exit $st' EXIT
FAILED=()
bad() { echo "FAIL: $*" >&2; FAILED+=("$*"); }

RAW=$BCN_BUILD/tests/rawsend
ATK="python3 $BCN_SRC/tests/integration/logsrv_attacker.py"
NOFILE=256              # the server's descriptors: the slowloris passes it
DRIP=300                # dripping connections from 127.0.0.2
python3 -c 'import os; print(os.urandom(32).hex())' > "$T/key"
chmod 600 "$T/key"
python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.2", 0))' 2>/dev/null ||
	{ echo "logsrv_hostile: skipped (no 127.0.0.2)"; exit 77; }
bcn_alloc_port RPORT
bcn_start_redis "$T/redis" "$RPORT" || { echo "redis did not listen" >&2; exit 1; }
bcn_alloc_port LPORT
A=127.0.0.1:$LPORT
for n in cn007 cn008 cn009; do "$BCN_BUILD/tests/mkframes" "$T/$n.bin" "$T/expected" 40 250 "$n"; done

# mkframes writes records of fixed past days: the record time window and
# expiry are turned off, as in tests/lib/delivery.sh
start_logsrv() { # log file; a low open-file limit (hard too: it raises soft)
	# (in a sanitizer build: no quarantine, so VmHWM is the server's own)
	(ulimit -n "$NOFILE" &&
	 ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0" exec "$BCN_BUILD/logsrv/beacon-logsrv" --listen "$A" --auth-key-file "$T/key" \
		--redis-port "$RPORT" --store-dir "$T/store" --flush-idle 20ms \
		--record-max-age 0 --store-retention 36500d \
		--handshake-timeout 2s --stats-interval 60s --log-level info) > "$1" 2>&1 &
	LPID=$!
	BCN_PIDS+=("$LPID")
	bcn_wait_port "$LPORT" "$LPID" || { echo "beacon-logsrv did not listen" >&2; exit 1; }
}
alive_or_restart() { # part
	kill -0 "$LPID" 2>/dev/null && return 0
	bad "$1: the log server died ($(grep -m1 -E 'ERROR|SUMMARY|free\(\)' "$T/logsrv.$R.log" || true))"
	R=$((R + 1))
	start_logsrv "$T/logsrv.$R.log"
}
field() { python3 -c "import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])" "$1" "$2"; }
hwm_kb() { awk '/^VmHWM/ { print $2 }' "/proc/$LPID/status"; }
R=0
start_logsrv "$T/logsrv.$R.log"

# 1. the 32-byte frame: closed as a protocol error, the server goes on
out=$("$RAW" "$A" "$T/key" cn007 shortbody)
[ "$(field "$out" handshake)" = ok ] || bad "shortbody: no handshake: $out"
[ "$(field "$out" closed)" = True ] || bad "shortbody: connection not closed: $out"
sleep 0.2
alive_or_restart shortbody
out=$("$RAW" "$A" "$T/key" cn007 frames "$T/cn007.bin")
[ "$(field "$out" stored)" = 40 ] || bad "frames after shortbody: $out"

# 2. 2000 bad AUTHs: a few rate-limited lines, not two per attempt
before=$(wc -l < "$T/logsrv.$R.log")
out=$($ATK badauth 127.0.0.1 "$LPORT" 127.0.0.2 2000)
[ "$(field "$out" challenged)" = 2000 ] || bad "badauth: not every HELLO was answered: $out"
alive_or_restart badauth
lines=$(( $(wc -l < "$T/logsrv.$R.log") - before ))
[ "$lines" -le 100 ] || bad "badauth: 2000 bad AUTHs wrote $lines log lines"

# 3. slowloris from 127.0.0.2 while a collector on 127.0.0.1 delivers
hwm0=$(hwm_kb)
$ATK slowloris 127.0.0.1 "$LPORT" 127.0.0.2 "$DRIP" "$T/ready" 60 > "$T/loris.json" &
APID=$!
for _ in $(seq 1 300); do [ -s "$T/ready" ] && break; sleep 0.1; done
[ -s "$T/ready" ] || bad "slowloris: the attacker did not get going"
out=$("$RAW" "$A" "$T/key" cn008 frames "$T/cn008.bin")
[ "$(field "$out" handshake)" = ok ] || bad "collector during slowloris: no handshake: $out"
[ "$(field "$out" stored)" = 40 ] || bad "collector during slowloris: $out"
hwm1=$(hwm_kb)
wait "$APID" || bad "slowloris: the attacker failed"
loris=$(cat "$T/loris.json")
[ "$(field "$loris" opened)" -ge 200 ] || bad "slowloris: too few connections: $loris"
[ "$(field "$loris" open)" = 0 ] || bad "slowloris: dripping connections outlived the handshake deadline: $loris"
alive_or_restart slowloris
# generous: the pre-auth buffers are 4 KiB; 64 KiB each would pass it
[ $((hwm1 - hwm0)) -le 8192 ] || bad "slowloris: VmHWM grew from $hwm0 to $hwm1 kB"
# and afterwards a collector still gets in
out=$("$RAW" "$A" "$T/key" cn009 frames "$T/cn009.bin")
[ "$(field "$out" stored)" = 40 ] || bad "collector after slowloris: $out"

kill -TERM "$LPID"
wait "$LPID" || bad "log server exited non-zero on SIGTERM"
bcn_check_sanitizer_logs "$T"/logsrv.*.log || bad "sanitizer reports"
if [ "${#FAILED[@]}" -gt 0 ]; then
	tail -n 20 "$T/logsrv.$R.log" >&2
	printf 'logsrv_hostile: %d failures\n' "${#FAILED[@]}" >&2
	exit 1
fi
echo "logsrv_hostile: ok (slowloris $loris; VmHWM $hwm0 -> $hwm1 kB; badauth $lines lines)"
