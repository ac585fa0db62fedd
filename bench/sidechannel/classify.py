#!/usr/bin/env python3
"""Topic classifier on the relay-visible trace (capture.py frames, bench.py answer windows).
Per defence setting: 5-fold cross-validated random forest on features of the frames of each
answer (sizes and times, both directions), reporting AUPRC (one topic against the rest,
averaged over topics; chance = the topic's base rate), accuracy against the base rate, and the
cost (down bytes, frames, stream time per answer; the delay from the engine's emitting a
token to the reader's getting it, with emits.jsonl from the stand-in), and the AUPRC from the
time of the first text frame alone (where prefill and a release boundary show), and each
feature's AUPRC alone (which one carries the topic). Usage: classify.py WORK_DIR."""
import json, sys
from collections import Counter
import numpy as np
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import average_precision_score, accuracy_score
from sklearn.model_selection import StratifiedKFold, cross_val_predict

W = sys.argv[1]
frames = [json.loads(l) for l in open(f"{W}/frames.jsonl")]
frames = [f for f in frames if f["op"] == 2]  # binary messages: relay frames
samples = [json.loads(l) for l in open(f"{W}/samples.jsonl")]
first_seen = {}
for f in frames: first_seen.setdefault(f["c"], f["t"])
SEQ = 40
emits = {}
try:
    for l in open(f"{W}/emits.jsonl"):
        e = json.loads(l); emits[e["id"]] = e
except FileNotFoundError: pass

def token_delay(s):
    """Mean seconds from the engine's emitting a piece of text to `guest chat` printing it, and
    the time to the first text: None without the stand-in's log for this answer."""
    e, arr = emits.get(s.get("id")), s.get("arrivals")
    if not e or not arr or not e["emits"]: return None
    at = s["stdout"].find(e["text"][:12])
    if at < 0: return None
    delays = []
    for t, c in e["emits"]:
        got = next((ta for ta, n in arr if n >= at + c), None)
        if got is not None: delays.append(got - t)
    first = next((ta for ta, n in arr if n > at), None)
    return (float(np.mean(delays)), first - s["t0"]) if delays and first else None

def features(s):
    # The guest's connections (opened by this `guest chat`); the Homebase's link is older.
    fs = [f for f in frames if s["t0"] <= f["t"] <= s["t1"] and first_seen[f["c"]] >= s["t0"]]
    up = [f for f in fs if f["d"] == "up"]
    if not up: return None
    req = max(up, key=lambda f: f["n"])
    down = [f for f in fs if f["d"] == "down" and f["t"] >= req["t"]]
    t = np.array([f["t"] - req["t"] for f in down] or [0.0])
    n = np.array([f["n"] for f in down] or [0])
    gaps = np.diff(t) if len(t) > 1 else np.array([0.0])
    seq_n = np.zeros(SEQ); seq_n[: min(SEQ, len(n))] = n[:SEQ]
    seq_g = np.zeros(SEQ); seq_g[: min(SEQ, len(gaps))] = gaps[:SEQ]
    reply = [len(down), n.sum(), t[-1], t[min(2, len(t) - 1)], gaps.mean(), gaps.std(), np.median(gaps),
             n.mean(), n.std(), len(set(n.tolist()))]
    request = [req["n"], len(up), sum(f["n"] for f in up)]
    # The 3rd reply frame is the first text chunk (an acknowledgement and the reply's header come
    # first): its time is the prefill, and a release boundary's.
    first = [t[min(2, len(t) - 1)]]
    return np.array(reply + request + list(seq_n) + list(seq_g) + first), dict(bytes=int(n.sum()), frames=len(down), time=float(t[-1]),
                                                                    up=sum(f["n"] for f in up), req=req["n"], delay=token_delay(s))

def score(X, y, seed=0):
    clf = RandomForestClassifier(n_estimators=300, random_state=seed)
    cv = StratifiedKFold(n_splits=5, shuffle=True, random_state=seed)
    proba = cross_val_predict(clf, X, y, cv=cv, method="predict_proba")
    classes = sorted(set(y))
    auprc = np.mean([average_precision_score(y == c, proba[:, i]) for i, c in enumerate(classes)])
    base = np.mean([np.mean(y == c) for c in classes])
    acc = accuracy_score(y, np.array(classes)[proba.argmax(1)])
    return auprc, acc, base, max(np.mean(y == c) for c in classes)

# Which feature carries the signal: the AUPRC of each column (or group) alone, per setting.
SINGLE = [("frames", [0]), ("total bytes", [1]), ("duration", [2]), ("first text frame's time", [3]),
          ("gap mean", [4]), ("gap std", [5]), ("gap median", [6]), ("size mean", [7]), ("size std", [8]),
          ("distinct sizes", [9]), ("request frame size", [10]), ("request frames", [11]), ("up bytes", [12]),
          ("first 40 sizes", list(range(13, 13 + SEQ))), ("first 40 gaps", list(range(13 + SEQ, 13 + 2 * SEQ)))]
per_feature = {}

rows, noise = [], {}
for setting in dict.fromkeys(s["setting"] for s in samples):
    got = [(features(s), s["topic"]) for s in samples if s["setting"] == setting and s["brain"] == "homebase"]
    got = [(f, t) for f, t in got if f is not None]
    if len(got) < 10: print(f"{setting}: only {len(got)} answers"); continue
    X = np.array([f[0] for f, _ in got]); y = np.array([t for _, t in got]); cost = [f[1] for f, _ in got]
    all_ = score(X, y); rep = score(X[:, :10], y); req = score(X[:, 10:13], y); fst = score(X[:, -1:], y)
    # Noise: the same classifier on labels shuffled (no signal at all), 5 times.
    shuffled = [score(X, np.random.default_rng(k).permutation(y), seed=k)[0] for k in range(5)]
    noise[setting] = (np.mean(shuffled), np.std(shuffled))
    per_feature[setting] = [(name, score(X[:, cols], y)[0], None) for name, cols in SINGLE]
    per_feature[setting].append(("frames by topic", None, {t: sorted(Counter(int(v) for v in X[y == t, 0]).most_common(5))
                                                           for t in sorted(set(y))}))
    d = [c["delay"] for c in cost if c["delay"]]
    rows.append((setting, len(y), all_, rep, req, fst, np.mean([c["bytes"] for c in cost]), np.mean([c["frames"] for c in cost]),
                 np.mean([c["time"] for c in cost]), np.mean([c["up"] for c in cost]), sorted(set(c["req"] for c in cost)),
                 np.mean([x[0] for x in d]) * 1000 if d else float("nan"), np.mean([x[1] for x in d]) * 1000 if d else float("nan")))
print("| setting | answers | AUPRC all (chance) | accuracy all (base) | AUPRC reply only | AUPRC request only | AUPRC first text frame's time only | delay per token ms | first text ms | down bytes/answer | up bytes/answer | frames/answer | stream s/answer | request frame sizes |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for s, n, a, rp, rq, fs, b, fr, tm, up, sizes, dl, ft in rows:
    print(f"| {s} | {n} | {a[0]:.3f} ({a[2]:.3f}) | {a[1]:.3f} ({a[3]:.3f}) | {rp[0]:.3f} | {rq[0]:.3f} | {fs[0]:.3f} | {dl:.1f} | {ft:.0f} | {b:,.0f} | {up:,.0f} | {fr:.1f} | {tm:.2f} | {' '.join(map(str, sizes))} |")
print()
for s, (m, sd) in noise.items():
    print(f"{s}: AUPRC with shuffled labels {m:.3f} +- {sd:.3f} (the noise a setting's AUPRC is within)")
print()
print("AUPRC of each feature alone (which one carries the topic; chance = the base rate):")
names = [n for n, _ in SINGLE]
print("| setting | " + " | ".join(names) + " |")
print("|---|" + "---|" * len(names))
for s, feats in per_feature.items():
    print(f"| {s} | " + " | ".join(f"{a:.3f}" for n, a, _ in feats if a is not None) + " |")
for s, feats in per_feature.items():
    print(f"{s}: reply frames per answer (the 5 most common: frames x answers) by topic: "
          + "; ".join(f"{t} " + " ".join(f"{v}x{k}" for v, k in c) for t, c in feats[-1][2].items()))
