"""Embeddings through guest serve with the official clients, compared with an engine's own.

usage: embed_clients.py BASE MODEL ENGINE_URL TIMEOUT

openai's embeddings.create (floats) and ollama's embed, both of ["one", "two"], then the same
texts straight from ENGINE_URL's /v1/embeddings: prints one JSON line with each client's
X-Homebase-Brain header, vector sizes and the largest difference from the engine's vectors
(equal within float tolerance: the same model answered), or each client's error.
"""
import json
import sys
import urllib.request

import ollama
import openai
from openai import OpenAI

base, model, engine, timeout = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
texts = ["one", "two"]
out = {}


def engine_vectors():
    body = json.dumps({"model": model, "input": texts}).encode()
    req = urllib.request.Request(engine + "/v1/embeddings", data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        data = sorted(json.load(r)["data"], key=lambda d: d["index"])
    return [d["embedding"] for d in data]


def max_diff(a, b):
    if len(a) != len(b) or any(len(x) != len(y) for x, y in zip(a, b)):
        return None
    return max(abs(x - y) for u, v in zip(a, b) for x, y in zip(u, v))


try:
    raw = OpenAI(base_url=base + "/v1", api_key="k", max_retries=0, timeout=timeout).embeddings.with_raw_response.create(
        model=model, input=texts, encoding_format="float")
    r = raw.parse()
    out["openai"] = {"header": raw.headers.get("x-homebase-brain"), "sizes": [len(d.embedding) for d in r.data],
                     "vectors": [d.embedding for d in r.data], "model": r.model}
except openai.APIStatusError as e:
    out["openai"] = {"raised": type(e).__name__, "status": e.status_code, "message": str(e)}
except openai.APIError as e:
    out["openai"] = {"raised": type(e).__name__, "message": str(e)}

client = ollama.Client(host=base, timeout=timeout)
try:
    e = client.embed(model=model, input=texts)
    # The client does not show headers: the same request raw, for X-Homebase-Brain.
    h = client._request_raw("POST", "/api/embed", json={"model": model, "input": texts}).headers
    out["ollama"] = {"header": h.get("x-homebase-brain"), "sizes": [len(v) for v in e.embeddings],
                     "vectors": [list(v) for v in e.embeddings]}
except ollama.ResponseError as e:
    out["ollama"] = {"raised": "ResponseError", "status": e.status_code, "message": str(e.error)}
except Exception as e:  # noqa: BLE001 - the test wants to know what the client did
    out["ollama"] = {"raised": type(e).__name__, "message": str(e)}

try:
    mine = engine_vectors()
    for k in ("openai", "ollama"):
        if "vectors" in out[k]:
            out[k]["max_diff"] = max_diff(out[k].pop("vectors"), mine)
    out["engine_sizes"] = [len(v) for v in mine]
except Exception as e:  # noqa: BLE001 - a dead engine is reported, not raised
    out["engine_error"] = str(e)
    for k in ("openai", "ollama"):
        out[k].pop("vectors", None)
print(json.dumps(out))
