#!/usr/bin/env bash
# `beacon replay` against real servers (tests/tools/acksrv): frames keep
# their node and sequence number, so a second replay stores nothing new;
# --node filters; --shardmap sends each node to its shard; a damaged
# input and an unreachable server make it exit 1; standard input works.
set -euo pipefail
source "$(dirname "$0")/sender_lib.bash"

mkkey "$T/site.key"
K=$T/site.key
"$BCN_BUILD/tests/mkframes" "$T/f.bin" "$T/exp" 20 50     # cn001, cn002: 1..10
# the (node, seq) pairs in the file, read from the headers
python3 - "$T/f.bin" > "$T/pairs" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
o = 0
while o < len(d):
    body, = struct.unpack_from("<I", d, o + 8)
    seq, = struct.unpack_from("<Q", d, o + 16)
    nl = d[o + 7]
    print(d[o + 32:o + 32 + nl].decode(), seq)
    o += 32 + body
PY
[ "$(wc -l < "$T/pairs")" -eq 20 ] || fail "mkframes output"
stored_pairs() { grep ' stored$' "$T/$1.log" | cut -d' ' -f1,2 | sort; }

# 1. replay, then replay again: duplicates only
start_srv a "$K"
EP=127.0.0.1:${SRV_PORT[a]}
"$BEACON" replay --to "$EP" --key "$K" "$T/f.bin" > "$T/r1.json" 2> "$T/r1.err" ||
	fail "replay exited with $?"
j() { jget "$T/r1.json" "$1"; }
[ "$(j complete)" = true ] || fail "not complete"
[ "$(j frames_read)" -eq 20 ] && [ "$(j acked_frames)" -eq 20 ] || fail "acked"
[ "$(j acked_records)" -eq 1000 ] || fail "acked records"
[ "$(j nodes)" -eq 2 ] && [ "$(j duplicates)" -eq 0 ] || fail "nodes, duplicates"
[ "$(stored_pairs a)" = "$(sort "$T/pairs")" ] || fail "stored pairs differ from the file's"
"$BEACON" replay --to "$EP" --key "$K" "$T/f.bin" > "$T/r2.json" 2> "$T/r2.err" ||
	fail "second replay exited with $?"
[ "$(jget "$T/r2.json" duplicates)" -eq 20 ] || fail "second replay: duplicates"
[ "$(stored a)" -eq 20 ] || fail "second replay stored frames again"
# standard input
"$BEACON" replay --to "$EP" --key "$K" - < "$T/f.bin" > "$T/r3.json" 2> "$T/r3.err" ||
	fail "replay from stdin exited with $?"
[ "$(jget "$T/r3.json" acked_frames)" -eq 20 ] || fail "stdin"

# 2. --node
start_srv b "$K"
"$BEACON" replay --to "127.0.0.1:${SRV_PORT[b]}" --key "$K" --node cn002 \
	"$T/f.bin" > "$T/r4.json" 2> "$T/r4.err" || fail "--node exited with $?"
[ "$(jget "$T/r4.json" skipped_frames)" -eq 10 ] || fail "--node skipped"
[ "$(stored_pairs b)" = "$(grep '^cn002 ' "$T/pairs" | sort)" ] || fail "--node stored"

# 3. --shardmap: cn001 to c, the rest (default) to d
start_srv c "$K"
start_srv d "$K"
cat > "$T/shardmap" <<MAP
shard cn001 primary=127.0.0.1:${SRV_PORT[c]}
default primary=127.0.0.1:${SRV_PORT[d]}
MAP
"$BEACON" replay --shardmap "$T/shardmap" --key "$K" "$T/f.bin" \
	> "$T/r5.json" 2> "$T/r5.err" || fail "--shardmap exited with $?"
[ "$(stored_pairs c)" = "$(grep '^cn001 ' "$T/pairs" | sort)" ] || fail "shard c"
[ "$(stored_pairs d)" = "$(grep '^cn002 ' "$T/pairs" | sort)" ] || fail "shard d"

# 4. a damaged input: the good frames go, the exit status says it
python3 - "$T/f.bin" "$T/bad.bin" <<'PY'
import sys
d = open(sys.argv[1], "rb").read()
body = int.from_bytes(d[8:12], "little")
open(sys.argv[2], "wb").write(d[:32 + body] + b"GARBAGE" * 10 + d[32 + body:])
PY
set +e
"$BEACON" replay --to "$EP" --key "$K" "$T/bad.bin" > "$T/r6.json" 2> "$T/r6.err"
rc=$?
set -e
[ $rc -eq 1 ] || fail "damaged input exited $rc"
[ "$(jget "$T/r6.json" bad_frames)" -ge 1 ] || fail "bad frames not counted"
[ "$(jget "$T/r6.json" acked_frames)" -eq 20 ] || fail "good frames of a damaged input"

# 5. nobody acknowledges: exit 1 after the timeout, frames counted
start_srv e "$K" --paused
set +e
"$BEACON" replay --to "127.0.0.1:${SRV_PORT[e]}" --key "$K" --timeout 1s \
	"$T/f.bin" > "$T/r7.json" 2> "$T/r7.err"
rc=$?
set -e
[ $rc -eq 1 ] || fail "unreachable server: exit $rc"
[ "$(jget "$T/r7.json" buffered_frames)" -eq 20 ] || fail "unacknowledged frames not counted"
grep -q "20 frames not acknowledged" "$T/r7.err" || fail "no message: $(cat "$T/r7.err")"

# 6. usage
"$BEACON" replay --help | grep -- "--shardmap" > /dev/null || fail "help"
set +e
"$BEACON" replay "$T/f.bin" > /dev/null 2>&1; rc1=$?
"$BEACON" replay --to "$EP" --shardmap "$T/shardmap" "$T/f.bin" > /dev/null 2>&1; rc2=$?
"$BEACON" replay --to nohost --key "$K" "$T/f.bin" > /dev/null 2> "$T/r8.err"; rc3=$?
set -e
[ $rc1 -eq 2 ] && [ $rc2 -eq 2 ] || fail "usage errors: $rc1 $rc2"
[ $rc3 -eq 1 ] && grep -q "not HOST:PORT" "$T/r8.err" || fail "bad endpoint: $rc3"
echo "sender_replay: ok"
