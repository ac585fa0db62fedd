#!/usr/bin/env python3
"""A TCP proxy the fault suite controls (EndToEndTests/FaultSuite+PeerGone): TEST code.

Forwards every connection on --port to --target. When the file --trigger appears (the test
creates it; the proxy deletes it), every connection open at that moment is black-holed (or,
when the file says `newest`, only the connection accepted last): nothing more is forwarded either way and nothing is closed, the way a
peer looks whose network went silent (Wi-Fi gone, a machine asleep) without a FIN. Connections
made later are forwarded normally. Logs one line per event to stdout.

A file, not a signal: a child of the test runner may inherit a blocked signal mask.
Usage: blackhole_proxy.py --port N --target PORT --trigger PATH. Runs until killed.
"""
import os
import selectors
import socket
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../TestSupport/peers"))
from peer_http import front_arguments  # noqa: E402

ARGS = None
SEL = selectors.DefaultSelector()
PAIRS = {}       # socket -> its partner
HOLED = set()    # sockets no longer forwarded (kept open)
ACCEPTED = []    # client sockets, oldest first


def log(line):
    print(line, flush=True)


def accept(listener):
    client, _ = listener.accept()
    upstream = socket.create_connection(("127.0.0.1", ARGS.target))
    for s in (client, upstream):
        s.setblocking(False)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    PAIRS[client], PAIRS[upstream] = upstream, client
    ACCEPTED.append(client)
    SEL.register(client, selectors.EVENT_READ, "conn")
    SEL.register(upstream, selectors.EVENT_READ, "conn")
    log(f"forwarding connection {len(PAIRS) // 2}")


def close_pair(s):
    other = PAIRS.pop(s, None)
    for x in (s, other):
        if x is None:
            continue
        PAIRS.pop(x, None)
        try:
            SEL.unregister(x)
        except (KeyError, ValueError):
            pass
        x.close()


def forward(s):
    try:
        data = s.recv(65536)
    except (BlockingIOError, InterruptedError):
        return
    except OSError:
        data = b""
    if not data:
        return close_pair(s)
    try:
        PAIRS[s].sendall(data)  # small frames on loopback: a short blocking write is fine here
    except OSError:
        close_pair(s)


def hole_everything():
    with open(ARGS.trigger) as f:
        newest = f.read().strip() == "newest"
    os.unlink(ARGS.trigger)
    live = [c for c in ACCEPTED if c in PAIRS]
    chosen = ([live[-1], PAIRS[live[-1]]] if live else []) if newest else list(PAIRS)
    for s in chosen:
        if s not in HOLED:
            HOLED.add(s)
            SEL.unregister(s)
    log(f"black-holed {len(HOLED) // 2} connection(s)")


def main():
    global ARGS
    p = front_arguments()
    p.add_argument("--trigger", required=True)
    ARGS = p.parse_args()
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", ARGS.port))
    listener.listen(64)
    listener.setblocking(False)
    SEL.register(listener, selectors.EVENT_READ, "listener")
    log(f"listening on {ARGS.port}, forwarding to {ARGS.target}")
    while True:
        if os.path.exists(ARGS.trigger):
            hole_everything()
        for key, _ in SEL.select(timeout=0.05):
            if key.data == "listener":
                accept(key.fileobj)
            elif key.fileobj in PAIRS:
                forward(key.fileobj)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(0)
