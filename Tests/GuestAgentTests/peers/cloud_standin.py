#!/usr/bin/env python3
"""STAND-IN for api.openai.com and api.anthropic.com in the guest's CLI tests (not the real
services): the same paths, headers, status codes and streaming shapes, answering a fixed text.
Prints "PORT <n>", serves until stdin closes.

GET  /v1/models                the zero-token key test: 200 for a key containing "good", else 401
                               (Anthropic's x-api-key also needs anthropic-version: 2023-06-01)
POST /v1/chat/completions      OpenAI Chat Completions SSE (role, content deltas, finish, usage
                               chunk when stream_options.include_usage, [DONE]); 401 for a bad key
POST /v1/messages              Anthropic Messages SSE (message_start, ping, text_delta, message_delta,
                               message_stop); 401 for a bad key
GET  /record                   every request so far: path, the key's last 4 characters, model
GET  /bodies                   the JSON body of every POST so far, whole (what a brain was sent)
"""
import json
import os
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../TestSupport/peers"))
from peer_http import PeerHandler, serve_until_stdin_closes  # noqa: E402

RECORD = []
BODIES = []
LOCK = threading.Lock()
OPENAI_401 = {"error": {"message": "Incorrect API key provided: sk-proj-********.", "type": "invalid_request_error",
                        "param": None, "code": "invalid_api_key"}}
ANTHROPIC_401 = {"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}


def pieces(who, key):
    return [f"Hello from the {who} ", "stand-in", f" (key …{key[-4:]})."]


class Handler(PeerHandler):

    def key(self):
        return self.headers.get("x-api-key") or self.headers.get("Authorization", "").removeprefix("Bearer ")

    def record(self, model=None):
        with LOCK:
            RECORD.append({"path": self.path, "key_tail": self.key()[-4:], "model": model,
                           "anthropic_version": self.headers.get("anthropic-version")})

    def start_sse(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def event(self, data, name=None):
        head = f"event: {name}\n" if name else ""
        self.wfile.write((head + "data: " + (data if isinstance(data, str) else json.dumps(data)) + "\n\n").encode())
        self.wfile.flush()

    def do_GET(self):
        if self.path == "/record":
            with LOCK:
                return self.reply(200, RECORD)
        if self.path == "/bodies":
            with LOCK:
                return self.reply(200, BODIES)
        if self.path == "/v1/models":
            self.record()
            if self.headers.get("x-api-key") and self.headers.get("anthropic-version") != "2023-06-01":
                return self.reply(400, {"type": "error", "error": {"type": "invalid_request_error",
                                                                   "message": "anthropic-version: header is required"}})
            if "good" in self.key():
                return self.reply(200, {"object": "list", "data": [{"id": "gpt-4o-mini", "object": "model"}]})
            return self.reply(401, ANTHROPIC_401 if self.headers.get("x-api-key") else OPENAI_401)
        self.reply(404, {"error": "not found"})

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        self.record(body.get("model"))
        with LOCK:
            BODIES.append(body)
        key = self.key()
        if self.path == "/v1/chat/completions":
            if "good" not in key:
                return self.reply(401, OPENAI_401)
            return self.openai(body, key)
        if self.path == "/v1/messages":
            if "good" not in key or self.headers.get("anthropic-version") != "2023-06-01":
                return self.reply(401, ANTHROPIC_401)
            return self.anthropic(body, key)
        self.reply(404, {"error": "not found"})

    def openai(self, body, key):
        self.start_sse()
        base = {"id": "chatcmpl-standin", "object": "chat.completion.chunk", "created": 1, "model": body.get("model")}
        self.event({**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}]})
        for p in pieces("OpenAI", key):
            self.event({**base, "choices": [{"index": 0, "delta": {"content": p}, "finish_reason": None}]})
        self.event({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
        if (body.get("stream_options") or {}).get("include_usage"):
            self.event({**base, "choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 3, "total_tokens": 12}})
        self.event("[DONE]")

    def anthropic(self, body, key):
        self.start_sse()
        self.event({"type": "message_start", "message": {"id": "msg_standin", "type": "message", "role": "assistant",
                    "model": body.get("model"), "content": [], "stop_reason": None,
                    "usage": {"input_tokens": 9, "output_tokens": 1}}}, "message_start")
        self.event({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
                   "content_block_start")
        self.event({"type": "ping"}, "ping")
        for p in pieces("Anthropic", key):
            self.event({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": p}},
                       "content_block_delta")
        self.event({"type": "content_block_stop", "index": 0}, "content_block_stop")
        self.event({"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                    "usage": {"output_tokens": 3}}, "message_delta")
        self.event({"type": "message_stop"}, "message_stop")


def main():
    serve_until_stdin_closes(Handler)


if __name__ == "__main__":
    main()
