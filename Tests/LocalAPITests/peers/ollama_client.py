#!/usr/bin/env python3
"""Drives `guest serve` with the official `ollama` client library. Prints one JSON line.

usage: ollama_client.py HOST TOKEN SCENARIO      (TOKEN "none": no Authorization header)
  whole    chat(stream=False): content, done_reason, counts, homebase
  stream   chat(stream=True): the parts joined, the last part's done/homebase
  tools    chat(stream=True) with a tool: the tool calls of the parts
  list     list(): the model names
  failing  chat(stream=True) whose brain fails mid-answer: the exception raised
"""
import json
import sys

import ollama

host, token, scenario = sys.argv[1], sys.argv[2], sys.argv[3]
headers = {} if token == "none" else {"Authorization": f"Bearer {token}"}
client = ollama.Client(host=host, headers=headers, timeout=30)
messages = [{"role": "user", "content": "Say hello"}]
out = {}
try:
    if scenario == "whole":
        r = client.chat(model="fake-brain", messages=messages, stream=False)
        out = {"content": r.message.content, "done": r.done, "done_reason": r.done_reason,
               "eval_count": r.eval_count, "prompt_eval_count": r.prompt_eval_count}
    elif scenario in ("stream", "tools"):
        tools = None
        if scenario == "tools":
            tools = [{"type": "function", "function": {"name": "get_weather", "description": "Weather",
                      "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]
        text, last, calls, parts = "", None, [], 0
        for part in client.chat(model="fake-brain", messages=messages, stream=True, tools=tools):
            parts += 1
            text += part.message.content or ""
            for tc in part.message.tool_calls or []:
                calls.append({"name": tc.function.name, "arguments": dict(tc.function.arguments)})
            last = part
        out = {"content": text, "done": last.done, "done_reason": last.done_reason, "parts": parts,
               "tool_calls": calls, "eval_count": last.eval_count}
    elif scenario == "list":
        out = {"models": [m.model for m in client.list().models]}
    elif scenario == "failing":
        text = ""
        for part in client.chat(model="fake-brain", messages=messages, stream=True):
            text += part.message.content or ""
        out = {"content": text, "raised": None}
except ollama.ResponseError as e:
    out = {"raised": "ResponseError", "status": e.status_code, "message": str(e.error)}
except Exception as e:  # noqa: BLE001 - the test wants to know what the client did
    out = {"raised": type(e).__name__, "message": str(e)}
print(json.dumps(out))
