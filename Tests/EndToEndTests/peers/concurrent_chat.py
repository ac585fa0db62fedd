#!/usr/bin/env python3
"""N chat requests at once to `guest serve` (EndToEndTests/HouseEndToEndTests): TEST code.

Usage: concurrent_chat.py --port N --count 20 --model tiny. Prints one JSON object: how many
answered 200, by which brain (the response's `homebase.brain`), and the statuses.
"""
import argparse
import http.client
import json
import threading


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--count", type=int, default=20)
    p.add_argument("--model", default="tiny")
    a = p.parse_args()
    results = []
    lock = threading.Lock()
    start = threading.Barrier(a.count)

    def one(i):
        body = json.dumps({"model": a.model, "max_tokens": 8, "stream": False,
                           "messages": [{"role": "user", "content": f"request number {i}"}]})
        start.wait()
        try:
            c = http.client.HTTPConnection("127.0.0.1", a.port, timeout=300)
            c.request("POST", "/v1/chat/completions", body=body, headers={"Content-Type": "application/json"})
            r = c.getresponse()
            data = r.read()
            brain = None
            if r.status == 200:
                brain = (json.loads(data).get("homebase") or {}).get("brain")
            with lock:
                results.append((r.status, brain))
        except Exception as e:  # noqa: BLE001 - reported, not raised
            with lock:
                results.append((str(e), None))

    threads = [threading.Thread(target=one, args=(i,)) for i in range(a.count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    brains = {}
    for _, b in results:
        brains[str(b)] = brains.get(str(b), 0) + 1
    print(json.dumps({"ok": sum(1 for s, _ in results if s == 200), "brains": brains,
                      "statuses": [str(s) for s, _ in results]}))


if __name__ == "__main__":
    main()
