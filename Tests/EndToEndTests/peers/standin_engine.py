#!/usr/bin/env python3
"""A STAND-IN inference engine for the fault suite (EndToEndTests/FaultSuite*): not a model.

It speaks the OpenAI API the way an engine does (GET /v1/models and /health, streamed
POST /v1/chat/completions with SSE), so `homebase runtime add` verifies it like any engine,
and then fails the way a real engine can, which llama-server cannot be made to do on demand:

  --mode stall   a few chunks of the answer, then silence (the connection stays open)
  --mode error   a few chunks, then an in-band error event, then the end of the stream
  --mode slow    silence for --prefill seconds (a long prompt's prefill: the request is
                 accepted, no token yet), then the whole answer and a proper end
  --mode slow-tools  as slow, but a minute of silence, and GET /props says it is a llama-server
                 whose chat template takes tools (so the Homebase advertises tool use); GET
                 /served counts the requests it took (tests kill the Homebase while it "works")
  --mode half-tools  as slow-tools, but at once streams the first half of a tool call (its id,
                 name and the start of its arguments), then stays silent for a minute; /served
                 says "half_sent" once it has (tests kill the Homebase mid-call)

The one-token trial of `runtime add` and of re-verification (max_tokens 1) is always answered
properly. Every answer starts with PARTIAL (below), which the tests look for.
Usage: standin_engine.py --port N --mode stall|error|slow|slow-tools|half-tools [--prefill S] [--model NAME]. Runs until killed.
"""
import argparse
import json
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../TestSupport/peers"))
from peer_http import PeerHandler, serve_until_killed  # noqa: E402

PARTIAL = ["Stand-in ", "engine, ", "partial ", "answer: "]
ARGS = None
SERVED = {"requests": 0, "trials": 0, "half_sent": 0}
LOCK = threading.Lock()


def chunk(text=None, finish=None):
    delta = {} if text is None else {"content": text}
    body = {"object": "chat.completion.chunk", "model": ARGS.model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return "data: " + json.dumps(body) + "\n\n"


class Handler(PeerHandler):

    def do_GET(self):
        if self.path == "/health":
            return self.reply(200, {"status": "ok"})
        if self.path == "/props" and ARGS.mode in ("slow-tools", "half-tools"):
            return self.reply(200, {"default_generation_settings": {"n_ctx": 4096}, "total_slots": 1,
                                    "chat_template_caps": {"supports_tools": True}, "build_info": "stand-in"})
        if self.path == "/v1/models":
            return self.reply(200, {"object": "list", "data": [{"id": ARGS.model, "object": "model", "owned_by": "stand-in"}]})
        if self.path == "/served":
            with LOCK:
                return self.reply(200, SERVED)
        self.reply(404, {"error": "not found"})

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        if self.path != "/v1/chat/completions":
            return self.reply(404, {"error": "not found"})
        trial = body.get("max_tokens") == 1
        with LOCK:
            SERVED["trials" if trial else "requests"] += 1
        self.start_chunked()
        try:
            if trial:
                for part in [chunk("ok"), chunk(finish="length"), "data: [DONE]\n\n"]:
                    self.send_chunk(part)
                return self.send_chunk("")  # the empty chunk ends the chunked body
            if ARGS.mode == "slow":
                time.sleep(ARGS.prefill)
            if ARGS.mode == "slow-tools":
                time.sleep(60)
            if ARGS.mode == "half-tools":
                for delta in [{"tool_calls": [{"index": 0, "id": "call_dead", "type": "function",
                                               "function": {"name": "get_time", "arguments": ""}}]},
                              {"tool_calls": [{"index": 0, "function": {"arguments": "{\"tz\": \"Eur"}}]}]:
                    body = {"object": "chat.completion.chunk", "model": ARGS.model,
                            "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
                    self.send_chunk("data: " + json.dumps(body) + "\n\n")
                with LOCK:
                    SERVED["half_sent"] += 1
                time.sleep(60)
                return self.send_chunk("")
            for text in PARTIAL:
                self.send_chunk(chunk(text))
                time.sleep(0.02)
            if ARGS.mode in ("slow", "slow-tools"):
                for part in [chunk("the end."), chunk(finish="stop"), "data: [DONE]\n\n"]:
                    self.send_chunk(part)
                return self.send_chunk("")
            if ARGS.mode == "error":
                self.send_chunk('data: {"error": {"message": "stand-in engine: out of memory", "type": "server_error"}}\n\n')
                return self.send_chunk("")
            time.sleep(60)  # stall: silent until the reader gives up (bounded: the test kills us)
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True


def main():
    global ARGS
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--mode", choices=["stall", "error", "slow", "slow-tools", "half-tools"], required=True)
    parser.add_argument("--prefill", type=float, default=3.0)
    parser.add_argument("--model", default="standin")
    ARGS = parser.parse_args()
    serve_until_killed(ARGS.port, Handler)


if __name__ == "__main__":
    main()
