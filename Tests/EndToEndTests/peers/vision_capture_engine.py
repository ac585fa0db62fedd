#!/usr/bin/env python3
"""A CAPTURE PEER in front of llama-server (EndToEndTests/ImagesThroughRelayEndToEndTests): TEST code.

Forwards every request to --target (the real llama-server), except that:
- GET /props says the model can see (modalities.vision = true), so the Homebase's probe
  advertises vision and the guest's router sends images there (the tiny model cannot see);
- a POST /v1/chat/completions carrying an image (an `image_url` data URL content part) is not
  forwarded: each image's media type, length and SHA-256 are written to --capture (JSON), and
  the answer is a short stand-in stream naming them;
- GET /captured returns what --capture holds;
- with --record (RelayedOptionsEndToEndTests): every other chat request but the one-token trials
  (max_tokens 1) is not forwarded either: its whole body is kept, in order, and answered with a
  short stand-in stream; GET /recorded returns the bodies.
Usage: vision_capture_engine.py --port N --target PORT --capture PATH [--record]. Runs until killed.
"""
import base64
import hashlib
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../TestSupport/peers"))
from peer_http import PeerHandler, front_arguments, serve_until_killed  # noqa: E402

ARGS = None
RECORDED = []


def images(body):
    out = []
    for m in body.get("messages") or []:
        content = m.get("content")
        if not isinstance(content, list):
            continue
        for part in content:
            url = (part.get("image_url") or {}).get("url", "") if part.get("type") == "image_url" else ""
            if url.startswith("data:") and ";base64," in url:
                head, data = url.split(";base64,", 1)
                raw = base64.b64decode(data)
                out.append({"media_type": head[len("data:"):], "length": len(raw), "sha256": hashlib.sha256(raw).hexdigest()})
    return out


class Handler(PeerHandler):

    def to_engine(self, method, body=None):
        """On to llama-server, its /props saying the model can see."""
        def see(status, data):
            if self.path != "/props" or status != 200:
                return data
            props = json.loads(data)
            props.setdefault("modalities", {})["vision"] = True
            return json.dumps(props).encode()
        self.forward(ARGS.target, method, body, edit=see)

    def do_GET(self):
        if self.path == "/recorded":
            return self.reply(200, RECORDED)
        if self.path == "/captured":
            try:
                with open(ARGS.capture) as f:
                    return self.reply(200, json.load(f))
            except FileNotFoundError:
                return self.reply(200, [])
        self.to_engine("GET")

    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = json.loads(raw or b"{}")
        chat = self.path == "/v1/chat/completions"
        seen = images(body) if chat else []
        if ARGS.record and chat and not seen and body.get("max_tokens") != 1:
            RECORDED.append(body)
            return self.answer(body, "recorded")
        if not seen:
            return self.to_engine("POST", raw)
        with open(ARGS.capture, "w") as f:
            json.dump(seen, f)
        self.answer(body, "I got %d image(s)" % len(seen))

    def answer(self, body, text):
        if body.get("stream"):
            self.start_chunked()
            for delta, finish in [({"content": text}, None), ({}, "stop")]:
                chunk = {"object": "chat.completion.chunk", "model": "tiny",
                         "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
                self.send_chunk("data: " + json.dumps(chunk) + "\n\n")
            self.send_chunk("data: [DONE]\n\n")
            return self.send_chunk("")
        self.reply(200, {"object": "chat.completion", "model": "tiny", "choices": [
            {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}]})


def main():
    global ARGS
    parser = front_arguments()
    parser.add_argument("--capture", required=True)
    parser.add_argument("--record", action="store_true")
    ARGS = parser.parse_args()
    serve_until_killed(ARGS.port, Handler)


if __name__ == "__main__":
    main()
