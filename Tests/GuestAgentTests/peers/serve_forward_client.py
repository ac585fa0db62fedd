#!/usr/bin/env python3
"""Sends one request with every option, a tool and a 5 MB image through `guest serve` with the
official `openai` client (streamed), or the same through the `ollama` client. Prints one JSON line.

usage: serve_forward_client.py HOST:PORT openai|ollama
The image is IMAGE_BYTES bytes: a PNG signature, then byte i = (i * 31 + (i >> 9)) & 0xFF (the test
computes the same bytes and compares them with what the brain received).
"""
import base64
import json
import sys

import ollama
from openai import OpenAI

host, client_name = sys.argv[1], sys.argv[2]
IMAGE_BYTES = 5_000_000
image = bytearray((i * 31 + (i >> 9)) & 0xFF for i in range(IMAGE_BYTES))
image[0:8] = b"\x89PNG\r\n\x1a\n"
b64 = base64.b64encode(bytes(image)).decode()
TOOL = {"type": "function", "function": {"name": "get_time", "description": "the time",
        "parameters": {"type": "object", "properties": {}}}}
out = {}
try:
    if client_name == "openai":
        client = OpenAI(base_url=f"http://{host}/v1", api_key="none", max_retries=0, timeout=120)
        text = ""
        for chunk in client.chat.completions.create(
                model="default", stream=True, stream_options={"include_usage": True},
                messages=[{"role": "user", "content": [{"type": "text", "text": "what is this?"},
                                                       {"type": "image_url", "image_url": {"url": "data:image/png;base64," + b64}}]}],
                tools=[TOOL], tool_choice="auto", max_tokens=16, top_p=0.9, seed=7, stop=["END"],
                presence_penalty=0.5, frequency_penalty=0.25, logprobs=True, top_logprobs=2,
                response_format={"type": "json_object"},
                extra_body={"top_k": 40, "min_p": 0.05, "repeat_penalty": 1.1, "mirostat": 2}):
            for choice in chunk.choices:
                text += choice.delta.content or ""
        out = {"content": text}
    else:
        client = ollama.Client(host=f"http://{host}", timeout=120)
        r = client.chat(model="default", stream=False, tools=[TOOL], format="json",
                        messages=[{"role": "user", "content": "what is this?", "images": [b64]}],
                        options={"num_predict": 16, "top_p": 0.9, "top_k": 40, "min_p": 0.05, "seed": 7, "stop": ["END"],
                                 "repeat_penalty": 1.1, "presence_penalty": 0.5, "frequency_penalty": 0.25, "num_ctx": 4096})
        out = {"content": r.message.content}
except Exception as e:  # noqa: BLE001 - the test wants to know what the client did
    out = {"raised": type(e).__name__, "message": str(e)[:500]}
print(json.dumps(out))
