"""aider-chat (from PyPI, in its own venv .cache/aider-venv: its pinned dependencies would
replace the project venv's) makes one non-interactive edit through guest serve.

usage: aider_edit.py BASE MODEL WORKDIR TIMEOUT [MAX_TOKENS]
MODEL `ollama_chat/NAME` takes the Ollama door instead (OLLAMA_API_BASE=BASE), as aider's docs
tell Ollama users; litellm then posts JSON with no Content-Type.

Writes WORKDIR/hello.py, runs `aider --message ... hello.py` against BASE/v1 (OpenAI API, the
"whole" edit format, no git, no network look-ups), and prints one JSON line: aider's exit
status, the file after, and the tail of aider's output. MAX_TOKENS caps the answer (a model
settings file: aider has no flag for it).
"""
import json
import os
import pathlib
import subprocess
import sys

base, model, workdir, timeout = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3]), float(sys.argv[4])
root = pathlib.Path(__file__).resolve().parents[3]
aider = root / ".cache" / "aider-venv" / "bin" / "aider"
workdir.mkdir(parents=True, exist_ok=True)
target = workdir / "hello.py"
target.write_text('def greet():\n    return "hello"\n')
settings = None
if len(sys.argv) > 5:
    settings = workdir / "model-settings.yml"
    settings.write_text(f"- name: openai/{model}\n  edit_format: whole\n  extra_params:\n    max_tokens: {int(sys.argv[5])}\n")
env = dict(os.environ, HOME=str(workdir), LITELLM_LOCAL_MODEL_COST_MAP="True", OPENAI_API_KEY="k",
           AIDER_ANALYTICS="false", NO_COLOR="1")
ollama = model.startswith("ollama_chat/")
if settings and ollama:
    settings.write_text(settings.read_text().replace("name: openai/ollama_chat/", "name: ollama_chat/"))
door = (["--model", model] if ollama else ["--model", "openai/" + model, "--openai-api-base", base + "/v1"])
if ollama:
    env["OLLAMA_API_BASE"] = base
args = [str(aider), *door, "--edit-format", "whole",
        "--no-git", "--yes-always", "--no-check-update", "--no-show-release-notes", "--analytics-disable",
        "--no-pretty", "--map-tokens", "0", "--no-show-model-warnings", "--no-auto-lint", "--no-auto-test",
        "--no-suggest-shell-commands", "--no-detect-urls", "--no-gitignore", "--no-fancy-input",
        "--llm-history-file", str(workdir / "llm-history.txt"),
        *(["--model-settings-file", str(settings)] if settings else []),
        "--message", "Make greet return the string hello from homebase.", "hello.py"]
out = {"aider": str(aider), "installed": aider.exists()}
try:
    p = subprocess.run(args, cwd=workdir, env=env, capture_output=True, text=True, timeout=timeout,
                       stdin=subprocess.DEVNULL)
    history = (workdir / "llm-history.txt")
    out.update({"status": p.returncode, "file": target.read_text(), "output": (p.stdout + p.stderr)[-3000:],
                "history_has_response": history.exists() and "LLM RESPONSE" in history.read_text(),
                "history_bytes": history.stat().st_size if history.exists() else 0})
except subprocess.TimeoutExpired as e:
    out.update({"status": None, "timeout": True, "output": str(e.stdout)[-2000:] if e.stdout else ""})
except FileNotFoundError as e:
    out.update({"status": None, "missing": str(e)})
print(json.dumps(out))
