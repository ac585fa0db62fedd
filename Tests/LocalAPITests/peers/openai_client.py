#!/usr/bin/env python3
"""Drives `guest serve` with the official `openai` client library. Prints one JSON line.

usage: openai_client.py BASE_URL API_KEY SCENARIO
  whole    non-streamed chat: content, finish_reason, usage, homebase, X-Homebase-Brain
  stream   streamed chat with include_usage: deltas, finish_reason, usage, homebase of the last chunk
  tools    streamed chat with a tool: the tool calls reassembled by index
  obfuscation  streamed chat asking include_obfuscation: the text and every unknown field a chunk carried
  models   models.list()
  failing  streamed chat whose brain fails mid-answer: the exception the client raised
"""
import json
import os
import sys

import openai
from openai import OpenAI

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../TestSupport/peers"))
from client_kit import gather_call  # noqa: E402

base, key, scenario = sys.argv[1], sys.argv[2], sys.argv[3]
client = OpenAI(base_url=base, api_key=key, max_retries=0, timeout=30)
messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Say hello"}]
out = {}
try:
    if scenario == "whole":
        raw = client.chat.completions.with_raw_response.create(model="fake-brain", messages=messages, max_tokens=16)
        c = raw.parse()
        out = {"brain_header": raw.headers.get("x-homebase-brain"), "content": c.choices[0].message.content,
               "finish_reason": c.choices[0].finish_reason, "usage": c.usage.model_dump() if c.usage else None,
               "homebase": (c.model_extra or {}).get("homebase"), "object": c.object}
    elif scenario in ("stream", "tools"):
        kwargs = {}
        if scenario == "tools":
            kwargs["tools"] = [{"type": "function", "function": {"name": "get_weather", "description": "Weather",
                                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]
        stream = client.chat.completions.create(model="fake-brain", messages=messages, stream=True,
                                                stream_options={"include_usage": True}, **kwargs)
        text, finish, usage, homebase, calls, chunks = "", None, None, None, {}, 0
        for chunk in stream:
            chunks += 1
            extra = chunk.model_extra or {}
            if "homebase" in extra:
                homebase = extra["homebase"]
            if chunk.usage:
                usage = chunk.usage.model_dump(include={"prompt_tokens", "completion_tokens", "total_tokens"})
            for choice in chunk.choices:
                if choice.delta.content:
                    text += choice.delta.content
                for tc in choice.delta.tool_calls or []:
                    gather_call(calls, tc)
                if choice.finish_reason:
                    finish = choice.finish_reason
        out = {"content": text, "finish_reason": finish, "usage": usage, "homebase": homebase, "chunks": chunks,
               "tool_calls": [calls[i] for i in sorted(calls)]}
    elif scenario == "obfuscation":
        stream = client.chat.completions.create(model="fake-brain", messages=messages, stream=True,
                                                stream_options={"include_usage": True, "include_obfuscation": True})
        text, extras = "", set()
        for chunk in stream:
            extras |= set((chunk.model_extra or {}).keys())
            for choice in chunk.choices:
                extras |= set((choice.model_extra or {}).keys()) | set((choice.delta.model_extra or {}).keys())
                text += choice.delta.content or ""
        out = {"content": text, "extras": sorted(extras)}
    elif scenario == "models":
        out = {"models": [m.id for m in client.models.list()]}
    elif scenario == "failing":
        text = ""
        for chunk in client.chat.completions.create(model="fake-brain", messages=messages, stream=True):
            for choice in chunk.choices:
                text += choice.delta.content or ""
        out = {"content": text, "raised": None}
except openai.APIStatusError as e:
    out = {"raised": type(e).__name__, "status": e.status_code}
except openai.APIError as e:
    out = {"raised": type(e).__name__, "message": str(e)}
print(json.dumps(out))
