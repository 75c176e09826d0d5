#!/usr/bin/env python3
"""Hostile peer for tests/integration/logsrv_hostile.sh, without any key.

usage: logsrv_attacker.py badauth HOST PORT SRC N
         N connections one after another, each a HELLO and an AUTH with a
         wrong MAC; prints {"sent": N, "challenged": C}
       logsrv_attacker.py slowloris HOST PORT SRC N READYFILE LIMIT_S
         N connections from SRC that drip a HELLO one byte at a time; the
         READYFILE is written once they are open; runs until the server has
         closed every one of them or LIMIT_S seconds have passed; prints
         {"opened": N, "closed": C, "open": N - C}
"""
import json
import os
import select
import socket
import struct
import sys
import time
import zlib


def frame(kind, node, body):
    node = node.encode()
    head = struct.pack("<4sBBBBIIQI", b"BCNF", 2, kind, 0, len(node),
                       len(node) + len(body), 0, 0, len(body))
    crc = zlib.crc32(node + body, zlib.crc32(head))
    return head + struct.pack("<I", crc) + node + body


HELLO = frame(3, "intruder", os.urandom(32))
AUTH = frame(5, "intruder", bytes(32))


def connect(host, port, src):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind((src, 0))
    s.settimeout(10)
    s.connect((host, port))
    return s


def badauth(host, port, src, n):
    challenged = 0
    for _ in range(n):
        s = connect(host, port, src)
        try:
            s.sendall(HELLO)
            if len(s.recv(4096)) > 0:
                challenged += 1
            s.sendall(AUTH)
            s.recv(4096)    # the server closes
        except OSError:
            pass
        s.close()
    print(json.dumps({"sent": n, "challenged": challenged}))


def slowloris(host, port, src, n, ready, limit):
    socks = []
    for _ in range(n):
        try:
            socks.append(connect(host, port, src))
        except OSError:
            break
    with open(ready, "w") as f:
        f.write("%d\n" % len(socks))
    live = {s: 0 for s in socks}
    closed = 0
    end = time.monotonic() + limit
    while live and time.monotonic() < end:
        r, _, _ = select.select(list(live), [], [], 0.5)
        for s in r:
            try:
                data = s.recv(4096)
            except OSError:
                data = b""
            if not data:
                closed += 1
                del live[s]
                s.close()
        for s in list(live):
            pos = live[s]
            try:
                s.send(HELLO[pos % len(HELLO):pos % len(HELLO) + 1])
                live[s] = pos + 1
            except OSError:
                closed += 1
                del live[s]
                s.close()
    print(json.dumps({"opened": len(socks), "closed": closed, "open": len(live)}))


def main():
    mode, host, port, src = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    if mode == "badauth":
        badauth(host, port, src, int(sys.argv[5]))
    else:
        slowloris(host, port, src, int(sys.argv[5]), sys.argv[6], float(sys.argv[7]))


main()
