#!/usr/bin/env python3
"""The layer check: every `import` of every target against Package.swift, and the module graph
against the rules of docs/ARCHITECTURE.md ("The module map"). `make test` runs it before the build.

    scripts/layers.py [--root DIR] [--graph]

Fails (exit 1), one sentence a violation, when a file imports a module its target does not declare,
a target declares a module none of its files imports, or the declared graph lets a module reach
one the rules keep it from (reachability is transitive: what a dependency reaches, you reach).
Exit 2: the tree cannot be read (no Package.swift, a target it cannot parse). Standard library only.
"""
import os
import re
import sys
from collections import deque

# Modules of the toolchain and the system: always there, never declared.
SYSTEM = {"Swift", "Foundation", "FoundationEssentials", "FoundationNetworking", "Glibc", "Darwin",
          "Musl", "Dispatch", "Synchronization", "Testing", "XCTest", "_Concurrency", "os"}

RELAY = ["RelayServer", "RelayProbe", "homebase-relay"]
HOST_ROLE = ["HomebaseAgent", "homebase"]
GUEST_ROLE = ["GuestAgent", "guest", "RelayRouting", "Routing", "LocalAPI", "CloudKeys", "AgentKit", "ModelStore",
              "OnDeviceEngine"]

# (who, what it may not reach, why). Reachability over the declared graph, after every import is
# known to be declared.
FORBIDDEN = [
    (RELAY, ["Sealing", "Courier"],
     "the relay forwards sealed frames it cannot open: RelayServer, RelayProbe and homebase-relay may "
     "never link the code that opens them (Sealing, Courier)"),
    (RELAY, ["Wire"],
     "the relay links only the relay frames: RelayServer, RelayProbe and homebase-relay import RelayWire, "
     "never Wire, whose application schemas (adverts, inference, manage, pairing, sharing) only the "
     "Homebase and the guest read"),
    (["RelayWire"], "*",
     "RelayWire is the relay frames every side reads, the relay included: it depends on nothing but "
     "Basics, so it can do no I/O and drags nothing into the relay"),
    (["Wire"], "*",
     "Wire is the application schemas over RelayWire: it depends on nothing but RelayWire, so it can do "
     "no I/O"),
    (["Basics"], "*",
     "Basics is the floor every module stands on: it depends on no other module"),
    (["CommandLineKit"], "*",
     "CommandLineKit is the three programs' command-line kit (flags, usage errors, the value grammars, "
     "config layers): it stands on Basics alone, so any program, and its pure tests, can use it without "
     "linking a product module"),
    (["TestKit"], "*",
     "TestKit is the pure test kit: codec tests that use it must build without the relay, processes "
     "or sockets, so it depends on no other module"),
    (["NatsFixture"], "*",
     "NatsFixture is a test and bench fixture (a nats-server configuration): it depends on no other "
     "module, and only tests and benches use it"),
    (RELAY + ["RelayCluster"] + HOST_ROLE + GUEST_ROLE, ["NatsFixture", "EngineFixture"],
     "a fixture is not shipped: no product module links the tests' nats-server configuration or their "
     "real-engine launcher"),
    (["Sealing"], ["Transport", "PeerLink", "Courier", "CLinux", "COpenSSL", "CCurl"],
     "Sealing knows no sockets: it seals and opens bytes, and what carries them is another layer's "
     "business"),
    (HOST_ROLE, GUEST_ROLE,
     "the two roles never see each other: the Homebase (HomebaseAgent, homebase) and the guest "
     "(GuestAgent, guest and the guest's own libraries) meet only through the wire schema"),
    (["GuestAgent", "guest"], HOST_ROLE,
     "the two roles never see each other: the guest meets the Homebase only through the wire schema"),
    ([m for m in GUEST_ROLE if m != "guest"] + ["HomebaseAgent"], ["CommandLineKit"],
     "libraries hold no command-line code; commands live in the executables (guest, homebase, "
     "homebase-relay), so a library parses no flag and prints no usage"),
    (["Inference", "OnDeviceEngine"], ["Routing", "RelayRouting", "GuestAgent", "guest"],
     "Inference never chooses routes, nor does OnDeviceEngine: they speak to the one engine they are handed "
     "(or supervise), and the router above them decides which"),
]
# What the codecs and Basics may import at all (system modules included: no Foundation, no Glibc).
ONLY_IMPORTS = {"RelayWire": {"Basics"}, "Wire": {"RelayWire"}, "Basics": {"Glibc", "Darwin", "Musl"},
                "CommandLineKit": {"Basics", "Glibc", "Darwin", "Musl"}}

# The relay reaches CSodium through Signing (Ed25519 checks of device proofs, SHA-256, random ids):
# allowed, because these calls cannot open a payload. Any other libsodium call in a module the relay
# reaches (a box, an AEAD, a key exchange) fails.
RELAY_SODIUM_ALLOWED = re.compile(
    r"^(crypto_sign_\w*|crypto_hash_sha256\w*|randombytes_\w+|sodium_(init|memzero|memcmp))$")
SODIUM_CALL = re.compile(r"\b(crypto_\w+|randombytes_\w+|sodium_\w+)")

IMPORT = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*import\s+(?:(?:typealias|struct|class|enum|protocol|"
                    r"let|var|func)\s+)?([A-Za-z_][A-Za-z0-9_]*)")


class Target:
    def __init__(self, name, kind, deps, path, exclude):
        self.name, self.kind, self.deps, self.path, self.exclude = name, kind, deps, path, exclude
        self.imports = {}  # module -> first "file:line"
        self.sodium_calls = {}  # symbol -> first "file:line"


def closing(text, start):
    """Index of the parenthesis closing the one at `start`, skipping string literals."""
    depth, i, quoted = 0, start, False
    while i < len(text):
        c = text[i]
        if quoted:
            if c == "\\":
                i += 1
            elif c == '"':
                quoted = False
        elif c == '"':
            quoted = True
        elif c == "/" and text.startswith("//", i):
            i = text.find("\n", i)
            if i < 0:
                break
        elif c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise SystemExit("layers: Package.swift: a target's parentheses do not close")


def strings(text):
    return re.findall(r'"([^"]*)"', text)


def list_arg(body, label):
    m = re.search(label + r"\s*:\s*\[", body)
    if not m:
        return []
    end = closing(body, m.end() - 1)
    return strings(body[m.end():end])


def read_package(root):
    path = os.path.join(root, "Package.swift")
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        print(f"layers: cannot read {path}: {e.strerror}: run from the repository or pass --root", file=sys.stderr)
        sys.exit(2)
    text = "\n".join(re.sub(r"^\s*//.*$", "", line) for line in text.split("\n"))
    targets = {}
    for m in re.finditer(r"\.(target|executableTarget|testTarget|systemLibrary)\(", text):
        body = text[m.end():closing(text, m.end() - 1)]
        name = re.match(r'\s*name:\s*"([^"]+)"', body)
        if not name:
            raise SystemExit(f"layers: Package.swift: a .{m.group(1)} without a name first")
        kind, name = m.group(1), name.group(1)
        p = re.search(r'\bpath:\s*"([^"]+)"', body)
        default = "Tests" if kind == "testTarget" else "Sources"
        targets[name] = Target(name, kind, list_arg(body, "dependencies"),
                               p.group(1) if p else f"{default}/{name}", list_arg(body, "exclude"))
    return targets


def code_lines(path):
    """(line number, code) with comments and multi-line string literals blanked."""
    in_block, in_string = False, False
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    for n, line in enumerate(lines, 1):
        if in_string:
            if '"""' in line:
                in_string = False
            continue
        if in_block:
            if "*/" not in line:
                continue
            line, in_block = line.split("*/", 1)[1], False
        line = re.sub(r"/\*.*?\*/", "", line)
        if "/*" in line:
            line, in_block = line.split("/*", 1)[0], True
        if line.count('"""') % 2 == 1:
            line, in_string = line.split('"""', 1)[0], True
        line = re.sub(r'"(?:[^"\\]|\\.)*"', '""', line).split("//", 1)[0]
        yield n, line


def scan(root, t):
    base = os.path.join(root, t.path)
    skip = [os.path.join(base, e) for e in t.exclude]
    for d, dirs, files in os.walk(base):
        dirs[:] = sorted(x for x in dirs if os.path.join(d, x) not in skip)
        for f in sorted(files):
            full = os.path.join(d, f)
            if not f.endswith(".swift") or full in skip:
                continue
            rel = os.path.relpath(full, root)
            for n, line in code_lines(full):
                m = IMPORT.match(line)
                if m:
                    t.imports.setdefault(m.group(1), f"{rel}:{n}")
                for s in SODIUM_CALL.findall(line):
                    t.sodium_calls.setdefault(s, f"{rel}:{n}")


def path_to(targets, start, goals):
    """The shortest declared path from `start` to any of `goals`, or None."""
    seen, queue = {start: None}, deque([start])
    while queue:
        here = queue.popleft()
        if here in goals and here != start:
            out = [here]
            while seen[out[-1]] is not None:
                out.append(seen[out[-1]])
            return out[::-1]
        for d in targets[here].deps if here in targets else []:
            if d not in seen:
                seen[d] = here
                queue.append(d)
    return None


def reachable(targets, start):
    seen, queue = {start}, deque([start])
    while queue:
        for d in targets[queue.popleft()].deps:
            if d in targets and d not in seen:
                seen.add(d)
                queue.append(d)
    return seen


def check(root):
    targets = read_package(root)
    problems = []
    for t in targets.values():
        if t.kind != "systemLibrary":
            scan(root, t)
    for t in targets.values():
        for d in t.deps:
            if d not in targets:
                problems.append(f'{t.name} declares "{d}", which is no target of Package.swift: remove it or add the target.')
        for mod, where in sorted(t.imports.items()):
            if mod == t.name or mod in SYSTEM:
                continue
            if mod not in targets:
                problems.append(f"{where}: {t.name} imports {mod}, which is neither a target of Package.swift nor a "
                                f"system module: add the target, or add {mod} to SYSTEM in scripts/layers.py if the toolchain ships it.")
            elif mod not in t.deps:
                problems.append(f'{where}: {t.name} imports {mod} but Package.swift does not declare it: add "{mod}" '
                                f"to {t.name}'s dependencies (SwiftPM builds it only because something else needs it).")
        if t.kind != "systemLibrary":
            for d in t.deps:
                if d in targets and d not in t.imports:
                    problems.append(f'{t.name} declares "{d}" but none of its files imports it: remove it from '
                                    f"{t.name}'s dependencies in Package.swift.")
    for name, allowed in ONLY_IMPORTS.items():
        if name in targets:
            for mod, where in sorted(targets[name].imports.items()):
                if mod not in allowed:
                    why = next(w for who, _, w in FORBIDDEN if who == [name])
                    problems.append(f"{where}: {name} imports {mod}, and it may import only "
                                    f"{', '.join(sorted(allowed)) or 'nothing'}: {why}.")
    for who, banned, why in FORBIDDEN:
        for start in who:
            if start not in targets:
                continue
            if banned == "*":
                allowed = ONLY_IMPORTS.get(start, set())
                extra = [d for d in targets[start].deps if d not in allowed]
                if extra:
                    problems.append(f"{start} depends on {', '.join(extra)}: {why}.")
                continue
            route = path_to(targets, start, set(banned))
            if route:
                problems.append(f"{' → '.join(route)}: {start} may not reach {route[-1]}, because {why}.")
    # The relay reaches CSodium only through modules whose libsodium calls cannot open a payload.
    for start in RELAY:
        if start not in targets:
            continue
        for mod in sorted(reachable(targets, start)):
            for sym, where in sorted(targets[mod].sodium_calls.items()):
                if not RELAY_SODIUM_ALLOWED.match(sym):
                    problems.append(f"{where}: {mod} calls {sym}, and {start} reaches {mod}: a module the relay links "
                                    f"may call only libsodium's signatures, SHA-256, random bytes and memory helpers "
                                    f"(crypto_sign_*, crypto_hash_sha256*, randombytes_*, sodium_init/memzero/memcmp), "
                                    f"never a box, an AEAD or a key exchange: the relay must hold no code that opens a payload.")
    return targets, sorted(set(problems))


def main(argv):
    root, graph = os.path.dirname(os.path.dirname(os.path.abspath(__file__))), False
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--root" and args:
            root = args.pop(0)
        elif a == "--graph":
            graph = True
        else:
            print(f"layers: unknown argument {a!r}: usage: scripts/layers.py [--root DIR] [--graph]", file=sys.stderr)
            return 2
    targets, problems = check(root)
    if graph:
        for t in sorted(targets.values(), key=lambda t: t.name):
            print(f"{t.name} → {', '.join(t.deps) or '(nothing)'}")
    edges = sum(len(t.deps) for t in targets.values())
    if problems:
        print(f"layers: {len(problems)} violation(s) in the module graph ({len(targets)} targets, {edges} declared edges):")
        for p in problems:
            print(f"  - {p}")
        print("The rules and their reasons: docs/ARCHITECTURE.md, \"The module map\".")
        return 1
    print(f"layers: {len(targets)} targets, {edges} declared edges: every import declared, no forbidden edge")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
