#!/usr/bin/env python3
"""Drives `guest serve` with the `llm` application and its `llm-ollama` plugin (from PyPI, as a
user installs them), each command its own process. Prints one JSON line.

usage: llm_app.py HOST MODEL
  `llm models` (the plugin lists /api/tags and reads each model's /api/show capabilities) and
  `llm -m MODEL PROMPT`: the listed Ollama models and the answer's text.
LLM_USER_PATH is a fresh directory, so no user's llm configuration or cache is read or written.
"""
import json
import os
import subprocess
import sys
import tempfile

host, model = sys.argv[1], sys.argv[2]
with tempfile.TemporaryDirectory() as home:
    env = dict(os.environ, OLLAMA_HOST=host, LLM_USER_PATH=home)
    llm = [sys.executable, "-m", "llm"]
    listed = subprocess.run(llm + ["models"], env=env, capture_output=True, text=True, timeout=120)
    answer = subprocess.run(llm + ["-m", model, "--no-log", "Say hello"], env=env, capture_output=True, text=True, timeout=120)
    print(json.dumps({
        "models": [line.split(": ", 1)[1].split(" ")[0] for line in listed.stdout.splitlines() if line.startswith("Ollama")],
        "models_status": listed.returncode, "answer": answer.stdout.strip(), "answer_status": answer.returncode,
        "stderr": (listed.stderr + answer.stderr)[-1500:],
    }))
