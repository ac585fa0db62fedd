#!/usr/bin/env python3
"""Replays recorded cloud streams (streams/*.sse) byte-exact, split at awkward boundaries, for
the OpenAI and Anthropic provider tests and the key test. Prints "PORT <n>", serves until stdin
closes.

POST /t/<id>/<provider>/<scenario>/v1/chat/completions | /v1/messages
    scenario: a file name in streams/ (without .sse; "-crlf" suffix: CRLF line ends), or
    s401, s429, s529 (the provider's real error bodies). Request headers and body are recorded.
GET  /t/<id>/record              the recorded requests of test <id> (JSON list)
GET  /keys/v1/models             the zero-token key test: 200 for a key containing "good",
                                 429 for "limited", else 401 (Anthropic: needs anthropic-version)
"""
import json
import os
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../TestSupport/peers"))
from peer_http import PeerHandler, serve_until_stdin_closes  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
RECORDS = {}
LOCK = threading.Lock()
# Piece sizes cycled over the body: splits land inside field names, JSON, UTF-8 sequences, CRLF.
PIECES = [1, 3, 7, 2, 13, 5, 1, 1, 29, 4]

ERRORS = {
    "anthropic": {
        401: {"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}},
        429: {"type": "error", "error": {"type": "rate_limit_error",
              "message": "Number of request tokens has exceeded your per-minute rate limit"}},
        529: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
    },
    "openai": {
        401: {"error": {"message": "Incorrect API key provided: sk-proj-********wxyz.",
              "type": "invalid_request_error", "param": None, "code": "invalid_api_key"}},
        429: {"error": {"message": "Rate limit reached for gpt-4o-mini on requests per min (RPM): Limit 3.",
              "type": "requests", "param": None, "code": "rate_limit_exceeded"}},
        529: {"error": {"message": "overloaded", "type": "server_error", "param": None, "code": None}},
    },
}


class Handler(PeerHandler):
    def reply(self, status, obj, reason=None):
        super().reply(status, obj, reason, close=True)

    def do_GET(self):
        parts = self.path.split("/")
        if self.path.startswith("/t/") and parts[-1] == "record":
            with LOCK:
                return self.reply(200, RECORDS.get(parts[2], []))
        if self.path == "/keys/v1/models":
            key = self.headers.get("x-api-key") or self.headers.get("Authorization", "").removeprefix("Bearer ")
            if self.headers.get("x-api-key") and self.headers.get("anthropic-version") != "2023-06-01":
                return self.reply(400, {"type": "error", "error": {"type": "invalid_request_error",
                                                                   "message": "anthropic-version: header is required"}})
            if "good" in key:
                return self.reply(200, {"object": "list", "data": [{"id": "gpt-4o-mini", "object": "model"}]})
            if "limited" in key:
                return self.reply(429, ERRORS["openai"][429])
            return self.reply(401, ERRORS["openai"][401])
        self.reply(404, {"error": "not found"})

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        parts = self.path.split("/")
        if len(parts) < 6 or parts[1] != "t":
            return self.reply(404, {"error": "not found"})
        test_id, provider, scenario = parts[2], parts[3], parts[4]
        with LOCK:
            RECORDS.setdefault(test_id, []).append({
                "path": "/" + "/".join(parts[5:]),
                "headers": {k.lower(): v for k, v in self.headers.items()},
                "body": json.loads(body or b"{}")})
        if scenario.startswith("s") and scenario[1:].isdigit():
            status = int(scenario[1:])
            return self.reply(status, ERRORS[provider][status], "Overloaded" if status == 529 else None)
        crlf = scenario.endswith("-crlf")
        name = scenario.removesuffix("-crlf")
        with open(os.path.join(HERE, "streams", name + ".sse"), "rb") as f:
            data = f.read()
        if crlf:
            data = data.replace(b"\n", b"\r\n")
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.flush()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        i = k = 0
        while i < len(data):
            n = PIECES[k % len(PIECES)]
            self.wfile.write(data[i:i + n])
            self.wfile.flush()
            i += n
            k += 1
            if k % 4 == 0:
                time.sleep(0.0005)
        self.close_connection = True


def main():
    serve_until_stdin_closes(Handler)


if __name__ == "__main__":
    main()
