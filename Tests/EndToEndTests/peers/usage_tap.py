#!/usr/bin/env python3
"""An HTTP tap in front of one engine (EndToEndTests/HouseEndToEndTests): TEST code.

Forwards every request on --port to 127.0.0.1:--target unchanged and streams the answer back
(then closes the connection). For each chat completion it appends one JSON line to --out:
{"max_tokens": N, "prompt_tokens": P, "completion_tokens": C} with the usage the engine itself
reported in its stream (null when it reported none), so a test can sum the engine's own figures.
Usage: usage_tap.py --port N --target PORT --out PATH [--fail-file PATH]. Runs until killed.
While the --fail-file exists, every POST is answered 503 and not forwarded (an engine failing).
"""
import http.client
import http.server
import json
import os
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../TestSupport/peers"))
from peer_http import front_arguments, serve_until_killed  # noqa: E402

ARGS = None
LOCK = threading.Lock()


class Tap(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, *args):
        pass

    def forward(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        if ARGS.fail_file and os.path.exists(ARGS.fail_file) and self.command == "POST":
            # The engine "fails": 503 to every POST (chats and the probe's trial), nothing forwarded.
            data = b'{"error":{"message":"tap told to fail","code":503}}'
            self.send_response(503)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(data)
            return
        up = http.client.HTTPConnection("127.0.0.1", ARGS.target, timeout=600)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("connection", "keep-alive")}
        up.request(self.command, self.path, body=body, headers=headers)
        resp = up.getresponse()
        self.send_response(resp.status)
        for k, v in resp.getheaders():
            if k.lower() not in ("transfer-encoding", "connection", "content-length", "keep-alive"):
                self.send_header(k, v)
        self.send_header("Connection", "close")
        self.end_headers()
        usage = None
        chat = self.path.endswith("/chat/completions") and self.command == "POST"
        while True:
            line = resp.readline()
            if not line:
                break
            self.wfile.write(line)
            self.wfile.flush()
            if chat and line.startswith(b"data: {"):
                try:
                    u = json.loads(line[6:]).get("usage")
                except ValueError:
                    u = None
                if u:
                    usage = u
        if chat:
            try:
                asked = json.loads(body or b"{}").get("max_tokens")
            except ValueError:
                asked = None
            entry = {"max_tokens": asked,
                     "prompt_tokens": usage and usage.get("prompt_tokens"),
                     "completion_tokens": usage and usage.get("completion_tokens")}
            with LOCK, open(ARGS.out, "a") as f:
                f.write(json.dumps(entry) + "\n")

    do_GET = forward
    do_POST = forward


def main():
    global ARGS
    p = front_arguments()
    p.add_argument("--out", required=True)
    p.add_argument("--fail-file")
    ARGS = p.parse_args()
    serve_until_killed(ARGS.port, Tap, ready="tap ready")


if __name__ == "__main__":
    main()
