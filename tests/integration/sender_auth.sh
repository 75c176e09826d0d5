#!/usr/bin/env bash
# Authentication of the sender against a real server (tests/tools/acksrv):
# with the wrong key nothing is accepted and the sender says why; key
# files readable by others or malformed are refused with a clear message;
# `beacon keygen` writes keys that work, with mode 0600, and does not
# overwrite a key by accident.
set -euo pipefail
source "$(dirname "$0")/sender_lib.bash"

mkkey "$T/server.key"
mkkey "$T/other.key"
start_srv a "$T/server.key"
EP=127.0.0.1:${SRV_PORT[a]}

# 1. wrong key: the server closes after AUTH, the sender keeps the frames
set +e
"$SENDTEST" --node cn001 --server "$EP" --key-file "$T/other.key" \
	--frames 5 --send-first-seq 1 --send-backoff-min 20ms \
	--send-backoff-max 100ms --flush-timeout 2s \
	> "$T/out1.json" 2> "$T/sendtest1.err"
rc=$?
set -e
[ $rc -eq 3 ] || fail "wrong key: sendtest should time out flushing (3), got $rc"
j() { jget "$T/out1.json" "$1"; }
[ "$(j acked_frames)" -eq 0 ] || fail "frames acknowledged with a wrong key"
[ "$(j buffered_frames)" -eq 5 ] || fail "frames lost with a wrong key"
[ "$(j auth_failures)" -ge 1 ] || fail "no authentication failure counted"
[ "$(j connects)" -eq 0 ] || fail "a session was established"
[ "$(j last_error)" = "Key was rejected by service" ] || fail "last_error: $(j last_error)"
grep -q "does not accept our key for node 'cn001'" "$T/sendtest1.err" ||
	fail "the sender did not say why"
[ "$(stored a)" -eq 0 ] || fail "the server stored frames"
grep -q "authentication failed" "$T/a.err" || fail "the server did not log the failure"

# the same through beacon replay: exit status 1, nothing acknowledged
"$BCN_BUILD/tests/mkframes" "$T/f.bin" "$T/exp" 4 10
set +e
"$BEACON" replay --to "$EP" --key "$T/other.key" --timeout 2s "$T/f.bin" \
	> "$T/replay.json" 2> "$T/replay.err"
rc=$?
set -e
[ $rc -eq 1 ] || fail "replay with a wrong key exited $rc"
[ "$(jget "$T/replay.json" complete)" = false ] || fail "replay complete"
[ "$(jget "$T/replay.json" acked_frames)" -eq 0 ] || fail "replay acked"
grep -q "authentication with log server .* failed" "$T/replay.err" || fail "replay did not say why"
[ "$(stored a)" -eq 0 ] || fail "the server stored replayed frames"

# 2. key files the sender refuses
cp "$T/server.key" "$T/open.key"
chmod 644 "$T/open.key"
if "$SENDTEST" --node cn001 --server "$EP" --key-file "$T/open.key" \
	--frames 1 > /dev/null 2> "$T/sendtest2.err"; then
	fail "a world-readable key was accepted"
fi
grep -q "chmod 600" "$T/sendtest2.err" || fail "no advice for an open key: $(cat "$T/sendtest2.err")"
head -c 16 /dev/urandom | od -An -tx1 -v | tr -d ' \n' > "$T/short.key"
chmod 600 "$T/short.key"
if "$BEACON" replay --to "$EP" --key "$T/short.key" "$T/f.bin" \
	> /dev/null 2> "$T/replay2.err"; then
	fail "a short key was accepted"
fi
grep -q "too short" "$T/replay2.err" || fail "short key: $(cat "$T/replay2.err")"

# 3. beacon keygen
"$BEACON" keygen "$T/gen.key"
[ "$(stat -c %a "$T/gen.key")" = 600 ] || fail "keygen mode $(stat -c %a "$T/gen.key")"
grep -Eq '^[0-9a-f]{64}$' "$T/gen.key" || fail "keygen format"
[ "$(wc -c < "$T/gen.key")" -eq 65 ] || fail "keygen size"
cp "$T/gen.key" "$T/gen.before"
if "$BEACON" keygen "$T/gen.key" 2> "$T/keygen.err"; then
	fail "keygen overwrote a key"
fi
grep -q -- "--force" "$T/keygen.err" || fail "keygen advice"
cmp -s "$T/gen.key" "$T/gen.before" || fail "keygen changed the existing key"
chmod 644 "$T/gen.key"
"$BEACON" keygen --force --bytes 64 "$T/gen.key"
[ "$(stat -c %a "$T/gen.key")" = 600 ] || fail "keygen --force mode"
grep -Eq '^[0-9a-f]{128}$' "$T/gen.key" || fail "keygen --bytes 64"
if "$BEACON" keygen --bytes 8 "$T/x.key" 2>/dev/null; then fail "keygen --bytes 8"; fi
stop_srv a
rm -f "$T/a.log"
start_srv a "$T/gen.key"
"$SENDTEST" --node cn001 --server "127.0.0.1:${SRV_PORT[a]}" \
	--key-file "$T/gen.key" --frames 10 --send-first-seq 1 \
	--flush-timeout 60s > "$T/out3.json" 2> "$T/sendtest3.err" ||
	fail "generated key: sendtest exited with $?"
[ "$(jget "$T/out3.json" acked_frames)" -eq 10 ] || fail "generated key: acked"
echo "sender_auth: ok"
