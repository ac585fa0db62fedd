"""A stand-in for the Hugging Face hub: the model listing API, repo trees, and file downloads
through a CDN on a second loopback host (127.0.0.2), as the real hub redirects LFS files.

Usage: hub.py TINY_MODEL_PATH [TINY_MMPROJ_PATH]   -> prints "PORT <hub port>" and serves until stdin closes.
With TINY_MMPROJ_PATH (scripts/engine/make_tiny_mmproj.py) the hub also has
hbtest/Llama-Tiny-Vision-GGUF: the tiny model and that projector, so it can "see".

Control (test-only endpoints on the hub host):
  GET /_log            JSON list of every request: {"host", "path", "headers"}
  GET /_mode?k=v...    sets download modes for the CDN:
      cut=N            close the connection after N body bytes (once, then normal)
      ignore_range=1   answer 200 with the whole file even when a Range is asked (once)
      slow=N           send N bytes then sleep 0.05 s, repeatedly (until reset)
      hold=N           send N bytes, then wait for release=1 before the rest (once)
      hold_wait=S      how long a hold waits for the release (default 30 s)
      release=1        lets a held transfer go on
      corrupt=1        flip one byte in the middle of the next file body, ETag unchanged (once)
      reset=1          back to normal
"""
import hashlib, json, sys, threading, time
from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler
from urllib.parse import urlparse, parse_qs, quote

TINY = open(sys.argv[1], "rb").read()
LOG, MODE, LOCK = [], {}, threading.Lock()
RELEASED = threading.Event()
CHATML_TOOLS = "{%- if tools %}<|im_start|>system\n{{ tools | tojson }}<|im_end|>{% endif %}{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>{% endfor %}"
PLAIN = "{% for m in messages %}{{ m.content }}{% endfor %}"

def fake(size, seed):
    block = hashlib.sha256(seed.encode()).digest()
    return (block * (size // len(block) + 1))[:size]

# Repos: (id, pipeline_tag or None, gguf dict or None, [(path, size or bytes)]).
GB = 1_000_000_000
REPOS = {
  "hbtest": [
    ("hbtest/Qwen2.5-VL-3B-Instruct-GGUF", "image-text-to-text",
     {"total": 3_090_000_000, "architecture": "qwen2vl", "context_length": 128000, "chat_template": CHATML_TOOLS},
     [("Qwen2.5-VL-3B-Instruct-Q4_K_M.gguf", 1_930_000_000), ("Qwen2.5-VL-3B-Instruct-Q8_0.gguf", 3_290_000_000),
      ("Qwen2.5-VL-3B-Instruct-f16.gguf", 6_180_000_000), ("mmproj-Qwen2.5-VL-3B-Instruct-f16.gguf", 1_340_000_000),
      ("mmproj-Qwen2.5-VL-3B-Instruct-Q8_0.gguf", 845_000_000)]),
    # No pipeline tag, but an mmproj file: vision by the file. Empty template: name heuristic (-it).
    ("hbtest/gemma-3-4b-it-GGUF", None, {"total": 3_880_000_000, "architecture": "gemma3", "context_length": 131072},
     [("gemma-3-4b-it-Q4_K_M.gguf", 2_490_000_000), ("gemma-3-4b-it-Q5_K_M.gguf", 2_830_000_000),
      ("gemma-3-4b-it-BF16.gguf", 7_770_000_000), ("mmproj-model-f16.gguf", 851_000_000)]),
    # Shards: a big quant split in three, in a folder; plus the small shard repo used for downloads.
    ("hbtest/Llama-4-Scout-17B-16E-Instruct-GGUF", "image-text-to-text",
     {"total": 107_770_000_000, "architecture": "llama4", "chat_template": CHATML_TOOLS},
     [("Q4_K_M/Llama-4-Scout-17B-16E-Instruct-Q4_K_M-00001-of-00003.gguf", 29_900_000_000),
      ("Q4_K_M/Llama-4-Scout-17B-16E-Instruct-Q4_K_M-00002-of-00003.gguf", 29_800_000_000),
      ("Q4_K_M/Llama-4-Scout-17B-16E-Instruct-Q4_K_M-00003-of-00003.gguf", 5_900_000_000),
      ("Q2_K/Llama-4-Scout-17B-16E-Instruct-Q2_K-00001-of-00002.gguf", 30_000_000_000),
      ("mmproj-F16.gguf", 1_750_000_000)]),
    ("hbtest/SmolVLM-256M-Instruct-GGUF", "image-text-to-text",
     {"total": 162_830_000, "architecture": "llama", "context_length": 8192, "chat_template": CHATML_TOOLS},
     [("SmolVLM-256M-Instruct-Q8_0-00001-of-00003.gguf", 300_000), ("SmolVLM-256M-Instruct-Q8_0-00002-of-00003.gguf", 300_000),
      ("SmolVLM-256M-Instruct-Q8_0-00003-of-00003.gguf", 123_457), ("mmproj-SmolVLM-256M-Instruct-f16.gguf", 200_001)]),
    # Text-only, tool-capable: shown only with the text-only flag.
    ("hbtest/Qwen2.5-Coder-1.5B-Instruct-GGUF", "text-generation",
     {"total": 1_540_000_000, "architecture": "qwen2", "context_length": 32768, "chat_template": CHATML_TOOLS},
     [("qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", 986_000_000), ("qwen2.5-coder-1.5b-instruct-q8_0.gguf", 1_650_000_000)]),
    # The tiny real model: text-only, tools template, served from the engine cache.
    ("hbtest/Llama-Tiny-0.5M-Instruct-GGUF", "text-generation",
     {"total": 118_000, "architecture": "llama", "context_length": 2048, "chat_template": CHATML_TOOLS},
     [("Llama-Tiny-0.5M-Instruct-F32.gguf", TINY)]),
    # A base model whose template cannot render tools: gated out.
    ("hbtest/Mistral-7B-v0.3-GGUF", "text-generation",
     {"total": 7_250_000_000, "architecture": "llama", "chat_template": PLAIN},
     [("Mistral-7B-v0.3-Q4_K_M.gguf", 4_370_000_000)]),
  ],
  "hbother": [
    # Duplicate of a repo above (merged by id).
    ("hbtest/gemma-3-4b-it-GGUF", None, {}, [("gemma-3-4b-it-Q4_K_M.gguf", 2_490_000_000)]),
    # An architecture llama.cpp cannot serve as chat.
    ("hbother/whisper-large-v3-Instruct-GGUF", "automatic-speech-recognition", {"architecture": "whisper"},
     [("whisper-large-v3-q5_0.gguf", 1_080_000_000)]),
    # Missing architecture and empty config, vision tag, name says instruct: benefit of the doubt.
    ("hbother/MiniCPM-V-2_6-8B-Instruct-GGUF", "image-text-to-text", {},
     [("ggml-model-Q4_K_M.gguf", 4_680_000_000), ("mmproj-model-f16.gguf", 1_040_000_000)]),
    # No gguf expansion at all, any-to-any tag.
    ("hbother/Qwen2.5-Omni-7B-Instruct-GGUF", "any-to-any", None,
     [("Qwen2.5-Omni-7B-Q4_K_M.gguf", 4_680_000_000), ("mmproj-Qwen2.5-Omni-7B-f16.gguf", 1_350_000_000)]),
    # Unparseable name: no family, no size.
    ("hbother/my-cool-merge-Instruct-GGUF", "image-text-to-text", {"architecture": "llama", "chat_template": CHATML_TOOLS},
     [("merge-Q4_K_M.gguf", 4_000_000_000), ("mmproj-f16.gguf", 600_000_000)]),
    # Too big for the test machine's RAM limit.
    ("hbother/Llama-3.2-90B-Vision-Instruct-GGUF", "image-text-to-text", {"architecture": "mllama", "chat_template": CHATML_TOOLS},
     [("Llama-3.2-90B-Vision-Instruct-Q4_K_M.gguf", 55_000_000_000)]),
    # Its tree endpoint fails (500): sizes are estimated from parameters, labelled as such.
    ("hbother/Phi-3.5-Vision-4B-Instruct-GGUF", "image-text-to-text",
     {"total": 4_150_000_000, "architecture": "phi3", "chat_template": CHATML_TOOLS},
     [("Phi-3.5-Vision-4B-Instruct-Q4_K_M.gguf", 2_500_000_000), ("mmproj-Phi-3.5-Vision-f16.gguf", 600_000_000)]),
    ("hbother/Mistral-Small-3.1-24B-Instruct-2503-GGUF", "image-text-to-text",
     {"total": 23_570_000_000, "architecture": "llama", "chat_template": CHATML_TOOLS},
     [("Mistral-Small-3.1-24B-Instruct-2503-Q4_K_M.gguf", 14_300_000_000), ("mmproj-F16.gguf", 879_000_000)]),
  ],
}

if len(sys.argv) > 2:
    # The tiny model with the tiny random projector: llama.cpp loads it with --mmproj (it sees nothing).
    REPOS["hbtest"].append(
        ("hbtest/Llama-Tiny-Vision-GGUF", "image-text-to-text",
         {"total": 118_000, "architecture": "llama", "context_length": 2048, "chat_template": CHATML_TOOLS},
         [("Llama-Tiny-Vision-F32.gguf", TINY), ("mmproj-Llama-Tiny-Vision-F32.gguf", open(sys.argv[2], "rb").read())]))

BROKEN_TREES = {"hbother/Phi-3.5-Vision-4B-Instruct-GGUF"}
FILES = {}  # (repo, path) -> (size, bytes or None, sha256)
for org in REPOS.values():
    for rid, _, _, files in org:
        for path, data in files:
            if isinstance(data, bytes):
                FILES[(rid, path)] = (len(data), data, hashlib.sha256(data).hexdigest())
            elif data <= 10_000_000:
                body = fake(data, rid + path)
                FILES[(rid, path)] = (data, body, hashlib.sha256(body).hexdigest())
            else:
                FILES[(rid, path)] = (data, None, hashlib.sha256((rid + path).encode()).hexdigest())

def by_id(rid):
    for org in REPOS.values():
        for r in org:
            if r[0] == rid:
                return r
    return None

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass

    def send_json(self, obj, status=200, extra=()):
        body = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        for k, v in extra: self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        with LOCK:
            LOG.append({"host": self.headers.get("Host", ""), "path": self.path, "headers": dict(self.headers)})
        url = urlparse(self.path)
        q = parse_qs(url.query)
        if self.server.role == "cdn":
            return self.serve_file(url.path)
        if url.path == "/_log":
            with LOCK: return self.send_json(LOG)
        if url.path == "/_mode":
            with LOCK:
                if "reset" in q: MODE.clear()
                if "hold" in q: RELEASED.clear()
                if "release" in q: RELEASED.set()
                for k, v in q.items():
                    if k not in ("reset", "release"): MODE[k] = int(v[0])
            return self.send_json(MODE)
        if url.path == "/api/models":
            return self.listing(q)
        parts = url.path.strip("/").split("/")
        if len(parts) >= 6 and parts[:2] == ["api", "models"] and parts[4:6] == ["tree", "main"]:
            return self.tree("/".join(parts[2:4]))
        if len(parts) >= 5 and parts[2:4] == ["resolve", "main"]:
            return self.resolve("/".join(parts[:2]), "/".join(parts[4:]))
        self.send_json({"error": "Not Found"}, 404)

    def listing(self, q):
        author = q.get("author", [""])[0]
        limit = int(q.get("limit", ["1000"])[0])
        cursor = int(q.get("cursor", ["0"])[0])
        repos = REPOS.get(author, [])
        page = repos[cursor:cursor + limit]
        out = []
        for rid, tag, gguf, files in page:
            item = {"_id": hashlib.md5(rid.encode()).hexdigest()[:24], "id": rid}
            if tag: item["pipeline_tag"] = tag
            if gguf is not None: item["gguf"] = gguf
            item["siblings"] = [{"rfilename": ".gitattributes"}, {"rfilename": "README.md"}] + [{"rfilename": p} for p, _ in files]
            out.append(item)
        extra = []
        if cursor + limit < len(repos):
            host = self.headers.get("Host")
            extra.append(("Link", f'<http://{host}/api/models?author={author}&filter=gguf&limit={limit}&cursor={cursor + limit}>; rel="next"'))
        self.send_json(out, extra=extra)

    def tree(self, rid):
        repo = by_id(rid)
        if rid in BROKEN_TREES:
            return self.send_json({"error": "Internal Error"}, 500)
        if not repo:
            return self.send_json({"error": "Repository not found"}, 404)
        out = [{"type": "file", "oid": "a" * 40, "size": 1570, "path": ".gitattributes"},
               {"type": "file", "oid": "b" * 40, "size": 2200, "path": "README.md"}]
        dirs = sorted({p.rsplit("/", 1)[0] for p, _ in repo[3] if "/" in p})
        out += [{"type": "directory", "oid": "c" * 40, "size": 0, "path": d} for d in dirs]
        for p, _ in repo[3]:
            size, _, sha = FILES[(rid, p)]
            out.append({"type": "file", "oid": "d" * 40, "size": size, "path": p,
                        "lfs": {"oid": sha, "size": size, "pointerSize": 135}})
        self.send_json(out)

    def resolve(self, rid, path):
        if (rid, path) not in FILES:
            return self.send_json({"error": "Entry not found"}, 404)
        size, _, sha = FILES[(rid, path)]
        cdn = self.server.cdn_port
        self.send_response(302)
        self.send_header("Location", f"http://127.0.0.2:{cdn}/repos/{quote(rid)}/{sha}/{quote(path)}?X-Amz-Signature=abc")
        self.send_header("X-Linked-Size", str(size))
        self.send_header("X-Linked-Etag", f'"{sha}"')
        self.send_header("Content-Length", "0")
        self.send_header("Connection", "close")
        self.end_headers()

    def serve_file(self, path):
        parts = path.strip("/").split("/")
        rid, path = "/".join(parts[1:3]), "/".join(parts[4:])
        from urllib.parse import unquote
        rid, path = unquote(rid), unquote(path)
        if (rid, path) not in FILES or FILES[(rid, path)][1] is None:
            return self.send_json({"error": "no such blob"}, 404)
        size, data, sha = FILES[(rid, path)]
        start, status = 0, 200
        rng, if_range = self.headers.get("Range"), self.headers.get("If-Range")
        with LOCK:
            ignore = MODE.pop("ignore_range", 0)
            cut = MODE.pop("cut", None)
            hold = MODE.pop("hold", None)
            corrupt = MODE.pop("corrupt", 0)
            hold_wait = MODE.get("hold_wait", 30)
            slow = MODE.get("slow", 0)
        if rng and not ignore and (if_range is None or if_range.strip('"') == sha):
            start = int(rng.split("=")[1].split("-")[0])
            if start >= size:
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{size}")
                self.send_header("Content-Length", "0")
                self.send_header("Connection", "close")
                self.end_headers()
                return
            status = 206
        body = data[start:]
        if corrupt and body:
            mid = len(body) // 2
            body = body[:mid] + bytes([body[mid] ^ 0xFF]) + body[mid + 1:]
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("ETag", f'"{sha}"')
        self.send_header("Accept-Ranges", "bytes")
        if status == 206:
            self.send_header("Content-Range", f"bytes {start}-{size - 1}/{size}")
        self.send_header("Connection", "close")
        self.end_headers()
        if cut is not None:
            self.wfile.write(body[:cut])
            self.wfile.flush()
            self.close_connection = True
            return
        if hold is not None:
            self.wfile.write(body[:hold]); self.wfile.flush()
            RELEASED.wait(hold_wait)  # bounded: a test that never releases still ends
            body = body[hold:]
        if slow:
            for i in range(0, len(body), slow):
                try:
                    self.wfile.write(body[i:i + slow]); self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    return
                time.sleep(0.05)
            return
        self.wfile.write(body)

def serve(host, role, cdn_port=0):
    s = ThreadingHTTPServer((host, 0), Handler)
    s.daemon_threads = True
    s.role, s.cdn_port = role, cdn_port
    threading.Thread(target=s.serve_forever, daemon=True).start()
    return s

cdn = serve("127.0.0.2", "cdn")
hub = serve("127.0.0.1", "hub", cdn.server_address[1])
print(f"PORT {hub.server_address[1]}", flush=True)
sys.stdin.read()
