#!/usr/bin/env python3
"""STAND-IN ENGINE (not a model): speaks enough of llama-server's HTTP API for the Homebase's
runtime probe and its streaming chat client, and streams canned answers token by token.

The answer's topic is the word after "topic:" in the last user message (cooking, medicine,
law). Each answer is a number of sentences drawn at random from that topic's pool (corpus.py;
how many depends on the topic, LENGTHS, as real answers' lengths do),
tokenised by a regex (words, spaces, punctuation as separate tokens, words over 6 letters in
two), streamed with a rhythm that differs by topic (RHYTHM: tokens per SSE event and the gap
between events, uniform jitter; medicine comes in bursts as under speculative decoding), after a
prefill of PREFILL_MS + 0.3 ms per prompt character. With EMIT_LOG, one JSON line per answer:
the prompt's `id:N`, the text, and (monotonic time, characters so far) per event, so the bench
can tell how long each token waited for the reader. Usage: standin_engine.py PORT [SEED] [EMIT_LOG]."""
import json, random, re, sys, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from corpus import POOLS

PORT = int(sys.argv[1])
RNG = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
# topic -> (tokens per event (min, max), gap between events in ms (min, max))
RHYTHM = {"cooking": ((1, 1), (20.0, 40.0)), "medicine": ((1, 4), (45.0, 110.0)), "law": ((1, 1), (30.0, 50.0))}
EMIT = open(sys.argv[3], "a", buffering=1) if len(sys.argv) > 3 else None
PREFILL_MS = 40.0
TOKEN = re.compile(r"[A-Za-z]{1,6}|[0-9]+|\s+|[^\sA-Za-z0-9]")

LENGTHS = {"cooking": (3, 7), "medicine": (6, 11), "law": (4, 9)}

def answer(prompt):
    m = re.search(r"topic:\s*(\w+)", prompt)
    topic = m.group(1) if m and m.group(1) in POOLS else "cooking"
    return topic, " ".join(RNG.sample(POOLS[topic], RNG.randint(*LENGTHS[topic])))

class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def js(self, code, obj):
        b = json.dumps(obj).encode()
        self.send_response(code); self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(b))); self.end_headers(); self.wfile.write(b)
    def do_GET(self):
        if self.path == "/props":
            return self.js(200, {"default_generation_settings": {"n_ctx": 4096}, "total_slots": 4, "build_info": "standin"})
        if self.path == "/health": return self.js(200, {"status": "ok"})
        if self.path == "/v1/models":
            return self.js(200, {"object": "list", "data": [{"id": "tiny", "object": "model", "owned_by": "standin"}]})
        self.js(404, {"error": "not found"})
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        if not self.path.endswith("/chat/completions"): return self.js(404, {"error": "not found"})
        msgs = body.get("messages", [])
        prompt = next((m.get("content") for m in reversed(msgs) if m.get("role") == "user"), "") or ""
        if not isinstance(prompt, str): prompt = json.dumps(prompt)
        topic, text = answer(prompt)
        toks = TOKEN.findall(text)
        if body.get("max_tokens") is not None: toks = toks[: int(body["max_tokens"])]
        base = {"id": "standin", "object": "chat.completion.chunk", "created": int(time.time()), "model": "tiny"}
        if not body.get("stream"):
            return self.js(200, {**base, "object": "chat.completion", "choices": [{"index": 0, "finish_reason": "stop",
                "message": {"role": "assistant", "content": "".join(toks)}}], "usage": {"prompt_tokens": 1, "completion_tokens": len(toks)}})
        self.send_response(200); self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked"); self.end_headers()
        def ev(obj):
            d = b"data: " + json.dumps(obj).encode() + b"\n\n"
            self.wfile.write(b"%x\r\n%s\r\n" % (len(d), d)); self.wfile.flush()
        try:
            time.sleep((PREFILL_MS + 0.3 * len(prompt)) / 1000)
            (kmin, kmax), gap = RHYTHM[topic]
            i, sent, emits = 0, 0, []
            while i < len(toks):
                k = RNG.randint(kmin, kmax)
                piece = "".join(toks[i:i + k]); i += k
                ev({**base, "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]})
                sent += len(piece); emits.append((time.monotonic(), sent))
                time.sleep(RNG.uniform(*gap) / 1000)
            ev({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": len(prompt) // 4, "completion_tokens": len(toks)}})
            d = b"data: [DONE]\n\n"; self.wfile.write(b"%x\r\n%s\r\n0\r\n\r\n" % (len(d), d)); self.wfile.flush()
            if EMIT:
                m = re.search(r"id:(\d+)", prompt)
                EMIT.write(json.dumps({"id": int(m.group(1)) if m else -1, "text": "".join(toks), "emits": emits}) + "\n")
        except (BrokenPipeError, ConnectionResetError):
            pass

ThreadingHTTPServer(("127.0.0.1", PORT), H).serve_forever()
