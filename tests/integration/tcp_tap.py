#!/usr/bin/env python3
"""A TCP relay that records every byte it carries, for tests that check
what crosses the wire (tests/integration/logsrv_tls.sh).

usage: tcp_tap.py LISTEN_PORT TARGET_PORT CAPTURE_FILE READY_FILE
Relays each connection to 127.0.0.1:TARGET_PORT, appends both directions'
bytes to CAPTURE_FILE, and runs until killed.
"""
import os
import selectors
import socket
import sys


def main():
    lport, tport, capture, ready = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", lport))
    ls.listen(64)
    ls.setblocking(False)
    out = open(capture, "ab", buffering=0)
    sel = selectors.DefaultSelector()
    sel.register(ls, selectors.EVENT_READ, None)
    peer = {}
    with open(ready, "w") as f:
        f.write("%d\n" % os.getpid())
    while True:
        for key, _ in sel.select():
            s = key.fileobj
            if s is ls:
                c, _ = ls.accept()
                t = socket.create_connection(("127.0.0.1", tport))
                for x in (c, t):
                    x.setblocking(False)
                    sel.register(x, selectors.EVENT_READ, None)
                peer[c], peer[t] = t, c
                continue
            try:
                data = s.recv(65536)
            except OSError:
                data = b""
            other = peer.get(s)
            if not data or other is None:
                for x in (s, other):
                    if x is not None and x in peer:
                        sel.unregister(x)
                        x.close()
                        del peer[x]
                continue
            out.write(data)
            other.setblocking(True)
            other.sendall(data)
            other.setblocking(False)


main()
