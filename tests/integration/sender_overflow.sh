#!/usr/bin/env bash
# Drop-oldest buffering: with the log server down (bound, refusing
# connections) a sender with a tiny buffer receives 100 frames of equal
# size; it keeps exactly the newest frames that fit and counts the others
# as dropped, frames, records and bytes. When the server comes up, exactly
# the kept frames are delivered, and nothing else.
set -euo pipefail
source "$(dirname "$0")/sender_lib.bash"

N=100
R=10
B=4096
mkkey "$T/site.key"
start_srv a "$T/site.key" --paused
"$SENDTEST" --node cn001 --server "127.0.0.1:${SRV_PORT[a]}" \
	--key-file "$T/site.key" --frames $N --records $R --send-buffer $B \
	--send-first-seq 1 --send-backoff-min 20ms --send-backoff-max 100ms \
	--stats-file "$T/pre.json" --wait-file "$T/go" --flush-timeout 120s \
	> "$T/out.json" 2> "$T/sendtest.err" &
SPID=$!
BG_PIDS+=("$SPID")
wait_until 120 test -s "$T/pre.json" || fail "no statistics before the flush"

p() { jget "$T/pre.json" "$1"; }
[ $(( $(p submitted_bytes) % N )) -eq 0 ] || fail "frames differ in size"
L=$(( $(p submitted_bytes) / N ))
K=$(( B / L ))
[ $K -ge 2 ] && [ $K -lt $N ] || fail "frame size $L does not suit the test"
D=$(( N - K ))
[ "$(p submitted_frames)" -eq $N ] || fail "submitted"
[ "$(p dropped_frames)" -eq $D ] || fail "dropped $(p dropped_frames), expected $D"
[ "$(p dropped_records)" -eq $((D * R)) ] || fail "dropped records"
[ "$(p dropped_bytes)" -eq $((D * L)) ] || fail "dropped bytes"
[ "$(p buffered_frames)" -eq $K ] || fail "buffered $(p buffered_frames), expected $K"
[ "$(p buffered_bytes)" -eq $((K * L)) ] || fail "buffered bytes"
[ "$(p acked_frames)" -eq 0 ] || fail "acked while the server was down"
# the sender must say that the server is down before it comes up
wait_until 120 grep -q "unreachable" "$T/sendtest.err" || fail "outage not reported"

kill -USR2 "${SRV_PID[a]}"              # the server starts listening
touch "$T/go"
wait "$SPID" || fail "sendtest exited with $?"
j() { jget "$T/out.json" "$1"; }
[ "$(j flush)" = ok ] || fail "flush"
[ "$(j acked_frames)" -eq $K ] || fail "acked $(j acked_frames), expected $K"
[ "$(j dropped_frames)" -eq $D ] || fail "dropped changed to $(j dropped_frames)"
[ "$(j buffered_frames)" -eq 0 ] || fail "frames left"
[ "$(j connect_failures)" -ge 1 ] || fail "no failed connection counted"
seq $((D + 1)) $N > "$T/want"
check_stored_once "$T/want" "$T/a.log"
grep -q "buffer full" "$T/sendtest.err" || fail "drops not logged"
echo "sender_overflow: ok ($N frames of $L bytes, $K kept, $D dropped)"
