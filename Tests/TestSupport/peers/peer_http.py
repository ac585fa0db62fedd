"""What the Python test peers share (engine_peer, replay_peer, cloud_standin, standin_engine,
the capture, delay and tap peers in front of llama-server): a quiet HTTP/1.1 handler with JSON
replies, chunked streams and forwarding, the two lives: "PORT n, serve until stdin closes"
and "serve --port until killed", and the command line of a peer in front of a server. Standard
library only. A peer finds it with

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../TestSupport/peers"))
"""
import argparse
import http.client
import json
import socket
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class PeerHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, obj, reason=None, close=False):
        """A JSON body with its length (`close`: and Connection: close)."""
        data = json.dumps(obj).encode()
        self.send_response(status, reason)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if close:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)

    def start_chunked(self, headers=()):
        """200, text/event-stream, chunked transfer; `headers`: extra (name, value) pairs."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.flush()

    def send_chunk(self, text):
        data = text.encode()
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def end_chunked(self):
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def forward(self, port, method, body=None, edit=None):
        """Passes this request (path, JSON `body`) to 127.0.0.1:`port` and its answer back whole;
        `edit(status, data)` may return another body first."""
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        headers = {"Content-Type": "application/json"} if body is not None else {}
        conn.request(method, self.path, body=body, headers=headers)
        resp = conn.getresponse()
        data = resp.read()
        if edit is not None:
            data = edit(resp.status, data)
        self.send_response(resp.status)
        self.send_header("Content-Type", resp.getheader("Content-Type") or "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        conn.close()

    def hang_up(self):
        """Closes the connection mid-answer, the way a crashed engine does."""
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def front_arguments():
    """The command line of a peer in front of one server on 127.0.0.1: --port it listens on,
    --target it forwards to. The peer adds its own flags, then parses."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--target", type=int, required=True)
    return parser


def _server(port, handler):
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    server.daemon_threads = True
    return server


def serve_until_stdin_closes(handler):
    """Serves on 127.0.0.1 (an ephemeral port), prints "PORT <n>", and returns when stdin closes
    (the test process ending closes it)."""
    server = _server(0, handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print("PORT %d" % server.server_address[1], flush=True)
    sys.stdin.read()


def serve_until_killed(port, handler, ready=None):
    """Serves on 127.0.0.1:`port` (a test kills the peer); prints `ready` first when given."""
    server = _server(port, handler)
    if ready:
        print(ready, flush=True)
    server.serve_forever()
