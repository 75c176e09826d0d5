#!/usr/bin/env bash
# The sender against a log server that dies: N numbered frames are
# streamed while the server (tests/tools/acksrv) is killed with SIGKILL and
# restarted on the same port four times, and its connections are cut once
# with SIGUSR1. In the end every frame must be stored exactly once (the
# server's log survives the kills, and resends after a reconnect are
# answered as duplicates), and the sender's counters must balance:
# submitted = acked, nothing dropped, nothing left in the buffer.
set -euo pipefail
source "$(dirname "$0")/sender_lib.bash"

N=2000
mkkey "$T/site.key"
# delayed ACKs keep frames in flight when the server dies
start_srv a "$T/site.key" --ack-delay 50
"$SENDTEST" --node cn001 --server "127.0.0.1:${SRV_PORT[a]}" \
	--key-file "$T/site.key" --frames $N --records 20 --pace 2ms \
	--send-first-seq 1 --send-backoff-min 20ms --send-backoff-max 200ms \
	--wait-file "$T/go" --flush-timeout 120s \
	> "$T/out.json" 2> "$T/sendtest.err" &
SPID=$!
BG_PIDS+=("$SPID")

kills=0
for th in 300 700 1100 1500; do
	wait_until 120 stored_at_least a $th || fail "server stuck below $th frames"
	stop_srv a KILL
	kills=$((kills + 1))
	sleep 0.2
	start_srv a "$T/site.key" --ack-delay 50
	if [ $th -eq 700 ]; then
		wait_until 120 stored_at_least a 900 || fail "no progress after restart"
		kill -USR1 "${SRV_PID[a]}"      # cut the connection, keep running
	fi
done

# frames past the first kill need a new session: reconnects >= 1
wait_until 120 stored_at_least a $N || fail "not every frame arrived"
touch "$T/go"
wait "$SPID" || fail "sendtest exited with $?"
[ "$(jget "$T/out.json" flush)" = ok ] || fail "flush did not complete"
[ "$(jget "$T/out.json" submitted_frames)" -eq $N ] || fail "submitted"
[ "$(jget "$T/out.json" acked_frames)" -eq $N ] || fail "acked $(jget "$T/out.json" acked_frames) of $N"
[ "$(jget "$T/out.json" dropped_frames)" -eq 0 ] || fail "dropped frames"
[ "$(jget "$T/out.json" buffered_frames)" -eq 0 ] || fail "frames left"
[ "$(jget "$T/out.json" acked_records)" -eq $((N * 20)) ] || fail "acked records"
[ "$(jget "$T/out.json" reconnects)" -ge 1 ] || fail "no reconnection counted"
dups=$(grep -c ' duplicate$' "$T/a.log" || true)
[ "$(jget "$T/out.json" duplicates)" -le "$dups" ] || fail "duplicates"
seq 1 $N > "$T/want"
check_stored_once "$T/want" "$T/a.log"
grep -q "unreachable\|lost" "$T/sendtest.err" || fail "the sender did not report the outage"
echo "sender_restart: ok ($kills kills, $(jget "$T/out.json" reconnects) reconnects," \
	"$(jget "$T/out.json" resent) resent, $dups duplicates)"
