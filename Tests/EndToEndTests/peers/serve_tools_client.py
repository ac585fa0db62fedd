#!/usr/bin/env python3
"""Drives a real `guest serve` through a tool-call round trip with the official clients. Prints
one JSON line.

usage: serve_tools_client.py BASE_URL SCENARIO
  openai-whole    chat.completions, tool_choice "required", not streamed; then the tool result sent
                  back and the second turn answered (not streamed)
  openai-stream   the same, streamed: the call reassembled from its deltas by index
  ollama-whole    ollama chat with the tools and the first turn's call (taken with openai, since
                  Ollama's API has no tool_choice) and its result: the second turn answered
  ollama-stream   the same, streamed
The JSON also names the brain of the first turn ("brain", from the `homebase` object) and, with
openai, of the second ("second_brain"; the ollama client does not expose extra fields).
"""
import json
import os
import sys

import ollama
from openai import OpenAI

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../TestSupport/peers"))
from client_kit import GET_TIME, gather_call, raised  # noqa: E402

base, scenario = sys.argv[1], sys.argv[2]
ASK = {"role": "user", "content": "What time is it?"}


def first_call(client, stream):
    """The first turn, with tool_choice "required": (call dict, finish_reason, chunk count).

    llama-server's grammar for "required" still allows free text before the call, which the tiny
    random model never ends: the assistant prefill of the call's opening tag (llama-server
    continues a trailing assistant message) puts it inside the call, parallel_tool_calls=False
    ends it after one. Both are ordinary OpenAI request shapes that must cross `guest serve`."""
    prefill = {"role": "assistant", "content": "<tool_call>\n"}
    kwargs = dict(model="default", messages=[ASK, prefill], tools=[GET_TIME], tool_choice="required",
                  parallel_tool_calls=False, max_tokens=64, temperature=0)
    if not stream:
        c = client.chat.completions.create(**kwargs)
        tc = c.choices[0].message.tool_calls[0]
        homebase = (c.model_extra or {}).get("homebase") or {}
        out["brain"], out["route_reason"] = homebase.get("brain"), homebase.get("route_reason")
        out["fallback_reason"] = homebase.get("fallback_reason")
        return {"id": tc.id, "name": tc.function.name, "arguments": tc.function.arguments}, c.choices[0].finish_reason, 1
    calls, finish, chunks = {}, None, 0
    for chunk in client.chat.completions.create(stream=True, **kwargs):
        homebase = (chunk.model_extra or {}).get("homebase") or {}
        out["brain"] = homebase.get("brain") or out.get("brain")
        out["route_reason"] = homebase.get("route_reason") or out.get("route_reason")
        out["fallback_reason"] = homebase.get("fallback_reason") or out.get("fallback_reason")
        for choice in chunk.choices:
            for tc in choice.delta.tool_calls or []:
                chunks += 1
                gather_call(calls, tc)
            if choice.finish_reason:
                finish = choice.finish_reason
    out["call_indexes"] = sorted(calls)
    return calls.get(0), finish, chunks


out = {}
try:
    client = OpenAI(base_url=base + "/v1", api_key="none", max_retries=0, timeout=120)
    stream = scenario.endswith("stream")
    call, finish, chunks = first_call(client, stream)
    out.update({"call": call, "finish_reason": finish, "call_chunks": chunks, "arguments_parse": False})
    json.loads(call["arguments"])
    out["arguments_parse"] = True
    if scenario.startswith("openai"):
        messages = [ASK, {"role": "assistant", "content": None, "tool_calls": [
            {"id": call["id"], "type": "function", "function": {"name": call["name"], "arguments": call["arguments"]}}]},
            {"role": "tool", "tool_call_id": call["id"], "content": "12:00"}]
        kwargs = dict(model="default", messages=messages, tools=[GET_TIME], max_tokens=8, temperature=0)
        if stream:
            text, second_finish = "", None
            for chunk in client.chat.completions.create(stream=True, **kwargs):
                out["second_brain"] = ((chunk.model_extra or {}).get("homebase") or {}).get("brain") or out.get("second_brain")
                for choice in chunk.choices:
                    text += choice.delta.content or ""
                    second_finish = choice.finish_reason or second_finish
        else:
            c = client.chat.completions.create(**kwargs)
            out["second_brain"] = ((c.model_extra or {}).get("homebase") or {}).get("brain")
            text, second_finish = c.choices[0].message.content or "", c.choices[0].finish_reason
    else:
        o = ollama.Client(host=base, timeout=120)
        messages = [ASK, {"role": "assistant", "content": "", "tool_calls": [
            {"function": {"name": call["name"], "arguments": json.loads(call["arguments"])}}]},
            {"role": "tool", "content": "12:00", "tool_name": call["name"]}]
        kwargs = dict(model="default", messages=messages, tools=[GET_TIME], options={"num_predict": 8, "temperature": 0})
        if stream:
            text, second_finish = "", None
            for part in o.chat(stream=True, **kwargs):
                text += part.message.content or ""
                if part.done:
                    second_finish = part.done_reason
        else:
            r = o.chat(stream=False, **kwargs)
            text, second_finish = r.message.content or "", r.done_reason
    out.update({"second_content": text, "second_finish": second_finish})
except Exception as e:  # noqa: BLE001 - the test wants to know what the client did
    out.update(raised(e))
print(json.dumps(out))
