#!/usr/bin/env python3
"""A scripted inference engine (InferenceTests, HomebaseAgentTests, LocalAPITests): every failure
mode on demand, on loopback.

Prints "PORT <n>" and serves until its stdin closes (the test process ending closes it).
The scenario is the first path segment after /s/: POST /s/<scenario>/v1/chat/completions, or
/s/<scenario>~<id>/... to tie a request to a test by its path instead of an X-Test-ID header.
Requests with an id are recorded; GET /record/<id> returns the records as JSON
({"event": "request"|"closed"|..., ...}). GET /release/<id> lets a "gated" stream go on.

Options:
  --chat-only         scenarios answer /v1/chat/completions only; any other path gets the
                      management answers of `management()` (what an agent's probe meets)
  --stall-seconds N   how long "stall" waits after its first chunk before hanging up (default 3)
"""
import argparse
import json
import threading
import time

from peer_http import PeerHandler, serve_until_stdin_closes

RECORDS = {}
GATES = {}
LOCK = threading.Lock()


def record(test_id, **event):
    if test_id:
        with LOCK:
            RECORDS.setdefault(test_id, []).append(event)


def gate(test_id):
    with LOCK:
        return GATES.setdefault(test_id, threading.Event())


def chunk(text, finish=None, usage=None, tool_calls=None):
    delta = {}
    if text is not None:
        delta["content"] = text
    if tool_calls is not None:
        delta["tool_calls"] = tool_calls
    body = {"object": "chat.completion.chunk", "model": "scripted",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    if usage is not None:
        body = {"object": "chat.completion.chunk", "model": "scripted", "choices": [], "usage": usage}
    return "data: " + json.dumps(body) + "\n\n"


OK_STREAM = [chunk("Hel"), chunk("lo"), chunk("!"), chunk(None, finish="stop"),
             chunk(None, usage={"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}),
             "data: [DONE]\n\n"]

TOOL_STREAM = [
    chunk(None, tool_calls=[{"index": 0, "id": "call_a", "type": "function",
                             "function": {"name": "get_weather", "arguments": ""}}]),
    chunk(None, tool_calls=[{"index": 0, "function": {"arguments": "{\"city\":"}}]),
    chunk(None, tool_calls=[{"index": 1, "id": "call_b", "type": "function",
                             "function": {"name": "get_time", "arguments": "{}"}}]),
    chunk(None, tool_calls=[{"index": 0, "function": {"arguments": "\"Oslo\"}"}}]),
    chunk(None, finish="tool_calls"), "data: [DONE]\n\n"]

OLLAMA_TAGS = {"models": [
    {"name": "qwen3:0.6b", "model": "qwen3:0.6b", "size": 522653767,
     "details": {"format": "gguf", "family": "qwen3", "parameter_size": "751.63M",
                 "quantization_level": "Q4_K_M"}},
    {"name": "nomic-embed-text:latest", "model": "nomic-embed-text:latest",
     "details": {"family": "nomic-bert", "parameter_size": "137M", "quantization_level": "F16"}}]}

OLLAMA_SHOW = {
    "qwen3:0.6b": {"capabilities": ["completion", "tools", "thinking"],
                   "model_info": {"general.architecture": "qwen3", "qwen3.context_length": 40960}},
    "llava:7b": {"capabilities": ["completion", "vision"],
                 "model_info": {"general.architecture": "llama", "llama.context_length": 4096}},
    "nomic-embed-text:latest": {"capabilities": ["embedding"],
                                "model_info": {"general.architecture": "nomic-bert",
                                               "nomic-bert.context_length": 2048}}}


class Handler(PeerHandler):
    chat_only = False
    stall_seconds = 3.0

    def stream(self, parts, pause=0.0):
        self.start_chunked([("X-Scripted", "yes")])
        for p in parts:
            self.send_chunk(p)
            if pause:
                time.sleep(pause)
        self.end_chunked()

    def start_stream(self):
        self.start_chunked([("X-Scripted", "yes")])

    # -- routing --------------------------------------------------------------------------
    def do_GET(self):
        self.route("GET", b"")

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        self.route("POST", self.rfile.read(length))

    def route(self, method, body):
        parts = self.path.split("/")
        if method == "GET" and len(parts) == 3 and parts[1] == "record":
            with LOCK:
                return self.reply(200, RECORDS.get(parts[2], []))
        if method == "GET" and len(parts) == 3 and parts[1] == "release":
            gate(parts[2]).set()
            return self.reply(200, {"released": parts[2]})
        if len(parts) < 3 or parts[1] != "s":
            return self.reply(404, {"error": "not found"})
        scenario, _, path_id = parts[2].partition("~")
        test_id = path_id or self.headers.get("X-Test-ID", "")
        rest = "/" + "/".join(parts[3:])
        record(test_id, event="request", method=method, path=rest,
               headers={k.lower(): v for k, v in self.headers.items()},
               body=json.loads(body) if body else None)
        self.req_body = body
        if self.chat_only and rest != "/v1/chat/completions":
            return self.management(scenario, rest)
        handler = getattr(self, "s_" + scenario.replace("-", "_"), None)
        if handler is None:
            return self.reply(404, {"error": "no scenario " + scenario})
        handler(method, rest, test_id)

    def management(self, scenario, path):
        if scenario == "ollama_empty":
            if path == "/api/version":
                return self.reply(200, {"version": "0.12.3"})
            if path == "/api/tags":
                return self.reply(200, {"models": []})
        if scenario == "not_an_engine":
            return self.reply(404, {"detail": "Not Found"})
        return self.reply(404, {"error": "404 page not found"})

    # -- scenarios: chat -------------------------------------------------------------------
    def s_ok(self, method, path, test_id):
        self.stream(OK_STREAM)

    def s_tools(self, method, path, test_id):
        self.stream(TOOL_STREAM)

    def s_http500(self, method, path, test_id):
        self.reply(500, {"error": {"message": "engine exploded", "type": "server_error"}})

    def s_http401(self, method, path, test_id):
        self.reply(401, {"error": {"message": "Incorrect API key provided",
                                        "type": "invalid_request_error"}})

    def s_model404(self, method, path, test_id):
        self.reply(404, {"error": {"message": "model \"nope\" not found, try pulling it first",
                                        "type": "api_error"}})

    def s_inband_data(self, method, path, test_id):
        self.stream([chunk("Hel"), 'data: {"error": {"message": "model crashed", "type": "server_error"}}\n\n'])

    s_inband = s_inband_data

    def s_inband_event(self, method, path, test_id):
        self.stream([chunk("Hel"), 'event: error\ndata: {"type": "error", "message": "overloaded"}\n\n'])

    def s_inband_ollama(self, method, path, test_id):
        self.stream([chunk("Hel"), '{"error":{"message":"llama runner process has terminated","type":"api_error"}}\n'])

    def s_stall(self, method, path, test_id):
        self.start_stream()
        self.send_chunk(chunk("Hel"))
        time.sleep(self.stall_seconds)
        self.hang_up()

    def s_disconnect(self, method, path, test_id):
        self.start_stream()
        self.send_chunk(chunk("Hel"))
        self.send_chunk(chunk("lo"))
        self.hang_up()

    def s_clean_end_without_done(self, method, path, test_id):
        self.stream(OK_STREAM[:-1])

    def s_slowfirst(self, method, path, test_id):
        self.start_stream()
        time.sleep(0.5)
        for p in OK_STREAM:
            self.send_chunk(p)
        self.end_chunked()

    def s_gated(self, method, path, test_id):
        self.start_stream()
        gate(test_id).wait(30)
        for p in OK_STREAM:
            self.send_chunk(p)
        self.end_chunked()

    def s_endless(self, method, path, test_id):
        self.start_stream()
        sent = 0
        try:
            for _ in range(3000):  # bounded: at most a minute
                self.send_chunk(chunk("tok "))
                sent += 1
                time.sleep(0.02)
            record(test_id, event="finished", sent=sent)
            self.end_chunked()
        except (BrokenPipeError, ConnectionResetError):
            record(test_id, event="closed", sent=sent)
            self.close_connection = True

    def s_flood(self, method, path, test_id):
        # As fast as the socket takes them (X-Flood-Count chunks): a reader that lags must
        # hold the transfer back, not buffer the answer.
        count = int(self.headers.get("X-Flood-Count") or 1000)
        self.start_stream()
        sent = 0
        try:
            for _ in range(count):
                self.send_chunk(chunk("tok "))
                sent += 1
            self.send_chunk(chunk(None, finish="stop"))
            self.send_chunk("data: [DONE]\n\n")
            record(test_id, event="finished", sent=sent)
            self.end_chunked()
        except (BrokenPipeError, ConnectionResetError):
            record(test_id, event="closed", sent=sent)
            self.close_connection = True

    # -- scenarios: runtimes for the probe ---------------------------------------------------
    def s_ollama(self, method, path, test_id, tags=OLLAMA_TAGS):
        if path == "/api/version":
            return self.reply(200, {"version": "0.12.3"})
        if path == "/api/tags":
            return self.reply(200, tags)
        if path == "/api/show":
            name = json.loads(self.req_body or b"{}").get("model", "")
            if name in OLLAMA_SHOW:
                return self.reply(200, OLLAMA_SHOW[name])
            return self.reply(404, {"error": "model '%s' not found" % name})
        if path == "/v1/chat/completions":
            return self.stream(OK_STREAM)
        self.reply(404, {"error": "404 page not found"})

    def s_ollama_empty(self, method, path, test_id):
        self.s_ollama(method, path, test_id, tags={"models": []})

    def s_ollama_vision(self, method, path, test_id):
        self.s_ollama(method, path, test_id, tags={"models": [
            {"name": "llava:7b", "model": "llava:7b",
             "details": {"family": "llama", "parameter_size": "7B", "quantization_level": "Q4_0"}}]
            + OLLAMA_TAGS["models"][1:]})

    def s_ollama_embed(self, method, path, test_id):
        self.s_ollama(method, path, test_id, tags={"models": OLLAMA_TAGS["models"][1:]})

    def s_vllm(self, method, path, test_id):
        if path == "/v1/models":
            return self.reply(200, {"object": "list", "data": [
                {"id": "Qwen/Qwen2.5-0.5B-Instruct", "object": "model", "owned_by": "vllm",
                 "max_model_len": 32768}]})
        if path == "/version":
            return self.reply(200, {"version": "0.11.0"})
        if path == "/v1/chat/completions":
            return self.stream(OK_STREAM)
        self.reply(404, {"detail": "Not Found"})

    def s_llama_loading(self, method, path, test_id):
        # llama-server between two probe requests: still loading at /props (503), loaded by the
        # time /v1/models is asked (a plain OpenAI model list).
        if path == "/props":
            return self.reply(503, {"error": {"code": 503, "message": "Loading model", "type": "unavailable_error"}})
        if path == "/v1/models":
            return self.reply(200, {"object": "list", "data": [{"id": "tiny", "object": "model", "owned_by": "llamacpp"}]})
        self.reply(404, {"error": {"code": 404, "message": "File Not Found", "type": "not_found_error"}})

    def s_vllm_broken(self, method, path, test_id):
        if path == "/v1/chat/completions":
            return self.reply(500, {"error": {"message": "CUDA out of memory"}})
        self.s_vllm(method, path, test_id)


def main():
    options = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    options.add_argument("--chat-only", action="store_true")
    options.add_argument("--stall-seconds", type=float, default=3.0)
    args = options.parse_args()
    Handler.chat_only = args.chat_only
    Handler.stall_seconds = args.stall_seconds
    serve_until_stdin_closes(Handler)


if __name__ == "__main__":
    main()
