#!/usr/bin/env python3
"""Which padding ladder for requests (#22): Padme (Nikitin et al., PETS 2019) or powers of two
with a floor. Simulated on the bench's own prompts (the `off` answers of samples.jsonl: body =
prompt characters + REQUEST_FIELDS, the request-v2 fields around the text, an estimate) and on
image uploads of log-uniform sizes (50 KB to 10 MiB). Per ladder: how many sizes the relay can
tell apart, the topic AUPRC from the request's size alone (random forest, 5-fold), and the bytes
it costs. Usage: ladder.py WORK_DIR."""
import json, math, random, sys
import numpy as np
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import average_precision_score
from sklearn.model_selection import StratifiedKFold, cross_val_predict

REQUEST_FIELDS = 110
BUCKETS = [256 << i for i in range(9)] + [65536 * k for k in range(2, 17)]
ENV, HEADER, PART, MAXBODY = 49, 60, 25, 32708

def bucket(plain, floor=0): return next(b for b in BUCKETS if b >= plain and b >= floor)

def padme(n):
    if n < 2: return n
    e = int(math.floor(math.log2(n))); s = int(math.floor(math.log2(e))) + 1
    mask = (1 << (e - s)) - 1
    return (n + mask) & ~mask

def frames(body, room, size): return math.ceil(body / (room - PART)) if body > room else 1

def pow2(n): return 1 << max(0, math.ceil(math.log2(n)))

# Each ladder: body bytes -> total bytes the relay sees (frames x size, + 49 per envelope).
LADDERS = {
    "none (exact)": lambda b: ENV + HEADER + b,
    "off (today: smallest bucket, 32 KiB parts)": lambda b: ENV + bucket(HEADER + b) if b <= MAXBODY else
        (frames(b, MAXBODY, 0) - 1) * (ENV + 32768) + ENV + bucket(HEADER + PART + b - (frames(b, MAXBODY, 0) - 1) * (MAXBODY - PART)),
    "Padme on the whole request": lambda b: ENV + padme(HEADER + b) if b <= MAXBODY else
        math.ceil(padme(b) / (MAXBODY - PART)) * (ENV + 32768),
    "padded (powers of two, floor 2048)": lambda b: ENV + bucket(HEADER + b, 2048) if b <= MAXBODY else
        pow2(frames(b, MAXBODY, 0)) * (ENV + 32768),
    "cadence (4096 frames, a power of two)": lambda b: pow2(frames(b, 4036, 0)) * (ENV + 4096),
}

def auprc(x, y):
    clf = RandomForestClassifier(n_estimators=200, random_state=0)
    cv = StratifiedKFold(n_splits=5, shuffle=True, random_state=0)
    p = cross_val_predict(clf, np.array(x).reshape(-1, 1), y, cv=cv, method="predict_proba")
    return np.mean([average_precision_score(y == c, p[:, i]) for i, c in enumerate(sorted(set(y)))])

samples = [json.loads(l) for l in open(f"{sys.argv[1]}/samples.jsonl")]
prompts = [(s["prompt_chars"] + REQUEST_FIELDS, s["topic"]) for s in samples if s["setting"] == "off"]
y = np.array([t for _, t in prompts])
rng = random.Random(1)
images = [int(math.exp(rng.uniform(math.log(50_000), math.log(10 << 20)))) for _ in range(2000)]
print(f"{len(prompts)} prompts (chance AUPRC {np.mean([np.mean(y == c) for c in set(y)]):.3f}), {len(images)} image uploads")
print("| ladder | prompt sizes seen | topic AUPRC from the prompt's size | bytes per prompt | image sizes seen | image overhead (mean, max) |")
print("|---|---|---|---|---|---|")
for name, f in LADDERS.items():
    sizes = [f(b) for b, _ in prompts]
    img = [f(b) for b in images]
    over = [s / b - 1 for s, b in zip(img, images)]
    print(f"| {name} | {len(set(sizes))} | {auprc(sizes, y):.3f} | {np.mean(sizes):,.0f} | {len(set(img))} |"
          f" {100 * np.mean(over):.0f}%, {100 * max(over):.0f}% |")
