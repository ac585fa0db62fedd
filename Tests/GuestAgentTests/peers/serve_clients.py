#!/usr/bin/env python3
"""Drives a running `guest serve` with the official `openai` and `ollama` client libraries, as a
user's tool would. Prints one JSON line with, per client and mode, the answer and which brain
the server says answered (the X-Homebase-Brain header; the final `homebase` object where the
library keeps it: openai does, ollama does not).

usage: serve_clients.py HOST:PORT MAX_TOKENS
"""
import json
import sys
import urllib.request

import ollama
from openai import OpenAI

hostport, max_tokens = sys.argv[1], int(sys.argv[2])
messages = [{"role": "user", "content": "Say hello"}]
out = {}

oa = OpenAI(base_url=f"http://{hostport}/v1", api_key="unused", max_retries=0, timeout=120)
raw = oa.chat.completions.with_raw_response.create(model="default", messages=messages, max_tokens=max_tokens)
c = raw.parse()
out["openai_whole"] = {"content": c.choices[0].message.content, "finish_reason": c.choices[0].finish_reason,
                       "header": raw.headers.get("x-homebase-brain"), "homebase": (c.model_extra or {}).get("homebase")}

with oa.chat.completions.with_streaming_response.create(model="default", messages=messages, max_tokens=max_tokens,
                                                        stream=True, stream_options={"include_usage": True}) as resp:
    text, chunks, homebase, finish = "", 0, None, None
    for chunk in resp.parse():
        chunks += 1
        homebase = (chunk.model_extra or {}).get("homebase") or homebase
        for choice in chunk.choices:
            text += choice.delta.content or ""
            finish = choice.finish_reason or finish
    out["openai_stream"] = {"content": text, "chunks": chunks, "finish_reason": finish,
                            "header": resp.headers.get("x-homebase-brain"), "homebase": homebase}

listed = oa.models.list().data
out["openai_models"] = [m.id for m in listed]
out["openai_model_brains"] = {m.id: (m.model_extra or {}).get("homebase_brain") for m in listed}

# The ollama library drops fields it does not know (the final `homebase` object): the brain is
# read from the response header, through the httpx hook the client accepts.
seen = {}
ol = ollama.Client(host=f"http://{hostport}", timeout=120,
                   event_hooks={"response": [lambda resp: seen.update(header=resp.headers.get("x-homebase-brain"))]})
r = ol.chat(model="default", messages=messages, stream=False, options={"num_predict": max_tokens})
out["ollama_whole"] = {"content": r.message.content, "done": r.done, "header": seen.get("header")}
seen.clear()
text, parts, last = "", 0, None
for part in ol.chat(model="default", messages=messages, stream=True, options={"num_predict": max_tokens}):
    parts += 1
    text += part.message.content or ""
    last = part
out["ollama_stream"] = {"content": text, "parts": parts, "done": last.done, "header": seen.get("header")}
out["ollama_tags"] = [m.model for m in ol.list().models]
# The brain of each tag: the library drops the extra field, so read the same list raw.
with urllib.request.urlopen(f"http://{hostport}/api/tags", timeout=30) as resp:
    out["ollama_tag_brains"] = {m["name"]: m.get("homebase_brain") for m in json.load(resp)["models"]}
print(json.dumps(out))
