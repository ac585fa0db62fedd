"""WebSocket client peer for TransportTests: drives the Swift server and prints one result line.

usage: ws_client.py MODE PORT [CAFILE]   (CAFILE given: TLS, server name "localhost")
Exit status 0 when the scenario behaved as expected; the last stdout line says what happened.
"""
import os, socket, ssl, sys, time, base64
from websockets.sync.client import connect
from websockets.exceptions import ConnectionClosed

mode, port = sys.argv[1], int(sys.argv[2])
cafile = sys.argv[3] if len(sys.argv) > 3 else None
ctx = None
if cafile:
    ctx = ssl.create_default_context(cafile=cafile)
url = f"{'wss' if ctx else 'ws'}://127.0.0.1:{port}/v1/connect"


def ws(**kw):
    extra = {"server_hostname": "localhost"} if ctx else {}
    return connect(url, ssl=ctx, max_size=None, open_timeout=10, close_timeout=5, **extra, **kw)


def raw():
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    if ctx:
        s = ctx.wrap_socket(s, server_hostname="localhost")
    return s


def upgrade(s):
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall((f"GET /v1/connect HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = s.recv(1)
        if not chunk:
            raise SystemExit("FAIL upgrade: connection closed")
        head += chunk
    assert head.startswith(b"HTTP/1.1 101"), head


def read_close_code(s):
    """Reads frames until a close frame; returns its code."""
    data = b""
    while True:
        chunk = s.recv(4096)
        if not chunk:
            return None
        data += chunk
        if len(data) >= 2 and data[0] & 0x0F == 8:
            n = data[1] & 0x7F
            if len(data) >= 2 + n:
                return int.from_bytes(data[2:4], "big") if n >= 2 else 1005


def finish(ok, msg):
    print(("OK " if ok else "FAIL ") + msg, flush=True)
    sys.exit(0 if ok else 1)


if mode == "echo":
    sizes = [int(x) for x in os.environ.get("SIZES", "0,1,125,126,65535,65536,1048576").split(",")]
    with ws() as c:
        for n in sizes:
            msg = os.urandom(n)
            c.send(msg)
            if c.recv(timeout=20) != msg:
                finish(False, f"echo mismatch at {n}")
        parts = [os.urandom(1000) for _ in range(5)]
        c.send(parts)  # an iterable is sent fragmented: one message, five frames
        if c.recv(timeout=20) != b"".join(parts):
            finish(False, "fragmented echo mismatch")
        c.send("héllo")
        if c.recv(timeout=20) != "héllo":
            finish(False, "text echo mismatch")
        if not c.ping(b"p1").wait(10):
            finish(False, "no pong")
        c.close(1000, "done")
    finish(True, f"echoed {len(sizes)} sizes, fragments, text, ping")

elif mode == "unmasked":
    s = raw(); upgrade(s)
    s.sendall(bytes([0x82, 0x03]) + b"abc")  # unmasked binary frame from a client
    code = read_close_code(s)
    with ws() as c:  # a second connection keeps working
        c.send(b"still here")
        second = c.recv(timeout=10) == b"still here"
    finish(code == 1002 and second, f"close code {code}, second connection works: {second}")

elif mode == "garbage":
    s = raw(); upgrade(s)
    s.sendall(b"\xff\xff\xff\xff garbage after the upgrade")
    code = read_close_code(s)
    finish(code == 1002, f"close code {code}")

elif mode == "oversize":
    size = int(os.environ["SIZE"])
    with ws() as c:
        c.send(os.urandom(size))
        try:
            c.recv(timeout=10)
            finish(False, "oversize message echoed")
        except ConnectionClosed as e:
            code = e.rcvd.code if e.rcvd else None
            finish(code == 1009, f"close code {code}")

elif mode == "slowloris":
    req = b"GET /v1/connect HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"
    s = raw()
    s.settimeout(0.1)
    sent = 0
    for b in req:
        try:
            s.send(bytes([b]))
            sent += 1
            if s.recv(1) == b"":
                break
        except socket.timeout:
            continue
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
            break
    finish(sent < len(req), f"cut off after {sent} of {len(req)} bytes")

elif mode == "flood":
    s = raw()
    head = b"GET /v1/connect HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-F%d: y\r\n" % i for i in range(5000))
    try:
        s.sendall(head)
    except (BrokenPipeError, ConnectionResetError):
        pass
    status = s.recv(64).split(b"\r\n")[0].decode()
    finish(status.startswith("HTTP/1.1 431"), f"status line {status!r}")

elif mode == "healthz":
    s = raw()
    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    data = b""
    while True:
        chunk = s.recv(4096)
        if not chunk:
            break
        data += chunk
    ok = data.startswith(b"HTTP/1.1 200") and data.endswith(b"\r\n\r\nok\n")
    finish(ok, repr(data.split(b"\r\n")[0]))

elif mode == "maxconn":
    limit = int(os.environ["LIMIT"])
    held = [ws() for _ in range(limit)]
    for c in held:
        c.send(b"x"); c.recv(timeout=10)
    try:
        extra = ws()
        finish(False, "connection over the limit was upgraded")
    except Exception as e:
        refused = type(e).__name__
    held.pop().close()
    for _ in range(100):  # the server notices the close asynchronously
        try:
            again = ws(); again.send(b"y"); again.recv(timeout=10); again.close()
            break
        except Exception:
            time.sleep(0.02)
    else:
        finish(False, "no connection accepted after one closed")
    finish(True, f"over the limit: {refused}; accepted again after a close")

else:
    finish(False, f"unknown mode {mode}")
