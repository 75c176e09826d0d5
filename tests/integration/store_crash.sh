#!/usr/bin/env bash
# Crash safety of the embedded store (schema 3, docs/store.md): a writer
# (tests/tools/store_crasher) appends batches, printing each one append
# confirmed, and compacts every 5th batch (appends compact too, a chunk
# closing every 12 batches); it is killed with SIGKILL at random moments,
# 25 times, and started again where it was (the batch in flight appended
# again). Then every confirmed record must be in the store exactly once,
# and nothing else but the records of the batch in flight at the end.
# Last, a reader in another process scans while a writer appends and
# compacts: no scan may see a record twice or lose one an earlier scan
# saw (a scan reads one state of a day file).
set -euo pipefail
: "${BCN_BUILD:?}"
TOOL=$BCN_BUILD/tests/store_crasher
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

next=0 confirmed=-1 kills=0
for round in $(seq 1 25); do
	"$TOOL" write "$T/store" "$next" > "$T/out" 2> "$T/err" &
	pid=$!
	# a random moment: 0 to 0.6 s after the start (the first open too)
	sleep "0.$(( RANDOM % 6 ))$(( RANDOM % 10 ))"
	kill -9 "$pid" 2>/dev/null && kills=$((kills + 1))
	wait "$pid" 2>/dev/null || true
	[ -s "$T/err" ] && { cat "$T/err" >&2; fail "writer error in round $round"; }
	last=$(awk '$1 == "ok" { n = $2 } END { if (n != "") print n }' "$T/out")
	if [ -n "$last" ]; then
		[ "$last" -ge "$confirmed" ] || fail "confirmed went back: $last < $confirmed"
		confirmed=$last
		next=$((last + 1))
	fi
done
[ "$kills" -ge 20 ] || fail "only $kills kills landed"
[ "$confirmed" -ge 10 ] || fail "only $confirmed batches confirmed"
echo "$kills kills, batches 0..$confirmed confirmed"
"$TOOL" check "$T/store" "$confirmed" || fail "check"
# the store works on: one more batch, a flush, and the same check
"$TOOL" write "$T/store" "$next" > "$T/out" 2> "$T/err" &
pid=$!
for _ in $(seq 1 100); do grep -q "ok $((next + 5))" "$T/out" 2>/dev/null && break; sleep 0.1; done
kill -9 "$pid"; wait "$pid" 2>/dev/null || true
last=$(awk '$1 == "ok" { n = $2 } END { print n }' "$T/out")
[ "$last" -gt "$confirmed" ] || fail "no progress after the crashes"
"$TOOL" check "$T/store" "$last" || fail "check after more batches"
# a reader beside a writer that appends and compacts
"$TOOL" write "$T/store" "$((last + 1))" "$((last + 300))" > "$T/out" 2> "$T/err" &
pid=$!
"$TOOL" read "$T/store" 60 "$((last + 1))" > "$T/rout" || { kill -9 "$pid"; fail "reader"; }
kill -9 "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true
[ -s "$T/err" ] && { cat "$T/err" >&2; fail "writer error beside the reader"; }
after=$(awk '$1 == "ok" { n = $2 } END { print n }' "$T/out")
[ "${after:-0}" -gt "$last" ] || fail "the writer made no progress beside the reader"
cat "$T/rout"
echo "ok"
