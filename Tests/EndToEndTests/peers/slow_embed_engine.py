#!/usr/bin/env python3
"""A DELAY PEER in front of an embedding llama-server (EmbeddingsEndToEndTests): TEST code, not a model.

Forwards every request to --target (the real llama-server started with --embeddings), except
that a POST /v1/embeddings other than the Homebase probe's (input "probe") is held for --hold
seconds before it is forwarded: an engine slow to embed, so a test can kill the Homebase while
an embed-request is outstanding. GET /held counts the requests held so far.
Usage: slow_embed_engine.py --port N --target PORT [--hold S]. Runs until killed.
"""
import json
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../TestSupport/peers"))
from peer_http import PeerHandler, front_arguments, serve_until_killed  # noqa: E402

ARGS = None
HELD = {"held": 0}
LOCK = threading.Lock()


class Handler(PeerHandler):
    def do_GET(self):
        if self.path == "/held":
            with LOCK:
                return self.reply(200, HELD)
        self.forward(ARGS.target, "GET")

    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path == "/v1/embeddings" and json.loads(raw or b"{}").get("input") != "probe":
            with LOCK:
                HELD["held"] += 1
            time.sleep(ARGS.hold)
        try:
            self.forward(ARGS.target, "POST", raw)
        except (BrokenPipeError, ConnectionResetError):
            pass


def main():
    global ARGS
    parser = front_arguments()
    parser.add_argument("--hold", type=float, default=600)
    ARGS = parser.parse_args()
    serve_until_killed(ARGS.port, Handler)


if __name__ == "__main__":
    main()
