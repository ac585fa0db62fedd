#!/usr/bin/env python3
"""Sends every option #23 names through a real `guest serve`, with the official clients, to a
Homebase whose engine is the capture peer (RelayedOptionsEndToEndTests). Prints one JSON line:
"brains" (who answered each request, in order), "texts".

usage: serve_capture_options_client.py BASE_URL
  1. openai, streamed: stop, top_p, seed, presence/frequency penalties, response_format
     json_object, logprobs, top_logprobs, max_tokens, temperature, tools, tool_choice, and through
     extra_body llama.cpp's top_k, min_p, repeat_penalty and an `extra` key (mirostat)
  2. openai, not streamed: response_format json_schema and max_tokens, nothing else (no temperature)
  3. ollama chat: options num_ctx, num_predict, temperature, top_p, top_k, min_p, seed, stop,
     repeat/presence/frequency penalties, mirostat; format "json", logprobs, top_logprobs, tools
"""
import json
import os
import sys

import ollama
from openai import OpenAI

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../TestSupport/peers"))
from client_kit import GET_TIME, ollama_brain, raised  # noqa: E402

base = sys.argv[1]
SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"], "additionalProperties": False}
ASK = [{"role": "user", "content": "What time is it?"}]
out = {"brains": [], "texts": []}
try:
    oa = OpenAI(base_url=base + "/v1", api_key="none", max_retries=0, timeout=120)
    raw = oa.chat.completions.with_raw_response.create(
        model="default", messages=ASK, stream=True, stop=["END", "STOP"], top_p=0.875, seed=4242,
        presence_penalty=0.5, frequency_penalty=0.25, response_format={"type": "json_object"},
        logprobs=True, top_logprobs=3, max_tokens=17, temperature=0.375, tools=[GET_TIME], tool_choice="required",
        extra_body={"top_k": 7, "min_p": 0.0625, "repeat_penalty": 1.125, "mirostat": 2})
    out["brains"].append(raw.headers.get("x-homebase-brain"))
    out["texts"].append("".join(c.choices[0].delta.content or "" for c in raw.parse() if c.choices))

    raw = oa.chat.completions.with_raw_response.create(
        model="default", messages=ASK, max_tokens=5,
        response_format={"type": "json_schema", "json_schema": {"name": "flag", "schema": SCHEMA, "strict": True}})
    out["brains"].append(raw.headers.get("x-homebase-brain"))
    out["texts"].append(raw.parse().choices[0].message.content)

    ol = ollama.Client(host=base, timeout=120)
    r = ol.chat(model="default", messages=ASK, tools=[GET_TIME], format="json", logprobs=True, top_logprobs=4,
                options={"num_ctx": 3072, "num_predict": 11, "temperature": 0.625, "top_p": 0.75, "top_k": 9,
                         "min_p": 0.125, "seed": 99, "stop": ["HALT"], "repeat_penalty": 1.25,
                         "presence_penalty": 0.75, "frequency_penalty": 0.875, "mirostat": 1})
    out["texts"].append(r.message.content)
    out["brains"].append(ollama_brain(base, ASK))  # a 4th request
except Exception as e:  # noqa: BLE001 - the test wants to know what the client did
    out = raised(e)
print(json.dumps(out))
