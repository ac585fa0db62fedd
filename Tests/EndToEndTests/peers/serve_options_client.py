#!/usr/bin/env python3
"""Drives a real `guest serve` (on-device llama-server, the tiny random model) with options that
must reach the engine, with the official clients. Prints one JSON line.

usage: serve_options_client.py BASE_URL SCENARIO
  openai-format   response_format json_schema: the answer is exactly an object of the schema
  ollama-format   format=<the same schema>
  openai-seed     the same seed twice at temperature 1: the same answer; then a stop string taken
                  from its middle ends the answer before it
  ollama-seed     the same with options seed/temperature/num_predict/stop
"""
import json
import os
import sys

import ollama
from openai import OpenAI

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../TestSupport/peers"))
from client_kit import raised  # noqa: E402

base, scenario = sys.argv[1], sys.argv[2]
SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"], "additionalProperties": False}
ASK = [{"role": "user", "content": "ok?"}]
out = {}
try:
    oa = OpenAI(base_url=base + "/v1", api_key="none", max_retries=0, timeout=120)
    ol = ollama.Client(host=base, timeout=120)
    if scenario == "openai-format":
        c = oa.chat.completions.create(model="default", messages=ASK, max_tokens=64, temperature=0,
                                       response_format={"type": "json_schema",
                                                        "json_schema": {"name": "flag", "schema": SCHEMA, "strict": True}})
        out = {"content": c.choices[0].message.content, "finish": c.choices[0].finish_reason}
    elif scenario == "ollama-format":
        r = ol.chat(model="default", messages=ASK, format=SCHEMA, options={"num_predict": 64, "temperature": 0})
        out = {"content": r.message.content, "finish": r.done_reason}
    elif scenario == "openai-seed":
        def ask(stop=None):
            c = oa.chat.completions.create(model="default", messages=ASK, max_tokens=24, temperature=1, seed=1234, stop=stop)
            return c.choices[0].message.content, c.choices[0].finish_reason
        first, _ = ask()
        again, _ = ask()
        stop = first[8:10]
        stopped, finish = ask([stop])
        out = {"first": first, "again": again, "stop": stop, "stopped": stopped, "finish": finish}
    elif scenario == "ollama-seed":
        def ask(stop=None):
            options = {"num_predict": 24, "temperature": 1, "seed": 1234}
            if stop:
                options["stop"] = stop
            r = ol.chat(model="default", messages=ASK, options=options)
            return r.message.content, r.done_reason
        first, _ = ask()
        again, _ = ask()
        stop = first[8:10]
        stopped, finish = ask([stop])
        out = {"first": first, "again": again, "stop": stop, "stopped": stopped, "finish": finish}
except Exception as e:  # noqa: BLE001 - the test wants to know what the client did
    out = raised(e)
print(json.dumps(out))
