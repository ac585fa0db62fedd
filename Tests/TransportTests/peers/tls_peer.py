"""TLS peers for the server's own record layer (TransportTests.TLSRecordLayerInteropTests).

usage: tls_peer.py MODE PORT CAFILE [SUITE]
  s_client  `openssl s_client` (TLS 1.3, SUITE) upgrades to WebSocket, sends a KeyUpdate with
            update_requested ("K" command), then a frame, and waits for its echo.
  tls12     the same with `openssl s_client -tls1_2` (the OpenSSL path; no KeyUpdate).
  flip      Python's ssl (OpenSSL) over memory BIOs: upgrade, then one frame's record with one
            ciphertext bit flipped on the wire; expects the server's bad_record_mac and close.
The last stdout line says what happened; exit status 0 when as expected.
"""
import os, select, socket, ssl, subprocess, sys, time, base64

mode, port, cafile = sys.argv[1], int(sys.argv[2]), sys.argv[3]
suite = sys.argv[4] if len(sys.argv) > 4 else "TLS_AES_128_GCM_SHA256"
KEY = base64.b64encode(os.urandom(16)).decode()
UPGRADE = (f"GET /v1/connect HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
           f"Sec-WebSocket-Key: {KEY}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode()
PAYLOAD = bytes((i * 7 + 3) & 0xFF for i in range(3000))


def frame(payload):
    mask = os.urandom(4)
    n = len(payload)
    head = bytes([0x82, 0x80 | 126]) + n.to_bytes(2, "big") if n >= 126 else bytes([0x82, 0x80 | n])
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def finish(ok, msg):
    print(("OK " if ok else "FAIL ") + msg, flush=True)
    sys.exit(0 if ok else 1)


def wait_for(p, needle, buf, seconds=10):
    end = time.time() + seconds
    while needle not in buf:
        left = end - time.time()
        if left <= 0 or p.poll() is not None and not select.select([p.stdout], [], [], 0)[0]:
            return buf, False
        r, _, _ = select.select([p.stdout], [], [], left)
        if r:
            chunk = os.read(p.stdout.fileno(), 65536)
            if not chunk:
                return buf, False
            buf += chunk
    return buf, True


def s_client(tls12):
    args = ["openssl", "s_client", "-connect", f"127.0.0.1:{port}", "-CAfile", cafile, "-servername", "localhost",
            "-verify_return_error"]
    args += ["-tls1_2"] if tls12 else ["-tls1_3", "-ciphersuites", suite]
    p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        buf, ok = wait_for(p, b"---\n", b"")  # the session summary: handshake done
        buf, ok = wait_for(p, b"Verify return code", buf)
        if not ok:
            finish(False, "no handshake: " + buf[-300:].decode(errors="replace"))
        p.stdin.write(UPGRADE); p.stdin.flush()
        buf, ok = wait_for(p, b"HTTP/1.1 101", buf)
        if not ok:
            finish(False, "no 101: " + buf[-300:].decode(errors="replace"))
        if not tls12:
            time.sleep(0.2)
            p.stdin.write(b"K\n"); p.stdin.flush()  # s_client: KeyUpdate, update_requested
            buf, ok = wait_for(p, b"KEYUPDATE", buf)
            if not ok:
                finish(False, "s_client sent no KeyUpdate: " + buf[-300:].decode(errors="replace"))
            time.sleep(0.2)
        p.stdin.write(frame(PAYLOAD)); p.stdin.flush()
        buf, ok = wait_for(p, PAYLOAD, buf)
        if not ok:
            finish(False, "no echo: " + buf[-300:].decode(errors="replace"))
        proto = "TLSv1.2" if b"TLSv1.2" in buf else "TLSv1.3" if b"TLSv1.3" in buf else "?"
        finish(True, f"echo of {len(PAYLOAD)} bytes over {proto} {'' if tls12 else suite}".strip())
    finally:
        p.kill(); p.wait()


def flip():
    ctx = ssl.create_default_context(cafile=cafile)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_3
    inc, out = ssl.MemoryBIO(), ssl.MemoryBIO()
    obj = ctx.wrap_bio(inc, out, server_hostname="localhost")
    s = socket.create_connection(("127.0.0.1", port), timeout=10)

    def pump_out():
        data = out.read()
        if data:
            s.sendall(data)

    def pump_in():
        data = s.recv(65536)
        if not data:
            return False
        inc.write(data)
        return True

    while True:
        try:
            obj.do_handshake(); break
        except ssl.SSLWantReadError:
            pump_out()
            if not pump_in():
                finish(False, "closed in handshake")
    pump_out()
    obj.write(UPGRADE); pump_out()
    head = b""
    while b"\r\n\r\n" not in head:
        try:
            head += obj.read(65536)
        except ssl.SSLWantReadError:
            if not pump_in():
                finish(False, "closed before 101")
    if not head.startswith(b"HTTP/1.1 101"):
        finish(False, "no 101")
    obj.write(frame(PAYLOAD))
    record = bytearray(out.read())
    record[40] ^= 0x01  # a ciphertext bit of the first record
    s.sendall(bytes(record))
    try:
        while True:
            try:
                got = obj.read(65536)
                if not got:
                    finish(False, "clean EOF, no alert")
            except ssl.SSLWantReadError:
                if not pump_in():
                    finish(False, "closed without an alert")
    except ssl.SSLError as e:
        finish("BAD_RECORD_MAC" in str(e).upper() or "bad record mac" in str(e).lower(), f"server alert: {e}")


if mode == "s_client":
    s_client(False)
elif mode == "tls12":
    s_client(True)
elif mode == "flip":
    flip()
else:
    finish(False, "unknown mode " + mode)
