#!/usr/bin/env python3
"""A STAND-IN for Ollama (no Ollama exists on this machine: not in Debian, not on PyPI): not a
model, and not Ollama. It speaks the part of Ollama's API the Homebase uses, in the shapes
Ollama's docs/api.md gives, so `homebase runtime add` verifies it as an Ollama and `guest host`
manages its models:

  GET  /api/version, /api/tags, /api/ps     POST /api/show
  POST /api/pull      NDJSON {status, digest, total, completed} lines, then {"status":"success"};
                      an unknown model: {"status":"pulling manifest"} then an {"error": ...} line
  DELETE /api/delete  200, or 404 for a model it does not have
  POST /api/generate  no prompt: loads the model (keep_alive 0: unloads it), as Ollama does
  POST /api/chat      a short NDJSON reply;  POST /v1/chat/completions  the same over SSE (the
                      OpenAI door Ollama has, which the Homebase and its one-token trial use)

Names are Ollama's: `model:tag`, the tag `latest` when none is given. A chat or generate loads
its model (it shows in /api/ps). The "library" it pulls from is --library NAME=BYTES; --hold
NAME (a library model too) makes its pull stream progress slowly until its client goes away
(bounded by a minute). GET /_record says what happened to each pull: "success", "error", "client gone".
Usage: ollama_standin.py --model NAME=BYTES [--library NAME=BYTES ...] [--hold NAME]; prints
"PORT n", serves until stdin closes.
"""
import argparse
import hashlib
import json
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../TestSupport/peers"))
from peer_http import PeerHandler, serve_until_stdin_closes  # noqa: E402

ARGS = None
LOCK = threading.Lock()
MODELS = {}  # name -> size: what is "on disk"
LOADED = set()
LIBRARY = {}
RECORD = {"pulls": [], "generate": []}


def full(name):
    """Ollama's name: the tag defaults to `latest`."""
    last = name.rsplit("/", 1)[-1]
    return name if ":" in last else name + ":latest"


def digest(name):
    return hashlib.sha256(name.encode()).hexdigest()


def details():
    return {"parent_model": "", "format": "gguf", "family": "llama", "families": ["llama"],
            "parameter_size": "0.5M", "quantization_level": "F32"}


def entry(name, size):
    return {"name": name, "model": name, "modified_at": "2026-01-01T00:00:00Z", "size": size,
            "digest": digest(name), "details": details()}


def sizes(pairs):
    out = {}
    for p in pairs or []:
        name, _, size = p.partition("=")
        out[full(name)] = int(size or 1000)
    return out


class Handler(PeerHandler):

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            return json.loads(raw or b"{}")
        except ValueError:
            return {}

    def line(self, obj):
        self.send_chunk(json.dumps(obj) + "\n")

    def start_ndjson(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def do_GET(self):
        if self.path == "/api/version":
            return self.reply(200, {"version": "0.12.3"})
        with LOCK:
            if self.path == "/api/tags":
                return self.reply(200, {"models": [entry(n, s) for n, s in sorted(MODELS.items())]})
            if self.path == "/api/ps":
                ps = [dict(entry(n, MODELS[n]), expires_at="2026-01-01T00:05:00Z", size_vram=0)
                      for n in sorted(LOADED) if n in MODELS]
                return self.reply(200, {"models": ps})
            if self.path == "/_record":
                return self.reply(200, RECORD)
        self.reply(404, {"error": "404 page not found"})

    def do_DELETE(self):
        if self.path != "/api/delete":
            return self.reply(404, {"error": "404 page not found"})
        name = full(self.body().get("model", ""))
        with LOCK:
            if name not in MODELS:
                return self.reply(404, {"error": "model '%s' not found" % name})
            del MODELS[name]
            LOADED.discard(name)
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        b = self.body()
        name = full(b.get("model") or b.get("name") or "")
        if self.path == "/api/pull":
            return self.pull(name)
        with LOCK:
            have = name in MODELS
        if not have:
            return self.reply(404, {"error": "model '%s' not found" % name})
        if self.path == "/api/show":
            return self.reply(200, {"details": details(), "capabilities": ["completion"],
                                    "model_info": {"general.architecture": "llama", "llama.context_length": 2048}})
        if self.path == "/api/generate":
            return self.generate(name, b)
        if self.path == "/api/chat":
            return self.chat_ndjson(name)
        if self.path == "/v1/chat/completions":
            return self.chat_sse(name, b)
        self.reply(404, {"error": "404 page not found"})

    def generate(self, name, b):
        keep = b.get("keep_alive")
        unload = keep in (0, "0", "0s", "0m")
        with LOCK:
            (LOADED.discard if unload else LOADED.add)(name)
            RECORD["generate"].append({"model": name, "keep_alive": keep})
        self.reply(200, {"model": name, "created_at": "2026-01-01T00:00:00Z", "response": "", "done": True,
                         "done_reason": "unload" if unload else "load"})

    def chat_ndjson(self, name):
        with LOCK:
            LOADED.add(name)
        self.start_ndjson()
        for word in ["Stand-in ", "Ollama ", "reply."]:
            self.line({"model": name, "created_at": "2026-01-01T00:00:00Z",
                       "message": {"role": "assistant", "content": word}, "done": False})
        self.line({"model": name, "created_at": "2026-01-01T00:00:00Z", "message": {"role": "assistant", "content": ""},
                   "done": True, "done_reason": "stop", "prompt_eval_count": 5, "eval_count": 3})
        self.end_chunked()

    def chat_sse(self, name, b):
        with LOCK:
            LOADED.add(name)
        words = ["Stand-in "] if b.get("max_tokens") == 1 else ["Stand-in ", "Ollama ", "reply."]

        def chunk(delta, finish=None, usage=None):
            c = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 0, "model": name,
                 "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
            if usage:
                c["usage"] = usage
            return "data: " + json.dumps(c) + "\n\n"
        self.start_chunked()
        self.send_chunk(chunk({"role": "assistant", "content": ""}))
        for w in words:
            self.send_chunk(chunk({"content": w}))
        self.send_chunk(chunk({}, "length" if len(words) == 1 else "stop",
                              {"prompt_tokens": 5, "completion_tokens": len(words), "total_tokens": 5 + len(words)}))
        self.send_chunk("data: [DONE]\n\n")
        self.end_chunked()

    def pull(self, name):
        self.start_ndjson()
        outcome = "success"
        try:
            self.line({"status": "pulling manifest"})
            with LOCK:
                size = LIBRARY.get(name)
            if size is None:
                outcome = "error"
                self.line({"error": "pull model manifest: file does not exist"})
            else:
                d = "sha256:" + digest(name)
                steps = 1200 if name == ARGS.hold else 4  # held: a minute at most
                for i in range(1, steps + 1):
                    done = size if name != ARGS.hold and i == steps else size * i // (steps + 1)
                    self.line({"status": "pulling " + d[7:19], "digest": d, "total": size, "completed": done})
                    time.sleep(0.05 if name == ARGS.hold else 0.01)
                for s in ["verifying sha256 digest", "writing manifest", "success"]:
                    self.line({"status": s})
                with LOCK:
                    MODELS[name] = size
            self.end_chunked()
        except (BrokenPipeError, ConnectionResetError):
            outcome = "client gone"
            self.close_connection = True
        with LOCK:
            RECORD["pulls"].append({"model": name, "outcome": outcome})


def main():
    global ARGS
    p = argparse.ArgumentParser()
    p.add_argument("--model", action="append", help="NAME=BYTES held at start")
    p.add_argument("--library", action="append", help="NAME=BYTES that a pull can fetch")
    p.add_argument("--hold", default="", help="a library model whose pull streams until its client goes away")
    ARGS = p.parse_args()
    ARGS.hold = full(ARGS.hold) if ARGS.hold else ""
    MODELS.update(sizes(ARGS.model))
    LIBRARY.update(sizes(ARGS.library))
    if ARGS.hold:
        LIBRARY.setdefault(ARGS.hold, 100000000)
    serve_until_stdin_closes(Handler)


if __name__ == "__main__":
    main()
