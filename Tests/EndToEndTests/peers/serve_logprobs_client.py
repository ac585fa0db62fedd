#!/usr/bin/env python3
"""Asks a real `guest serve` for logprobs with the official clients. Prints one JSON line.

usage: serve_logprobs_client.py BASE_URL SCENARIO
  openai-whole    chat.completions, logprobs=True, top_logprobs=2, not streamed
  openai-stream   the same, streamed: every chunk's choices[0].logprobs.content gathered
  ollama-whole    ollama chat, logprobs=True, top_logprobs=2, not streamed
  ollama-stream   the same, streamed
The JSON: "brain" (the X-Homebase-Brain header with openai; the `homebase` object's brain with
ollama, read from the raw response), "text", "tokens" (the logprob entries: token, logprob,
number of alternatives).
"""
import json
import os
import sys

import ollama
from openai import OpenAI

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../TestSupport/peers"))
from client_kit import ollama_brain, raised  # noqa: E402

base, scenario = sys.argv[1], sys.argv[2]
ASK = [{"role": "user", "content": "Say something."}]
out = {}


def entry(token, logprob, top):
    return {"token": token, "logprob": logprob, "top": len(top or [])}


try:
    if scenario.startswith("openai"):
        client = OpenAI(base_url=base + "/v1", api_key="none", max_retries=0, timeout=120)
        kwargs = dict(model="default", messages=ASK, max_tokens=8, temperature=0, logprobs=True, top_logprobs=2)
        if scenario == "openai-whole":
            raw = client.chat.completions.with_raw_response.create(**kwargs)
            out["brain"] = raw.headers.get("x-homebase-brain")
            c = raw.parse()
            out["text"] = c.choices[0].message.content
            lp = c.choices[0].logprobs
            out["tokens"] = [entry(t.token, t.logprob, t.top_logprobs) for t in (lp.content if lp else None) or []]
        else:
            raw = client.chat.completions.with_raw_response.create(stream=True, **kwargs)
            out["brain"] = raw.headers.get("x-homebase-brain")
            text, tokens = "", []
            for chunk in raw.parse():
                for choice in chunk.choices:
                    text += choice.delta.content or ""
                    if choice.logprobs and choice.logprobs.content:
                        tokens += [entry(t.token, t.logprob, t.top_logprobs) for t in choice.logprobs.content]
            out["text"], out["tokens"] = text, tokens
    else:
        client = ollama.Client(host=base, timeout=120)
        kwargs = dict(model="default", messages=ASK, options={"num_predict": 8, "temperature": 0}, logprobs=True, top_logprobs=2)
        text, tokens = "", []
        if scenario == "ollama-whole":
            parts = [client.chat(**kwargs)]
        else:
            parts = list(client.chat(stream=True, **kwargs))
        for r in parts:
            text += r.message.content or ""
            tokens += [entry(t.token, t.logprob, t.top_logprobs) for t in r.logprobs or []]
        out["text"], out["tokens"] = text, tokens
        out["brain"] = ollama_brain(base, ASK)
except Exception as e:  # noqa: BLE001 - the test wants to know what the client did
    out = raised(e)
print(json.dumps(out))
