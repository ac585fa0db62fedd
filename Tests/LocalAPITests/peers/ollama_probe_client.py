#!/usr/bin/env python3
"""Drives `guest serve`'s Ollama generate and probe endpoints with the official `ollama`
client library. Prints one JSON line.

usage: ollama_probe_client.py HOST SCENARIO [MODEL [TIMEOUT_SECONDS]]
  generate  generate(stream=False) and generate(stream=True) with a suffix: the texts, done_reason
  probes    GET /api/version (this library has no version(): its own HTTP client), ps(), show(MODEL): version, running names, capabilities, context length
  pull      pull(MODEL): the error raised
  embed     embed(MODEL, two texts) and the older embeddings(MODEL, prompt): sizes
  brains    (args: HOST brains MODEL EMBED_MODEL TIMEOUT) each call with the X-Homebase-Brain header its
            answer had (an httpx response hook: the library shows no headers), or the error it raised:
            generate with a suffix, generate streamed, chat, embed(EMBED_MODEL), embed("default"), version, ps, list, show
            (of MODEL and EMBED_MODEL: capabilities and the homebase_brain field)
"""
import json
import sys

import ollama

host, scenario = sys.argv[1], sys.argv[2]
model = sys.argv[3] if len(sys.argv) > 3 else "fake-brain"
SEEN = []  # (path, X-Homebase-Brain, homebase_brain of a probe's body) of each response, in order


def hook(response):
    path = response.request.url.path
    field = None
    if path in ("/api/show", "/api/ps", "/api/tags"):
        response.read()
        body = response.json()
        field = body.get("homebase_brain") if path == "/api/show" else [m.get("homebase_brain") for m in body.get("models", [])]
    SEEN.append((path, response.headers.get("x-homebase-brain"), field))


if scenario == "brains":
    client = ollama.Client(host=host, timeout=float(sys.argv[5]), event_hooks={"response": [hook]})
else:
    client = ollama.Client(host=host, timeout=float(sys.argv[4]) if len(sys.argv) > 4 else 30)
out = {}


def brains():
    embed_model = sys.argv[4]
    result = {}

    def call(name, f):
        before = len(SEEN)
        try:
            value = f()
            entry = {"ok": True}
            if value is not None:
                entry.update(value)
        except ollama.ResponseError as e:
            entry = {"ok": False, "status": e.status_code, "message": str(e.error)}
        except Exception as e:  # noqa: BLE001 - the test wants to know what the client did
            entry = {"ok": False, "raised": type(e).__name__, "message": str(e)}
        seen = SEEN[before:]
        entry["header"] = seen[-1][1] if seen else None
        entry["field"] = seen[-1][2] if seen else None
        result[name] = entry

    call("generate_suffix", lambda: {"text": client.generate(model=model, prompt="def add(a, b):\n", suffix="\n    return c",
                                                             stream=False).response})
    call("generate_stream", lambda: {"last_done": list(client.generate(model=model, prompt="Hello", stream=True))[-1].done})
    call("chat", lambda: {"text": client.chat(model=model, messages=[{"role": "user", "content": "hi"}]).message.content})
    call("embed", lambda: {"sizes": [len(v) for v in client.embed(model=embed_model, input=["one", "two"]).embeddings]})
    call("embed_default", lambda: {"sizes": [len(v) for v in client.embed(model="default", input=["one", "two"]).embeddings]})
    call("version", lambda: {"version": client._request_raw("GET", "/api/version").json().get("version")})
    call("ps", lambda: {"names": [m.model for m in client.ps().models]})
    call("list", lambda: {"names": [m.model for m in client.list().models]})
    call("show", lambda: {"capabilities": list(client.show(model).capabilities or [])})
    call("show_embed", lambda: {"capabilities": list(client.show(embed_model).capabilities or [])})
    return result


try:
    if scenario == "brains":
        out = brains()
    elif scenario == "generate":
        r = client.generate(model=model, prompt="def add(a, b):\n", suffix="\n    return c", stream=False)
        parts = list(client.generate(model=model, prompt="Hello", stream=True))
        out = {"whole": r.response, "done_reason": r.done_reason, "eval_count": r.eval_count,
               "streamed": "".join(p.response for p in parts), "last_done": parts[-1].done}
    elif scenario == "probes":
        v = client._request_raw("GET", "/api/version").json()
        ps = client.ps()
        s = client.show(model)
        info = s.modelinfo or {}
        ctx = next((v2 for k, v2 in info.items() if k.endswith(".context_length")), None)
        out = {"version": v.get("version"), "running": [m.model for m in ps.models],
               "capabilities": list(s.capabilities or []), "context_length": ctx,
               "family": s.details.family if s.details else None}
    elif scenario == "embed":
        e = client.embed(model=model, input=["one", "two"])
        old = client.embeddings(model=model, prompt="one")
        out = {"count": len(e.embeddings), "sizes": [len(v) for v in e.embeddings], "old_size": len(old.embedding),
               "same": [round(x, 5) for x in e.embeddings[0][:4]] == [round(x, 5) for x in old.embedding[:4]]}
    elif scenario == "pull":
        client.pull(model)
        out = {"raised": None}
except ollama.ResponseError as e:
    out = {"raised": "ResponseError", "status": e.status_code, "message": str(e.error)}
except Exception as e:  # noqa: BLE001 - the test wants to know what the client did
    out = {"raised": type(e).__name__, "message": str(e)}
print(json.dumps(out))
