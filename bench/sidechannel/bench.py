#!/usr/bin/env python3
"""bench/sidechannel: what the relay learns of an answer's topic from sizes and timing.

Starts the real relay, a capture proxy in front of it (capture.py), the STAND-IN engine
(standin_engine.py), the real `homebase run` and pairs the real guest through the proxy; then per
defence setting restarts the Homebase with `--reply-shaping SETTING` and asks SAMPLES questions
per topic with `guest chat`, keeping each answer's time window. classify.py turns the captured
frames into features and reports AUPRC / accuracy. Usage: bench.py BIN_DIR WORK_DIR [--samples N]
[--settings off,padded,cadence] (a setting LEVEL:WINDOW, e.g. padded:100ms, also sets the
coalescing window, `--batch-delay`; LEVEL+boundary, e.g. padded+boundary, releases the first
chunk on a 100 ms boundary, `--shaping-boundary`, and padded+boundary=250ms on another;
cadence+min=TIME sets the floor of a cadence stream, `--cadence-min-duration`, cadence+min=0s
the 16 ticks it had before the floor)."""
import argparse, json, os, random, socket, subprocess, sys, time
from corpus import PROMPTS, prompt_for

HERE = os.path.dirname(os.path.abspath(__file__))

def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p

def wait_for(pred, what, secs=60):
    end = time.time() + secs
    while time.time() < end:
        try:
            if pred(): return
        except Exception: pass
        time.sleep(0.1)
    sys.exit(f"bench-sidechannel: timed out waiting for {what}")

def port_open(p):
    socket.create_connection(("127.0.0.1", p), 1).close(); return True

def read_chat(cmd, env):
    """Runs `guest chat`; its stdout, and (monotonic time, characters of stdout so far) per read."""
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out, arrivals = b"", []
    while True:
        b = os.read(p.stdout.fileno(), 65536)
        if not b: break
        out += b
        arrivals.append((time.monotonic(), len(out)))
    p.wait(120)
    return out.decode(errors="replace"), arrivals

def level_of(setting):
    """The shaping level of a bench setting (`padded+boundary:50ms` -> `padded`)."""
    return setting.partition(":")[0].partition("+")[0]

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin"); ap.add_argument("work")
    ap.add_argument("--samples", type=int, default=20)
    ap.add_argument("--settings", default="off,padded,cadence")
    ap.add_argument("--max-tokens", type=int, default=120)
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    env = dict(os.environ, XDG_CONFIG_HOME=f"{a.work}/config", XDG_DATA_HOME=f"{a.work}/data")
    procs = []
    def start(args, log):
        p = subprocess.Popen(args, stdout=open(f"{a.work}/{log}", "a"), stderr=subprocess.STDOUT, env=env)
        procs.append(p); return p
    try:
        relay_port, proxy_port, engine_port = free_port(), free_port(), free_port()
        trace = f"{a.work}/frames.jsonl"
        open(trace, "w").close()
        start([f"{a.bin}/homebase-relay", "serve", "--listen", f"127.0.0.1:{relay_port}", "--data-dir",
               f"{a.work}/relay", "--metrics-listen", "off",
               "--origin", f"ws://127.0.0.1:{proxy_port}"], "relay.log")
        start([sys.executable, f"{HERE}/capture.py", str(proxy_port), str(relay_port), trace], "capture.log")
        start([sys.executable, f"{HERE}/standin_engine.py", str(engine_port), "1", f"{a.work}/emits.jsonl"], "engine.log")
        for p in (relay_port, proxy_port, engine_port): wait_for(lambda: port_open(p), f"port {p}")
        hb = [f"{a.bin}/homebase", "--data-dir", f"{a.work}/host"]
        g = lambda *args: [f"{a.bin}/guest", args[0], "--data-dir", f"{a.work}/guest", *args[1:]]
        run = lambda cmd, **kw: subprocess.run(cmd, env=env, check=True, capture_output=True, text=True, **kw)
        run(hb + ["init", "--name", "bench-homebase"])
        run(hb + ["runtime", "add", f"http://127.0.0.1:{engine_port}"])
        relay = f"ws://127.0.0.1:{proxy_port}"  # everyone dials the proxy, as a relay's clients would
        def start_homebase(setting):
            # LEVEL[+boundary[=TIME]][:WINDOW] (padded:100ms: the coalescing window, --batch-delay;
            # padded+boundary: the first chunk on a 100 ms boundary, --shaping-boundary).
            level, window = level_of(setting), setting.partition(":")[2]
            extra = ["--batch-delay", window] if window else []
            head = setting.partition(":")[0]
            if "+boundary" in head:
                extra += ["--shaping-boundary", head.partition("+boundary")[2].partition("+")[0].lstrip("=") or "100ms"]
            if "+min=" in head:  # cadence+min=0s: the floor of a cadence stream, --cadence-min-duration
                extra += ["--cadence-min-duration", head.partition("+min=")[2].partition("+")[0]]
            p = start(hb + ["run", "--relay", relay, "--reply-shaping", level, *extra], f"homebase-{setting}.log")
            wait_for(lambda: "connected to the relay" in open(f"{a.work}/homebase-{setting}.log").read(), "the Homebase")
            return p
        h = start_homebase("padded")
        pair = subprocess.Popen(hb + ["pair", "--relay", f"ws://127.0.0.1:{proxy_port}", "--wait", "60s"],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, text=True)
        procs.append(pair)
        code = None
        while code is None:
            line = pair.stdout.readline()
            if not line: sys.exit("bench-sidechannel: homebase pair printed no code")
            if line.startswith("hbpair1-"): code = line.split()[0]
        r = subprocess.run(g("pair", "-", "--name", "bench-guest"), input=code + "\n", env=env, capture_output=True, text=True)
        if r.returncode: sys.exit("bench-sidechannel: guest pair failed: " + r.stdout + r.stderr)
        pair.wait(60)
        for k, v in (("model.source", "external"), ("ollama.model", "tiny"), ("engine.warm", "off")):
            run(g("settings", "set", k, v))
        samples = open(f"{a.work}/samples.jsonl", "w", buffering=1)
        ids = iter(range(1, 1 << 30))
        rng = random.Random(7)
        for setting in a.settings.split(","):
            h.terminate(); h.wait(10)
            h = start_homebase(setting)
            level = level_of(setting)
            shaped = subprocess.run(g("settings", "set", "request.shaping", level), env=env, capture_output=True).returncode == 0
            time.sleep(1)
            jobs = [(t, prompt_for(t, rng)) for t in PROMPTS for _ in range(a.samples)]
            rng.shuffle(jobs)
            for i, (topic, prompt) in enumerate(jobs):
                n = next(ids)
                t0 = time.monotonic()
                out, arrivals = read_chat(g("chat", "--max-tokens", str(a.max_tokens), "--waiting-after", "60s",
                                            f"id:{n} {prompt}"), env)
                t1 = time.monotonic()
                brain = "homebase" if "[homebase" in out else "other"
                samples.write(json.dumps({"setting": setting, "topic": topic, "t0": t0, "t1": t1, "brain": brain, "id": n,
                                          "request_shaping": level if shaped else "off", "prompt_chars": len(prompt), "stdout": out[:4000],
                                          "arrivals": arrivals}) + "\n")
                print(f"{setting} {i + 1}/{len(jobs)} {topic} {brain} {t1 - t0:.2f}s", flush=True)
    finally:
        for p in reversed(procs):
            if p.poll() is None: p.kill()
        for p in procs: p.wait()

main()
