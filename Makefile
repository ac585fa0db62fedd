# The README's two commands are `make demo` and `make test`. Everything else is for developers.
SWIFT_FLAGS := -Xswiftc -warnings-as-errors
# `swift build` of each product in $(1) (SwiftPM builds one --product a call), in the
# configuration $(2), release when not given; the first that fails stops the recipe.
build-products = for p in $(1); do swift build -c $(or $(2),release) --product $$p $(SWIFT_FLAGS) || exit 1; done
.PHONY: test test-fast layers demo build fuzz bench bench-relay bench-cluster bench-e2e bench-router bench-homebase setup vectors engine bench-sidechannel

setup:
	@scripts/setup.sh

build: setup
	swift build $(SWIFT_FLAGS)

# The real inference engine (llama-server, built once into ~/.cache/homebase/engine, ~15-25 min
# the first time) and the tiny model it serves: tests run against them, never against a mock.
engine: setup
	@scripts/engine/install.sh >/dev/null
	@scripts/engine/tiny_model.sh >/dev/null

# The layer check (scripts/layers.py: imports against Package.swift and the module map of
# docs/ARCHITECTURE.md) runs first: a forbidden edge fails in a second, not after the build.
layers:
	@scripts/layers.py

test: layers setup engine
	swift build --build-tests $(SWIFT_FLAGS)
	scripts/test.sh

# The pure targets only (codecs, sealing, storage, routing: no relay, no child process, no
# socket), each in seconds once built; scripts/test.sh picks them from Package.swift.
test-fast: layers setup
	swift build --build-tests $(SWIFT_FLAGS)
	scripts/test.sh --fast

# The loopback demo: relay, homebase, guest, an answer through the relay, then a fallback.
demo:
	@scripts/demo.sh

vectors: setup
	swift run vectorgen protocol/vectors

# libFuzzer on the decoders: FUZZ_SECONDS each (default 60), corpus seeded from protocol/vectors.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= fuzz-frames fuzz-messages fuzz-envelope
fuzz: setup
	scripts/fuzz.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# Benchmarks print numbers (release build); results are kept in docs/BENCHMARKS.md.
bench: setup
	swift run -c release bench-foundation

# The relay beside Mosquitto, nats-server and raw TCP through the same thin blocking clients
# (bench/relay/README.md): latency, throughput, memory per idle TLS connection; a markdown table.
# BENCH_RELAY_FLAGS: --runs N, --connections N, --count N, --no-memory; or --cluster first (bench-cluster).
bench-relay: setup
	@scripts/setup.sh mosquitto nats-server
	$(call build-products,homebase-relay bench-relay)
	.build/release/bench-relay $(BENCH_RELAY_FLAGS)

# The relay cluster (#19): relay node A → NATS → relay node B beside one relay and NATS alone
# (3 nats-servers with JetStream on loopback), mail send → stored with R3 beside SQLite.
# BENCH_CLUSTER_FLAGS: --runs N, --count N, --throughput-count N, --mail-count N.
bench-cluster:
	@$(MAKE) --no-print-directory bench-relay BENCH_RELAY_FLAGS="--cluster $(BENCH_CLUSTER_FLAGS)"

# The product end to end on loopback (bench/e2e): a real relay, Homebase and llama-server, the
# guest in-process: TTFT and tokens/s beside the engine alone, time to the first fallback token
# per fault, 1,000 concurrent streams, a tool round trip and a 5 MB image (#23). BENCH_E2E_FLAGS: see `.build/release/bench-e2e --help`.
bench-e2e: setup engine
	$(call build-products,homebase-relay homebase guest bench-e2e)
	.build/release/bench-e2e $(BENCH_E2E_FLAGS)

# The guest's routing decision per call and not-here -> first on-device token (bench/router).
bench-router: setup engine
	$(call build-products,homebase-relay homebase guest bench-router)
	.build/release/bench-router $(BENCH_ROUTER_FLAGS)

# The Homebase's cost per chunk and its tokens/s beside the engine alone (bench/homebase).
bench-homebase: setup engine
	$(call build-products,homebase-relay homebase bench-homebase)
	.build/release/bench-homebase $(BENCH_HOMEBASE_FLAGS)

# What the relay learns of an answer's topic from frame sizes and timing (bench/sidechannel):
# the real relay, Homebase and guest, a STAND-IN engine streaming canned answers on 3 topics
# (differing in rhythm, length and pasted context), a capture proxy, a random forest per setting
# (the Homebase's reply-shaping and the guest's request.shaping, same level), then the request
# ladders simulated (ladder.py). scikit-learn in a venv under .build (made once).
# BENCH_SIDECHANNEL_FLAGS: --samples N (per topic), --settings off,padded,cadence (LEVEL:WINDOW and
# padded+boundary too). SIDECHANNEL_CONFIG=debug measures debug binaries (when a release build
# cannot finish in time; docs/SIDE-CHANNEL.md says which kind each table used).
SIDECHANNEL_VENV := .build/sidechannel-venv
SIDECHANNEL_CONFIG ?= release
bench-sidechannel: setup
	$(call build-products,homebase-relay homebase guest,$(SIDECHANNEL_CONFIG))
	@test -x $(SIDECHANNEL_VENV)/bin/python || python3 -m venv $(SIDECHANNEL_VENV)
	@$(SIDECHANNEL_VENV)/bin/python -c 'import sklearn' 2>/dev/null || $(SIDECHANNEL_VENV)/bin/pip install -q scikit-learn
	rm -rf .build/sidechannel-run
	$(SIDECHANNEL_VENV)/bin/python bench/sidechannel/bench.py $$(swift build -c $(SIDECHANNEL_CONFIG) --show-bin-path) .build/sidechannel-run $(BENCH_SIDECHANNEL_FLAGS)
	$(SIDECHANNEL_VENV)/bin/python bench/sidechannel/classify.py .build/sidechannel-run
	$(SIDECHANNEL_VENV)/bin/python bench/sidechannel/ladder.py .build/sidechannel-run
