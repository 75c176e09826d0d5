#!/usr/bin/env python3
"""Writes the authenticated seeds of tests/fuzz/logsrv_conn_fuzz.c from the
wire protocol as docs/protocol.md describes it (version 2): a HELLO of node
cn007, the AUTH that the harness's pinned server nonce (32 bytes 0x5a) and
the test site key (bytes 0..31) make valid through cn007's node key, and
the DATA frames of the v1 seed given (re-versioned, unsealed: the harness
seals them, mode bit 3).

usage: logsrv_conn_seeds.py OLD_SEED OUT_DIR
"""
import hashlib
import hmac
import struct
import sys
import zlib

SITE = bytes(range(32))
NS = b"\x5a" * 32


def hkdf(salt, ikm, info, n):
    prk = hmac.new(salt, ikm, hashlib.sha256).digest()
    out, t, i = b"", b"", 1
    while len(out) < n:
        t = hmac.new(prk, t + info + bytes([i]), hashlib.sha256).digest()
        out += t
        i += 1
    return out[:n]


def frame(kind, node, body, seq=0, count=0, raw=None, flags=0):
    node = node.encode() if isinstance(node, str) else node
    head = struct.pack("<4sBBBBIIQI", b"BCNF", 2, kind, flags, len(node),
                       len(node) + len(body), count, seq,
                       len(body) if raw is None else raw)
    crc = zlib.crc32(node + body, zlib.crc32(head))
    return head + struct.pack("<I", crc) + node + body


def frames(d):
    o = 0
    while o + 32 <= len(d):
        body, = struct.unpack_from("<I", d, o + 8)
        yield d[o:o + 32 + body]
        o += 32 + body


def main():
    old = open(sys.argv[1], "rb").read()[1:]
    fs = list(frames(old))
    hello = fs[0]
    node = hello[32:32 + hello[7]]
    nc = hello[32 + hello[7]:]
    nk = hkdf(b"beacon node key salt v2", SITE, b"beacon node key" + node, 32)
    mac = hmac.new(nk, b"BCN1-C" + NS + nc + node, hashlib.sha256).digest()
    out = frame(3, node, nc) + frame(5, node, mac)
    for f in fs[2:]:
        if f[5] != 1:
            continue
        g = bytearray(f)
        g[4] = 2
        crc = zlib.crc32(bytes(g[32:]), zlib.crc32(bytes(g[:28])))
        g[28:32] = struct.pack("<I", crc)
        out += bytes(g)
    for name, mode in (("handshake_data", 0x08), ("handshake_data_reseal", 0x0c),
                       ("handshake_data_unsealed", 0x00)):
        open("%s/%s" % (sys.argv[2], name), "wb").write(bytes([mode]) + out)


main()
