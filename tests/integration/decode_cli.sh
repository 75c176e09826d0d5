#!/usr/bin/env bash
# `beacon decode` over real frame streams: JSON lines, --summary totals
# against independently computed expectations, and damaged streams.
set -euo pipefail
: "${BCN_BUILD:?}"
BEACON=$BCN_BUILD/cli/beacon
MK=$BCN_BUILD/tests/mkframes
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$MK" "$T/s.bin" "$T/expected" 20 150

# 1. summary equals the generator's own totals
"$BEACON" decode --summary "$T/s.bin" > "$T/summary"
diff -u "$T/expected" "$T/summary" || fail "summary differs from expectation"

# 2. JSON lines: one per record, valid JSON, and the same totals
"$BEACON" decode "$T/s.bin" > "$T/lines"
[ "$(wc -l < "$T/lines")" -eq 3000 ] || fail "expected 3000 records"
python3 - "$T/lines" "$T/expected" <<'PY'
import json, sys
tot = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    if not (r["type"] == "io" and r["layer"] == "client"):
        raise SystemExit("check failed: %r" % ((r),))
    k = (r["job"], r["node"], r["op"])
    e = tot.setdefault(k, [0, 0, 0])
    e[0] += 1; e[1] += r["count"]; e[2] += r["count"] * r["size"]
for line in open(sys.argv[2]):
    x = json.loads(line)
    if not (tot.pop((x["job"], x["node"], x["op"])) == [x["records"], x["ops"], x["bytes"]]):
        raise SystemExit("check failed: %r" % ((x),))
if not (not tot):
    raise SystemExit("check failed: %r" % ((tot),))
PY

# 3. standard input
"$BEACON" decode --summary - < "$T/s.bin" | diff -q - "$T/expected" >/dev/null || fail "stdin"

# 4. damage: garbage between frames, a corrupted frame, a truncated tail
python3 - "$T/s.bin" "$T/bad.bin" <<'PY'
import sys
d = bytearray(open(sys.argv[1], "rb").read())
# find frame boundaries from the headers
offs, o = [], 0
while o < len(d):
    offs.append(o)
    o += 32 + int.from_bytes(d[o+8:o+12], "little")
a, b, c = offs[3], offs[7], offs[12]
d[b + 40] ^= 0xff                      # corrupt frame 7 (checksum)
out = d[:a] + b"GARBAGE" * 100 + d[a:c + 60]   # cut frame 12 short
open(sys.argv[2], "wb").write(out)
PY
set +e
"$BEACON" decode "$T/bad.bin" > "$T/badlines" 2> "$T/err"
rc=$?
set -e
[ $rc -eq 1 ] || fail "damaged stream should exit 1, got $rc"
grep -q "offset 0: bad magic\|bad magic" "$T/err" || fail "garbage not reported: $(cat "$T/err")"
grep -q "checksum mismatch" "$T/err" || fail "corrupt frame not reported"
grep -q "truncated input" "$T/err" || fail "truncated tail not reported"
# frames 0-6, 8-11 survive: 11 frames of 150 records
[ "$(wc -l < "$T/badlines")" -eq 1650 ] || fail "expected 1650 surviving records, got $(wc -l < "$T/badlines")"

# 5. empty input and a missing file
: > "$T/empty"
[ -z "$("$BEACON" decode "$T/empty")" ] || fail "empty stream printed something"
if "$BEACON" decode "$T/nonexistent" 2>/dev/null; then fail "missing file accepted"; fi
"$BEACON" decode --help | grep -- "--summary" > /dev/null || fail "help"
echo "decode_cli: ok"
