#!/usr/bin/env python3
"""Drives `guest serve`'s Responses, completions and model endpoints with the official `openai`
client library. Prints one JSON line.

usage: responses_client.py BASE_URL API_KEY SCENARIO [MODEL [TIMEOUT_SECONDS]]   (default fake-brain, 30)
  whole      responses.create (not streamed): output_text, status, usage, then a second turn
             with previous_response_id: its output_text
  stream     responses.create(stream=True): the event types, the text deltas joined, the
             completed response's usage
  tools      responses.create(stream=True) with a function tool: the function_call items
  completion completions.create, streamed and not: the texts
  retrieve   models.retrieve of the first listed model: its id
  embeddings embeddings.create of two texts (floats, then base64 as the library asks by default): sizes
  stored     responses.create, then responses.retrieve(id) (its text and brain), input_items.list(id),
             responses.delete(id), retrieve again (the error), and a store=False response retrieved (the error)
"""
import json
import sys

import openai
from openai import OpenAI

base, key, scenario = sys.argv[1], sys.argv[2], sys.argv[3]
model = sys.argv[4] if len(sys.argv) > 4 else "fake-brain"
timeout = float(sys.argv[5]) if len(sys.argv) > 5 else 30
client = OpenAI(base_url=base, api_key=key, max_retries=0, timeout=timeout)
tools = [{"type": "function", "name": "get_weather", "description": "Weather",
          "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}]
out = {}
try:
    if scenario == "whole":
        raw = client.responses.with_raw_response.create(model=model, input="Say hello", instructions="Be brief.")
        r = raw.parse()
        r2 = client.responses.create(model=model, previous_response_id=r.id,
                                     input=[{"role": "user", "content": [{"type": "input_text", "text": "Again"}]}])
        out = {"brain_header": raw.headers.get("x-homebase-brain"), "text": r.output_text, "status": r.status,
               "usage": [r.usage.input_tokens, r.usage.output_tokens, r.usage.total_tokens] if r.usage else None,
               "second": r2.output_text, "second_previous": r2.previous_response_id == r.id}
    elif scenario in ("stream", "tools"):
        kwargs = {"tools": tools} if scenario == "tools" else {}
        types, text, usage, calls = [], "", None, []
        stream = client.responses.create(model=model, input="Say hello", stream=True, **kwargs)
        brain = stream.response.headers.get("x-homebase-brain")
        for ev in stream:
            types.append(ev.type)
            if ev.type == "response.output_text.delta":
                text += ev.delta
            elif ev.type == "response.output_item.done" and ev.item.type == "function_call":
                calls.append({"call_id": ev.item.call_id, "name": ev.item.name, "arguments": json.loads(ev.item.arguments)})
            elif ev.type == "response.completed":
                u = ev.response.usage
                usage = [u.input_tokens, u.output_tokens] if u else None
        out = {"types": types, "text": text, "usage": usage, "calls": calls, "brain_header": brain}
    elif scenario == "completion":
        raw = client.completions.with_raw_response.create(model=model, prompt="Once upon a time", max_tokens=8)
        c = raw.parse()
        streamed = "".join(ch.choices[0].text for ch in client.completions.create(
            model=model, prompt="Once", max_tokens=8, stream=True) if ch.choices)
        out = {"text": c.choices[0].text, "finish_reason": c.choices[0].finish_reason, "object": c.object, "streamed": streamed,
               "brain_header": raw.headers.get("x-homebase-brain")}
    elif scenario == "retrieve":
        first = next(iter(client.models.list())).id
        out = {"id": client.models.retrieve(first).id}
    elif scenario == "embeddings":
        r = client.embeddings.create(model=model, input=["one", "two"], encoding_format="float")
        b = client.embeddings.create(model=model, input="three")  # the library asks for base64 and decodes it
        out = {"count": len(r.data), "sizes": [len(d.embedding) for d in r.data], "first": r.data[0].embedding[:4],
               "base64_size": len(b.data[0].embedding), "prompt_tokens": r.usage.prompt_tokens, "model": r.model}
    elif scenario == "stored":
        raw = client.responses.with_raw_response.create(model=model, input="Say hello", instructions="Be brief.")
        r = raw.parse()
        got = client.responses.retrieve(r.id)
        items = client.responses.input_items.list(r.id)
        def status_of(call):
            try:
                call()
                return {"status": 200}
            except openai.APIStatusError as e:
                body = e.body if isinstance(e.body, dict) else {}
                return {"status": e.status_code, "message": str(e),
                        "type": getattr(e, "type", None) or body.get("type") or (body.get("error") or {}).get("type")}
        client.responses.delete(r.id)
        unstored = client.responses.create(model=model, input="Say hello", store=False)
        out = {"brain_header": raw.headers.get("x-homebase-brain"), "id": r.id, "retrieved_id": got.id,
               "retrieved_text": got.output_text, "text": r.output_text, "retrieved_status": got.status,
               "retrieved_brain": (getattr(got, "homebase", None) or (got.model_extra or {}).get("homebase") or {}).get("brain"),
               "items": [{"type": i.type, "role": getattr(i, "role", None),
                          "text": "".join(getattr(c, "text", "") for c in (getattr(i, "content", None) or []))} for i in items.data],
               "after_delete": status_of(lambda: client.responses.retrieve(r.id)),
               "unstored": status_of(lambda: client.responses.retrieve(unstored.id))}
except openai.APIStatusError as e:
    out = {"raised": type(e).__name__, "status": e.status_code, "message": str(e)}
except openai.APIError as e:
    out = {"raised": type(e).__name__, "message": str(e)}
print(json.dumps(out))
