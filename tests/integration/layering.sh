#!/usr/bin/env bash
# The layering of the libraries (cmake/BeaconLayers.cmake) is enforced by
# the compiler: a source of a lower library that includes a header of a
# higher one must not compile. For each pair below, the source's own
# compile command (compile_commands.json) is run on a one-line file that
# includes the higher header, and must fail for want of that header; the
# same command on a file that includes a header of the source's own layer
# must succeed (so a failure is the include path's, not the command's).
set -euo pipefail
: "${BCN_BUILD:?}"
: "${BCN_SRC:?}"
DB=$BCN_BUILD/compile_commands.json
[ -f "$DB" ] || { echo "FAIL: $DB missing" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# source of the lower library | a header of its own layer | a higher header
PAIRS='
common/log.c|common/buf.h|proto/record.h
common/config.c|common/error.h|delivery/sender.h
proto/record.c|proto/frame.h|delivery/shardmap.h
proto/auth.c|common/buf.h|collectors/runtime/collector.h
delivery/sender.c|proto/auth.h|collectors/runtime/counter.h
delivery/shardmap.c|common/hostlist.h|store/store.h
collectors/runtime/collector.c|delivery/sender.h|collectors/switch/swd.h
compress/iorun.c|compress/iorun.h|proto/record.h
store/store.c|proto/record.h|logsrv/logsrv.h
store/store.c|proto/record.h|collectors/runtime/collector.h
'

# prints the compile command of source $1 as a JSON list of arguments
command_of() {
	python3 - "$DB" "$BCN_SRC/$1" <<'PY'
import json, os, shlex, sys
db, src = sys.argv[1], os.path.realpath(sys.argv[2])
for e in json.load(open(db)):
    if os.path.realpath(os.path.join(e["directory"], e["file"])) == src:
        args = e.get("arguments") or shlex.split(e["command"])
        print(json.dumps({"dir": e["directory"], "args": args}))
        sys.exit(0)
sys.exit("no compile command for " + src)
PY
}

# compiles a file including header $2 with the command of source $1;
# prints the compiler's messages to $3
try_include() {
	local src=$1 header=$2 log=$3 cmd
	cmd=$(command_of "$src")
	printf '#include "%s"\n' "$header" > "$T/probe.c"
	python3 - "$cmd" "$BCN_SRC/$src" "$T/probe.c" > "$log" 2>&1 <<'PY'
import json, os, subprocess, sys
c = json.loads(sys.argv[1])
src, probe = os.path.realpath(sys.argv[2]), sys.argv[3]
out, args, skip = [], c["args"], False
for a in args:
    if skip:
        skip = False
        continue
    if a == "-o":
        skip = True
        continue
    if a == "-c":
        continue
    if os.path.realpath(os.path.join(c["dir"], a)) == src:
        a = probe
    out.append(a)
out += ["-fsyntax-only"]
sys.exit(subprocess.run(out, cwd=c["dir"]).returncode)
PY
}

n=0
while IFS='|' read -r src own higher; do
	[ -n "$src" ] || continue
	if ! try_include "$src" "$own" "$T/own.log"; then
		cat "$T/own.log" >&2
		echo "FAIL: $src cannot include its own layer's $own" >&2
		exit 1
	fi
	if try_include "$src" "$higher" "$T/higher.log"; then
		echo "FAIL: $src can include $higher from a higher layer" >&2
		exit 1
	fi
	if ! grep -q "${higher}: No such file" "$T/higher.log"; then
		cat "$T/higher.log" >&2
		echo "FAIL: $src including $higher failed for another reason" >&2
		exit 1
	fi
	n=$((n + 1))
done <<< "$PAIRS"
[ "$n" -ge 10 ] || { echo "FAIL: only $n pairs checked" >&2; exit 1; }
echo "layering: ok ($n lower-to-higher includes refused)"
