#!/usr/bin/env python3
"""A loopback TCP proxy in front of the relay that records what a relay (or anyone on the path)
sees of each WebSocket message: connection number, direction (up = device to relay, down =
relay to device), payload size and arrival time. Never the payload.
Usage: capture.py LISTEN_PORT RELAY_PORT TRACE_FILE (one JSON line per message)."""
import json, socket, sys, threading, time

LISTEN, RELAY, OUT = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
lock = threading.Lock()
out = open(OUT, "a", buffering=1)
counter = [0]

def pump(src, dst, conn, direction):
    buf = b""
    upgraded = False
    try:
        while True:
            data = src.recv(65536)
            if not data: break
            t = time.monotonic()
            dst.sendall(data)
            buf += data
            if not upgraded:
                i = buf.find(b"\r\n\r\n")
                if i < 0: continue
                buf, upgraded = buf[i + 4:], True
            while len(buf) >= 2:
                n, masked, at = buf[1] & 0x7F, buf[1] & 0x80, 2
                if n == 126:
                    if len(buf) < 4: break
                    n, at = int.from_bytes(buf[2:4], "big"), 4
                elif n == 127:
                    if len(buf) < 10: break
                    n, at = int.from_bytes(buf[2:10], "big"), 10
                at += 4 if masked else 0
                if len(buf) < at + n: break
                op = buf[0] & 0x0F
                with lock:
                    out.write(json.dumps({"c": conn, "d": direction, "op": op, "n": n, "t": t}) + "\n")
                buf = buf[at + n:]
    except OSError:
        pass
    finally:
        for s in (src, dst):
            try: s.shutdown(socket.SHUT_RDWR)
            except OSError: pass

srv = socket.socket(); srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", LISTEN)); srv.listen(64)
while True:
    c, _ = srv.accept()
    r = socket.create_connection(("127.0.0.1", RELAY))
    for s in (c, r): s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    counter[0] += 1
    threading.Thread(target=pump, args=(c, r, counter[0], "up"), daemon=True).start()
    threading.Thread(target=pump, args=(r, c, counter[0], "down"), daemon=True).start()
