#!/usr/bin/env bash
# The anomaly alert e-mails (docs/alerts.md) against a real SMTP server
# on loopback (Debian's python3-aiosmtpd, writing a maildir) and a
# private MariaDB server, driven by tests/tools/alert_drive at fake
# times: one message per new anomaly with the right headers and body,
# read back with Python's mailbox and email modules; no second message
# for the same anomaly or its growing window; a reminder after
# alert_remind_after and none for an acknowledged anomaly; with the
# server down the alerts stay queued with their error and attempts and
# arrive exactly once after it is back; the hourly limit; a hostile
# component adds no header; lines starting with "." arrive intact
# (libcurl dot-stuffs); STARTTLS with a self-signed certificate
# (smtp_tls = required, smtp_ca_file), and refusals without it.
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_SRC:?}"
. "$BCN_SRC/tests/lib/servers.sh"
T=$(mktemp -d)
SMTP_PIDS=()
# aiosmtpd ends by SIGTERM (status 143): stopped here, not by bcn_cleanup
stop_smtp() { # pid
	kill -TERM "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
	bcn_forget "$1"
}
trap 'st=$?; for p in "${SMTP_PIDS[@]+"${SMTP_PIDS[@]}"}"; do stop_smtp "$p"; done; bcn_cleanup || st=1; rm -rf "$T"; exit $st' EXIT
fail() { echo "FAIL: $*" >&2; [ -f "$T/drive.err" ] && tail -5 "$T/drive.err" >&2; exit 1; }
export PATH=$PATH:/usr/sbin
PY=/usr/bin/python3
command -v mariadbd >/dev/null || fail "mariadbd missing (deploy/install-deps)"
if ! "$PY" -c 'import aiosmtpd' 2>/dev/null; then
	echo "SKIP: python3-aiosmtpd is not installed (deploy/install-deps)" >&2
	exit 77
fi
DRIVE=$BCN_BUILD/tests/alert_drive
[ -x "$DRIVE" ] || fail "$DRIVE not built"
skipped=0

bcn_alloc_port MPORT
bcn_alloc_port SPORT
bcn_alloc_port TPORT
bcn_start_mariadb "$T/db" "$MPORT" || fail "mariadb did not start"
sql() { bcn_mariadb "$T/db" -N -e "$1"; }

# start_smtp PORT MAILDIR [aiosmtpd options]: sets SMTP_PID
start_smtp() {
	local port=$1 dir=$2
	shift 2
	"$PY" -m aiosmtpd -n -l "127.0.0.1:$port" "$@" \
		-c aiosmtpd.handlers.Mailbox "$dir" 2>> "$T/smtp.err" &
	SMTP_PID=$!
	BCN_PIDS+=("$SMTP_PID")
	SMTP_PIDS+=("$SMTP_PID")
	bcn_wait_port "$port" "$SMTP_PID" || fail "aiosmtpd did not start: $(cat "$T/smtp.err")"
}
# aiosmtpd makes the maildirs (an existing empty directory would not do)
start_smtp "$SPORT" "$T/mail"

{
	cat "$T/db/jobdb.conf"
	cat <<EOF
smtp_url = smtp://127.0.0.1:$SPORT
smtp_tls = none
smtp_timeout = 5s
alert_from = beacon@hpc.example
alert_to = ops@example.org, io@example.org
alert_web_url = https://beacon.example/
alert_remind_after = 96h
alert_retry_min = 1m
alert_retry_max = 1h
EOF
} > "$T/beacon.conf"
drive() { "$DRIVE" "$T/beacon.conf" "$@" 2>> "$T/drive.err"; }
# round NOW [key=value...]: runs a round, checks its counts "q s f d"
round() { # now want [key=value...]
	local now=$1 want=$2 got
	shift 2
	got=$(drive round "$now" "$@") || fail "round at $now: $got"
	[ "$got" = "$want" ] || fail "round at $now: '$got', want '$want'"
}

# messages about anomaly ID (X-Beacon-Anomaly) in maildir DIR
count() { # dir id
	"$PY" - "$1" "$2" <<'PY'
import mailbox, sys
print(sum(1 for m in mailbox.Maildir(sys.argv[1], create=False)
          if m["X-Beacon-Anomaly"] == sys.argv[2]))
PY
}
total() { "$PY" -c 'import mailbox, sys; print(len(mailbox.Maildir(sys.argv[1], create=False)))' "$1"; }

B=1795000000   # 2026-11-18T11:06:40Z
EV='{"median_ms":12.5,"baseline_ms":3.1,"osts":{"slow":"OST0003","peers":7}}'
A1=$(drive put slow_ost simfs-OST0003 warning $((B - 5400)) $B $B "$EV" 77 78 90:accused) || fail "put A1"
A2=$(drive put slow_fwd fwd01 critical $((B - 600)) $B $B '{"wait_ms":40}') || fail "put A2"
A3=$(drive put slow_ost simfs-OST0001 info $((B - 600)) $B $B '{}') || fail "put A3"

# one message per new anomaly of at least warning
round $B "queued 2 sent 2 failed 0 deferred 0"
[ "$(total "$T/mail")" = 2 ] || fail "2 messages expected, $(total "$T/mail")"
"$PY" - "$T/mail" "$A1" "$A2" "$(sql "SELECT id FROM alerts WHERE anomaly = $A1")" <<'PY' || fail "the messages"
import email.policy, mailbox, sys
box, a1, a2 = sys.argv[1], sys.argv[2], sys.argv[3]
msgs = {}
for key in mailbox.Maildir(box, create=False).keys():
    raw = open(f"{box}/new/{key}", "rb").read()
    m = email.message_from_bytes(raw, policy=email.policy.default)
    msgs[m["X-Beacon-Anomaly"]] = m
m = msgs[a1]
def want(name, value):
    assert str(m[name]) == value, f"{name}: {m[name]!r} != {value!r}"
want("From", "beacon <beacon@hpc.example>")
want("To", "ops@example.org, io@example.org")
want("Subject", "[beacon] slow_ost simfs-OST0003 (warning) since 2026-11-18T09:36:40Z")
want("Message-ID", f"<alert-{sys.argv[4]}.anomaly-{a1}@hpc.example>")
want("Date", "Wed, 18 Nov 2026 11:06:40 +0000")
want("X-Beacon-Alert", "new")
want("X-MailFrom", "beacon@hpc.example")
want("X-RcptTo", "ops@example.org, io@example.org")
assert m.get_content_type() == "text/plain" and m.get_content_charset() == "utf-8"
body = m.get_content()
for line in ["Kind:      slow_ost", "Component: simfs-OST0003",
             "Window:    2026-11-18T09:36:40Z .. 2026-11-18T11:06:40Z (1h 30m 0s)",
             "Severity:  warning (score 0)", "State:     open",
             "Affected:   77, 78", "Accused:    90", "  median_ms: 12.5",
             "  baseline_ms: 3.1", "  osts.slow: OST0003", "  osts.peers: 7",
             f"Details: https://beacon.example/anomalies/{a1}"]:
    assert line + "\n" in body, f"missing {line!r} in\n{body}"
m = msgs[a2]
want("Subject", "[beacon] slow_fwd fwd01 (critical) since 2026-11-18T10:56:40Z")
assert "  wait_ms: 40\n" in m.get_content()
PY

# de-duplicated: again, and with the window grown
round $((B + 60)) "queued 0 sent 0 failed 0 deferred 0"
[ "$(drive put slow_ost simfs-OST0003 critical $((B - 60)) $((B + 3600)) $((B + 3600)) "$EV")" = "$A1" ] ||
	fail "the grown anomaly is not the same row"
round $((B + 3600)) "queued 0 sent 0 failed 0 deferred 0"
[ "$(count "$T/mail" "$A1")" = 1 ] || fail "A1 mailed twice"

# reminders: A1 still open after 96 hours; A2 acknowledged gets none
drive ack "$A2" $((B + 7200)) || fail "ack A2"
round $((B + 96 * 3600 - 60)) "queued 0 sent 0 failed 0 deferred 0"
round $((B + 96 * 3600 + 60)) "queued 1 sent 1 failed 0 deferred 0"
[ "$(count "$T/mail" "$A1")" = 2 ] || fail "no reminder of A1"
[ "$(count "$T/mail" "$A2")" = 1 ] || fail "a reminder of acknowledged A2"
[ "$(count "$T/mail" "$A3")" = 0 ] || fail "info anomaly A3 mailed"
"$PY" - "$T/mail" "$A1" "$(sql "SELECT id FROM alerts WHERE anomaly = $A1 AND kind = 'reminder'")" <<'PY' || fail "the reminder"
import email.policy, mailbox, sys
box, a1, rid = sys.argv[1], sys.argv[2], sys.argv[3]
r = [m for m in mailbox.Maildir(box, factory=None, create=False)
     if m["X-Beacon-Anomaly"] == a1 and m["X-Beacon-Alert"] == "reminder 1"]
assert len(r) == 1, r
m = email.message_from_bytes(r[0].as_bytes(), policy=email.policy.default)
assert str(m["Subject"]).startswith("[beacon] reminder 1: slow_ost simfs-OST0003 (critical)"), m["Subject"]
assert m["Message-ID"] == f"<alert-{rid}.anomaly-{a1}@hpc.example>", m["Message-ID"]
assert "Reminder 1: this I/O anomaly is still open." in m.get_content()
PY

# the server down: queued with error and attempts, then exactly once
stop_smtp "$SMTP_PID"
B2=$((B + 100 * 3600))
drive close $((B2 - 600)) $((B2 - 600)) || fail "close"   # no more reminders
A4=$(drive put slow_ost simfs-OST0004 warning $((B2 - 600)) $B2 $B2) || fail "put A4"
A5=$(drive put slow_ost simfs-OST0005 warning $((B2 - 600)) $B2 $B2) || fail "put A5"
round $B2 "queued 2 sent 0 failed 2 deferred 0"
[ "$(sql "SELECT COUNT(*) FROM alerts WHERE state = 'queued' AND attempts = 1 AND last_error LIKE '%connect%'")" = 2 ] ||
	fail "failed alerts not recorded: $(sql 'SELECT id, state, attempts, last_error FROM alerts')"
round $((B2 + 30)) "queued 0 sent 0 failed 0 deferred 0"   # backoff: 1 min
round $((B2 + 61)) "queued 0 sent 0 failed 2 deferred 0"
[ "$(sql "SELECT COUNT(*) FROM alerts WHERE state = 'queued' AND attempts = 2")" = 2 ] || fail "attempts not counted"
start_smtp "$SPORT" "$T/mail"
round $((B2 + 61 + 60)) "queued 0 sent 0 failed 0 deferred 0" # backoff: 2 min
round $((B2 + 61 + 120)) "queued 0 sent 2 failed 0 deferred 0"
round $((B2 + 61 + 180)) "queued 0 sent 0 failed 0 deferred 0"
[ "$(count "$T/mail" "$A4")" = 1 ] && [ "$(count "$T/mail" "$A5")" = 1 ] || fail "A4/A5 not exactly once"
[ "$(sql "SELECT COUNT(*) FROM alerts WHERE state <> 'sent'")" = 0 ] || fail "alerts left queued"

# the hourly limit: 2 of 5 now, the others in the next hours
B3=$((B + 200 * 3600))
drive close $((B3 - 600)) $((B3 - 600)) || fail "close"
for i in 1 2 3 4 5; do
	drive put slow_ost "limit-OST000$i" warning $((B3 - 600)) $B3 $B3 > /dev/null || fail "put limit $i"
done
round $B3 "queued 5 sent 2 failed 0 deferred 3" alert_max_per_hour=2
round $((B3 + 1800)) "queued 0 sent 0 failed 0 deferred 3" alert_max_per_hour=2
round $((B3 + 3601)) "queued 0 sent 2 failed 0 deferred 1" alert_max_per_hour=2
round $((B3 + 7202)) "queued 0 sent 1 failed 0 deferred 0" alert_max_per_hour=2
n=$("$PY" -c 'import mailbox, sys; print(sum(1 for m in mailbox.Maildir(sys.argv[1], create=False) if "limit-OST" in m["Subject"]))' "$T/mail")
[ "$n" = 5 ] || fail "$n of the 5 limited anomalies arrived"

# a hostile component adds no header; lines starting with "." survive
B4=$((B + 300 * 3600))
drive close $((B4 - 600)) $((B4 - 600)) || fail "close"
A6=$(drive put slow_ost $'evil\r\nBcc: evil@x\r\n\r\n.\r\nRCPT TO:<evil@x>' warning $((B4 - 600)) $B4 $B4 \
	'{"k\r\n.":".\r\n.."}') || fail "put A6"
round $B4 "queued 1 sent 1 failed 0 deferred 0"
"$PY" - "$T/mail" "$A6" <<'PY' || fail "the hostile message"
import mailbox, sys
box, a6 = sys.argv[1], sys.argv[2]
r = [m for m in mailbox.Maildir(box, create=False) if m["X-Beacon-Anomaly"] == a6]
assert len(r) == 1
m = r[0]
assert m["Bcc"] is None and "evil" not in m["X-RcptTo"], m.items()
assert "\n" not in m["Subject"].replace("\n ", "").replace("\r", ""), m["Subject"]
names = {k for k, _ in m.items()}
assert names <= {"From", "To", "Subject", "Date", "Message-ID", "MIME-Version",
                 "Content-Type", "Content-Transfer-Encoding", "Auto-Submitted",
                 "X-Beacon-Anomaly", "X-Beacon-Alert", "X-Peer", "X-MailFrom",
                 "X-RcptTo"}, names
PY
printf 'From: beacon@hpc.example\r\nTo: ops@example.org\r\nSubject: dots\r\nMessage-ID: <dots@hpc.example>\r\n\r\nfirst\r\n.\r\n..\r\n.hidden\r\nlast\r\n' > "$T/dots.eml"
drive send "$T/dots.eml" alert_to=ops@example.org || fail "send the dots message"
"$PY" - "$T/mail" <<'PY' || fail "dot lines not intact"
import mailbox, sys
r = [m for m in mailbox.Maildir(sys.argv[1], create=False) if m["Message-ID"] == "<dots@hpc.example>"]
assert len(r) == 1, len(r)
body = r[0].get_payload().replace("\r\n", "\n")
assert body == "first\n.\n..\n.hidden\nlast\n", repr(body)
PY

# STARTTLS with a self-signed certificate
if openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 \
	-addext "subjectAltName=IP:127.0.0.1,DNS:localhost" \
	-keyout "$T/key.pem" -out "$T/cert.pem" > "$T/openssl.out" 2>&1; then
	start_smtp "$TPORT" "$T/tlsmail" --tlscert "$T/cert.pem" --tlskey "$T/key.pem"
	B5=$((B + 400 * 3600))
	drive close $((B5 - 600)) $((B5 - 600)) || fail "close"
	TLS=(smtp_url=smtp://127.0.0.1:$TPORT smtp_tls=required smtp_ca_file=$T/cert.pem)
	A7=$(drive put slow_ost tls-OST0001 warning $((B5 - 600)) $B5 $B5) || fail "put A7"
	# plain text is refused by a server that requires STARTTLS, and an
	# unknown certificate is refused by beacon
	round $B5 "queued 1 sent 0 failed 1 deferred 0" "${TLS[0]}" smtp_tls=none
	e=$(sql "SELECT last_error FROM alerts WHERE anomaly = $A7")
	echo "plain text to a server that requires STARTTLS: $e"
	grep -q "530" <<< "$e" || fail "no 530 for plain text: $e"
	round $((B5 + 60)) "queued 0 sent 0 failed 1 deferred 0" "${TLS[0]}" smtp_tls=required
	round $((B5 + 180)) "queued 0 sent 1 failed 0 deferred 0" "${TLS[@]}"
	[ "$(count "$T/tlsmail" "$A7")" = 1 ] || fail "the STARTTLS message did not arrive"
	[ "$(sql "SELECT attempts FROM alerts WHERE anomaly = $A7")" = 2 ] || fail "attempts of A7"
else
	echo "SKIP: openssl cannot make a certificate: $(cat "$T/openssl.out")" >&2
	skipped=1
fi

# everything recorded: each alert sent once, with its Message-ID
[ "$(sql "SELECT COUNT(*) FROM alerts WHERE state = 'sent' AND sent_ns > 0 AND message_id LIKE '<alert-%'")" = \
  "$(sql "SELECT COUNT(*) FROM alerts")" ] || fail "alerts without a recorded send"
grep -i "password" "$T/drive.err" && fail "a password in the log"
bcn_check_sanitizer_logs "$T/drive.err" || fail "sanitizer report"
echo "errors recorded on the way:"
sql "SELECT DISTINCT last_error FROM alerts WHERE last_error <> ''"
[ "$skipped" = 0 ] || exit 77
echo "alert_smtp: ok"
