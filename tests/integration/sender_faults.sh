#!/usr/bin/env bash
# The sender against a misbehaving log server (tests/tools/acksrv): it
# rejects every 7th sequence number as malformed, closes the connection on
# every 101st DATA frame without acknowledging it, and delays its ACKs.
# Rejected frames must be counted as dropped (not resent), cut-off frames
# resent until acknowledged, every other frame stored exactly once, and
# the counters must balance: submitted = acked + dropped.
set -euo pipefail
source "$(dirname "$0")/sender_lib.bash"

N=600
mkkey "$T/site.key"
start_srv a "$T/site.key" --reject-every 7 --drop-every 101 --ack-delay 5
"$SENDTEST" --node cn001 --server "127.0.0.1:${SRV_PORT[a]}" \
	--key-file "$T/site.key" --frames $N --records 3 --send-window 16 \
	--send-first-seq 1 --send-backoff-min 10ms --send-backoff-max 50ms \
	--flush-timeout 120s > "$T/out.json" 2> "$T/sendtest.err" \
	|| fail "sendtest exited with $?"

rej=$((N / 7))
j() { jget "$T/out.json" "$1"; }
[ "$(j flush)" = ok ] || fail "flush did not complete"
[ "$(j submitted_frames)" -eq $N ] || fail "submitted"
[ "$(j rejected)" -eq $rej ] || fail "rejected $(j rejected), expected $rej"
[ "$(j dropped_frames)" -eq $rej ] || fail "dropped $(j dropped_frames), expected $rej"
[ "$(j dropped_records)" -eq $((rej * 3)) ] || fail "dropped records"
[ "$(j acked_frames)" -eq $((N - rej)) ] || fail "acked $(j acked_frames)"
[ "$(j buffered_frames)" -eq 0 ] || fail "frames left"
[ "$(j submitted_bytes)" -eq $(( $(j acked_bytes) + $(j dropped_bytes) )) ] ||
	fail "bytes do not balance"
# the server cut the connection at least N / 101 times, each time with an
# unacknowledged frame, which had to be sent again
[ "$(j reconnects)" -ge $((N / 101)) ] || fail "reconnects $(j reconnects)"
[ "$(j resent)" -ge $((N / 101)) ] || fail "resent $(j resent)"
seq 1 $N | awk '$1 % 7 != 0' > "$T/want"
check_stored_once "$T/want" "$T/a.log"
grep -q "rejected frame 7 as malformed" "$T/sendtest.err" || fail "rejection not logged"
echo "sender_faults: ok ($(j reconnects) reconnects, $(j resent) resent, $(j rejected) rejected)"
