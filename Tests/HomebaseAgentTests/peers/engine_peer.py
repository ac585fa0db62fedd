#!/usr/bin/env python3
"""A scripted inference engine for HomebaseAgentTests: the engine's failure modes on loopback.

Prints "PORT <n>" and serves until its stdin closes (the test process ending closes it).
Base URL of a scenario: http://127.0.0.1:PORT/s/<scenario>~<id>; the agent appends
/v1/chat/completions (and the probe its management paths). Events are recorded per id:
GET /record/<id> returns them as JSON ({"event": "request" | "closed" | "finished", ...}).
"""
import json
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

RECORDS = {}
LOCK = threading.Lock()


def record(test_id, **event):
    with LOCK:
        RECORDS.setdefault(test_id, []).append(event)


def chunk(text=None, finish=None, usage=None):
    if usage is not None:
        body = {"object": "chat.completion.chunk", "model": "scripted", "choices": [], "usage": usage}
    else:
        delta = {} if text is None else {"content": text}
        body = {"object": "chat.completion.chunk", "model": "scripted",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return "data: " + json.dumps(body) + "\n\n"


OK = [chunk("Hel"), chunk("lo"), chunk("!"), chunk(finish="stop"),
      chunk(usage={"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}), "data: [DONE]\n\n"]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, obj):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def start_stream(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.wfile.flush()

    def send(self, text):
        data = text.encode()
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def end(self):
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def hang_up(self):
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def do_GET(self):
        self.route(b"")

    def do_POST(self):
        self.route(self.rfile.read(int(self.headers.get("Content-Length") or 0)))

    def route(self, body):
        parts = self.path.split("/")
        if len(parts) == 3 and parts[1] == "record":
            with LOCK:
                return self.reply(200, RECORDS.get(parts[2], []))
        if len(parts) < 3 or parts[1] != "s":
            return self.reply(404, {"error": "not found"})
        scenario, _, test_id = parts[2].partition("~")
        path = "/" + "/".join(parts[3:])
        record(test_id, event="request", path=path, body=json.loads(body) if body else None)
        if path != "/v1/chat/completions":
            return self.management(scenario, path)
        getattr(self, "s_" + scenario)(test_id)

    def management(self, scenario, path):
        if scenario == "ollama_empty":
            if path == "/api/version":
                return self.reply(200, {"version": "0.12.3"})
            if path == "/api/tags":
                return self.reply(200, {"models": []})
        if scenario == "not_an_engine":
            return self.reply(404, {"detail": "Not Found"})
        return self.reply(404, {"error": "404 page not found"})

    def s_ok(self, test_id):
        self.start_stream()
        for p in OK:
            self.send(p)
        self.end()

    def s_http500(self, test_id):
        self.reply(500, {"error": {"message": "engine exploded", "type": "server_error"}})

    def s_inband(self, test_id):
        self.start_stream()
        self.send(chunk("Hel"))
        self.send('data: {"error": {"message": "model crashed", "type": "server_error"}}\n\n')
        self.end()

    def s_stall(self, test_id):
        self.start_stream()
        self.send(chunk("Hel"))
        time.sleep(5)
        self.hang_up()

    def s_disconnect(self, test_id):
        self.start_stream()
        self.send(chunk("Hel"))
        self.send(chunk("lo"))
        self.hang_up()

    def s_slowfirst(self, test_id):
        self.start_stream()
        time.sleep(0.5)
        for p in OK:
            self.send(p)
        self.end()

    def s_endless(self, test_id):
        self.start_stream()
        sent = 0
        try:
            for _ in range(3000):  # bounded: at most a minute
                self.send(chunk("tok "))
                sent += 1
                time.sleep(0.02)
            record(test_id, event="finished", sent=sent)
            self.end()
        except (BrokenPipeError, ConnectionResetError):
            record(test_id, event="closed", sent=sent)
            self.close_connection = True


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print("PORT %d" % server.server_address[1], flush=True)
    sys.stdin.read()


if __name__ == "__main__":
    main()
