#!/usr/bin/env python3
"""Drives `guest serve` with the official `anthropic` client library. Prints one JSON line.

usage: anthropic_client.py BASE_URL API_KEY SCENARIO [MODEL [TIMEOUT_SECONDS]]   (default fake-brain, 30)
  whole    messages.create (not streamed): text, stop_reason, usage, X-Homebase-Brain
  stream   messages.stream: the text deltas joined, the final message's stop_reason and usage
  tools    messages.stream with a tool: the final message's tool_use blocks
  image    messages.create with a base64 image and a system prompt: the text
  count    messages.count_tokens: input_tokens
  failing  messages.stream whose brain fails mid-answer: the exception raised
  tool_round  messages.create with a tool it must call (tool_choice any, one call), then the tool_result turn:
              the tool_use block, each answer's X-Homebase-Brain and stop_reason (whole, then streamed)
  image_sent  messages.create with a base64 PNG (distinct bytes): X-Homebase-Brain, the text and the image's SHA-256
"""
import base64
import json
import sys

import anthropic

base, key, scenario = sys.argv[1], sys.argv[2], sys.argv[3]
model = sys.argv[4] if len(sys.argv) > 4 else "fake-brain"
timeout = float(sys.argv[5]) if len(sys.argv) > 5 else 30
client = anthropic.Anthropic(base_url=base, api_key=key, max_retries=0, timeout=timeout)
messages = [{"role": "user", "content": "Say hello"}]
tools = [{"name": "get_weather", "description": "Weather",
          "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}]
out = {}
try:
    if scenario == "whole":
        raw = client.messages.with_raw_response.create(model=model, max_tokens=16, messages=messages)
        m = raw.parse()
        out = {"brain_header": raw.headers.get("x-homebase-brain"), "text": "".join(b.text for b in m.content if b.type == "text"),
               "stop_reason": m.stop_reason, "usage": [m.usage.input_tokens, m.usage.output_tokens], "role": m.role,
               "homebase": (m.model_extra or {}).get("homebase")}
    elif scenario in ("stream", "tools"):
        kwargs = {"tools": tools} if scenario == "tools" else {}
        deltas = []
        with client.messages.stream(model=model, max_tokens=16, messages=messages, **kwargs) as s:
            for text in s.text_stream:
                deltas.append(text)
            m = s.get_final_message()
            brain = s.response.headers.get("x-homebase-brain")
        out = {"text": "".join(deltas), "deltas": len(deltas), "stop_reason": m.stop_reason, "brain_header": brain,
               "usage": [m.usage.input_tokens, m.usage.output_tokens],
               "tool_uses": [{"id": b.id, "name": b.name, "input": b.input} for b in m.content if b.type == "tool_use"]}
    elif scenario == "image":
        png = base64.b64encode(b"\x89PNG\r\n\x1a\nfake").decode()
        m = client.messages.create(model=model, max_tokens=16, system="Describe briefly.", messages=[
            {"role": "user", "content": [
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png}},
                {"type": "text", "text": "What is this?"}]}])
        out = {"text": "".join(b.text for b in m.content if b.type == "text")}
    elif scenario == "count":
        r = client.messages.count_tokens(model=model, messages=messages, system="Be brief.")
        out = {"input_tokens": r.input_tokens}
    elif scenario == "failing":
        text = ""
        with client.messages.stream(model=model, max_tokens=16, messages=messages) as s:
            for t in s.text_stream:
                text += t
        out = {"text": text, "raised": None}
    elif scenario == "tool_round":
        # As serve_tools_client.py does for the tiny random model: a tool without parameters, the
        # call forced (any: llama-server's "required" grammar), one call only, and the assistant's
        # prefill of the call's opening tag (Anthropic's prefill; llama-server continues it).
        clock = [{"name": "get_time", "description": "the current time",
                  "input_schema": {"type": "object", "properties": {}, "additionalProperties": False}}]
        any_one = {"type": "any", "disable_parallel_tool_use": True}
        ask = [{"role": "user", "content": "What time is it?"}, {"role": "assistant", "content": "<tool_call>\n"}]
        greedy = {"temperature": 0}  # sent as a body field: this library version takes no temperature argument
        raw = client.messages.with_raw_response.create(model=model, max_tokens=128, messages=ask, tools=clock, tool_choice=any_one,
                                                       extra_body=greedy)
        m = raw.parse()
        uses = [b for b in m.content if b.type == "tool_use"]
        with client.messages.stream(model=model, max_tokens=128, messages=ask, tools=clock, tool_choice=any_one,
                                    extra_body=greedy) as s:
            streamed = s.get_final_message()
            streamed_brain = s.response.headers.get("x-homebase-brain")
        out = {"brain_header": raw.headers.get("x-homebase-brain"), "stop_reason": m.stop_reason,
               "tool_uses": [{"id": b.id, "name": b.name, "input": b.input} for b in uses],
               "streamed_brain": streamed_brain, "streamed_stop_reason": streamed.stop_reason,
               "streamed_tool_uses": [b.name for b in streamed.content if b.type == "tool_use"]}
        if uses:
            turn = ask[:1] + [{"role": "assistant", "content": [{"type": "tool_use", "id": uses[0].id, "name": uses[0].name,
                                                                 "input": uses[0].input}]},
                              {"role": "user", "content": [{"type": "tool_result", "tool_use_id": uses[0].id, "content": "12:00"}]}]
            raw2 = client.messages.with_raw_response.create(model=model, max_tokens=8, messages=turn, tools=clock)
            m2 = raw2.parse()
            out.update({"second_brain": raw2.headers.get("x-homebase-brain"), "second_stop_reason": m2.stop_reason})
    elif scenario == "image_sent":
        import hashlib
        data = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 64
        raw = client.messages.with_raw_response.create(model=model, max_tokens=16, system="Describe briefly.", messages=[
            {"role": "user", "content": [
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": base64.b64encode(data).decode()}},
                {"type": "text", "text": "What is this?"}]}])
        m = raw.parse()
        out = {"brain_header": raw.headers.get("x-homebase-brain"), "text": "".join(b.text for b in m.content if b.type == "text"),
               "sha256": hashlib.sha256(data).hexdigest(), "length": len(data)}
except anthropic.APIStatusError as e:
    out = {"raised": type(e).__name__, "status": e.status_code, "message": str(e)}
except anthropic.APIError as e:
    out = {"raised": type(e).__name__, "message": str(e)}
print(json.dumps(out))
