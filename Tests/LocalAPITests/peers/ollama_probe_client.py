#!/usr/bin/env python3
"""Drives `guest serve`'s Ollama generate and probe endpoints with the official `ollama`
client library. Prints one JSON line.

usage: ollama_probe_client.py HOST SCENARIO [MODEL [TIMEOUT_SECONDS]]
  generate  generate(stream=False) and generate(stream=True) with a suffix: the texts, done_reason
  probes    GET /api/version (this library has no version(): its own HTTP client), ps(), show(MODEL): version, running names, capabilities, context length
  pull      pull(MODEL): the error raised
  embed     embed(MODEL, two texts) and the older embeddings(MODEL, prompt): sizes
"""
import json
import sys

import ollama

host, scenario = sys.argv[1], sys.argv[2]
model = sys.argv[3] if len(sys.argv) > 3 else "fake-brain"
client = ollama.Client(host=host, timeout=float(sys.argv[4]) if len(sys.argv) > 4 else 30)
out = {}
try:
    if scenario == "generate":
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
