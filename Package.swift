// swift-tools-version:6.0
// Homebase: a relay, a workstation agent and a laptop agent. See docs/ARCHITECTURE.md and protocol/SPEC.md.
// Every edge is checked against the imports and the module map's rules by scripts/layers.py (make layers).
import PackageDescription

let package = Package(
    name: "Homebase",
    platforms: [.macOS(.v15)],
    products: [],
    targets: [
        // System C libraries (Debian packages), wrapped as module maps.
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CLinux"),
        // sd-bus: systemd-logind's sleep delay lock for `homebase run`.
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        // nats.c: the relay cluster's link to NATS (reconnect, discovery, TLS, JetStream).
        .systemLibrary(name: "CNats", pkgConfig: "libnats", providers: [.apt(["libnats-dev"])]),

        // The floor: hex, short keys, clocks, wipe, the duration grammar. Depends on nothing.
        .target(name: "Basics"),
        // The command-line kit of the three programs: commands, flags, usage errors (exit 2),
        // `--help`, the duration and size grammars, config file < environment < flags, key tables.
        .target(name: "CommandLineKit", dependencies: ["Basics"]),
        // The relay frames, the byte reader and writer, fixed-size bytes (ids; Bytes32 is the one
        // device key type), the relay's limits: pure codecs, no I/O; all of the wire the relay links.
        .target(name: "RelayWire", dependencies: ["Basics"]),
        // Ed25519 identities, the signature check on RelayWire's key type: all the relay may know of
        // cryptography.
        .target(name: "Signing", dependencies: ["CSodium", "RelayWire", "Basics"]),
        // HPKE, sealed envelopes, streamed-reply keys, device identity.
        .target(name: "Sealing", dependencies: ["Signing", "CSodium", "Basics"]),
        // The application messages (adverts, inference, manage, pairing, sharing, roster, invites):
        // pure codecs over RelayWire, which they re-export. The relay never links them.
        .target(name: "Wire", dependencies: ["RelayWire"]),
        // SQLite: WAL, migrations, transactions.
        .target(name: "Storage", dependencies: ["CSQLite"]),
        // Event loop, TCP, TLS, HTTP/1.1 upgrade, WebSocket codec.
        .target(name: "Transport", dependencies: ["CLinux", "COpenSSL", "Basics"]),
        // A device's link to a relay: auth, reconnect, keepalive, live/mail sends, acks, dedupe.
        .target(name: "PeerLink", dependencies: ["Transport", "RelayWire", "Signing", "Basics"]),
        // Sealed application messages over a relay link: parts, replays (per sender, kept in SQLite), streamed replies.
        .target(name: "Courier", dependencies: ["PeerLink", "Sealing", "Wire", "Signing", "Storage", "CSodium", "Basics"]),

        // Chat providers: the shared request/event vocabulary, streaming HTTP, runtime clients.
        .target(name: "Inference", dependencies: ["CCurl", "Wire", "Basics"]),
        // The guest's agent loop: Model protocol, tool-call dialects, tools, FakeModel, catalog.
        .target(name: "AgentKit", dependencies: ["Inference"], resources: [.process("Resources")]),
        // The router: settings, advert stores, freshness gates; one decision per call.
        .target(name: "Routing", dependencies: ["Inference", "Storage", "Wire", "Signing", "Basics"]),
        // On-device models: hub catalog, honest sizes, resumable downloads, the model store.
        .target(name: "ModelStore", dependencies: ["Storage", "CCurl", "Signing", "Basics"]),
        // The one bridge between the inference vocabulary and the wire schema (both directions).
        .target(name: "InferenceWire", dependencies: ["Inference", "Wire", "Sealing"]),
        // The guest's relay-routed providers: own and joined Homebase, watchdog ladder, repairs.
        .target(name: "RelayRouting", dependencies: ["Courier", "PeerLink", "Routing", "Inference", "InferenceWire", "Sealing", "Wire", "Signing"]),
        // The guest's cloud key rings (0600 files), masked, and the zero-token key test.
        .target(name: "CloudKeys", dependencies: ["Signing", "Inference"]),
        // The server behind `guest serve` (OpenAI-, Anthropic- and Ollama-compatible endpoints on
        // loopback) and the runtime record of `guest runtime`.
        .target(name: "LocalAPI", dependencies: ["Transport", "Inference", "Basics"]),

        // The relay: sessions by key, routing, mailbox, limits, metrics. Never imports Sealing.
        // NATS for the relay as a cluster: connection, subscriptions, JetStream mail calls (no relay logic).
        .target(name: "RelayCluster", dependencies: ["CNats"]),
        .target(name: "RelayServer", dependencies: ["Transport", "RelayWire", "Storage", "Signing", "Basics", "RelayCluster", "CommandLineKit"]),
        // `homebase-relay probe`: two throwaway devices check a running relay end to end.
        .target(name: "RelayProbe", dependencies: ["PeerLink", "Signing"]),
        // `homebase-relay`: its commands over CommandLineKit (the settings table stays in RelayServer).
        .executableTarget(name: "homebase-relay", dependencies: ["RelayServer", "RelayProbe", "RelayWire", "CommandLineKit"]),

        // Pairing codes, the MACs and the joining side of the pairing exchange (shared by both agents).
        .target(name: "Pairing", dependencies: ["Courier", "PeerLink", "Wire", "Sealing", "Signing", "CSodium"]),

        // The workstation agent: verified runtime, signed adverts, inference served through the relay.
        .target(name: "HomebaseAgent", dependencies: ["Pairing", "Courier", "PeerLink", "Sealing", "Signing", "Wire", "Inference", "InferenceWire", "Storage", "CSystemd", "Basics"]),
        // `homebase`: its commands, settings table and status page over CommandLineKit.
        .executableTarget(name: "homebase", dependencies: ["HomebaseAgent", "CommandLineKit", "Pairing", "PeerLink", "Sealing", "Signing", "Wire", "Transport", "Basics"]),
        // The on-device engine: one leashed llama-server, supervised (start, health, restart, warm, stop).
        .target(name: "OnDeviceEngine", dependencies: ["Inference", "CLinux"]),
        // The guest: fallback runner, router wiring, links and mail; `guest` is its CLI, every
        // command included (keys, serve, runtime, models: the libraries hold no command-line code).
        .target(name: "GuestAgent", dependencies: ["OnDeviceEngine", "Pairing", "Routing", "Inference", "AgentKit", "ModelStore", "Sealing", "Signing", "Storage", "Wire", "RelayRouting", "Courier", "PeerLink", "Basics"]),
        .executableTarget(name: "guest", dependencies: ["CommandLineKit", "GuestAgent", "CloudKeys", "LocalAPI", "Pairing", "AgentKit", "Sealing", "Signing", "Wire", "PeerLink", "ModelStore", "Basics", "RelayRouting", "Inference", "Routing", "Transport"]),

        // Writes protocol/vectors/ (make vectors).
        .executableTarget(name: "vectorgen", dependencies: ["Wire", "Sealing", "Signing", "Courier", "Pairing", "Basics"]),

        // libFuzzer targets (make fuzz); a plain build of each replays saved inputs.
        .target(name: "FuzzReplay"),
        .executableTarget(name: "fuzz-frames", dependencies: ["RelayWire", "FuzzReplay"]),
        .executableTarget(name: "fuzz-messages", dependencies: ["Wire", "FuzzReplay"]),
        .executableTarget(name: "fuzz-envelope", dependencies: ["Sealing", "Signing", "FuzzReplay"]),

        // Benchmarks (make bench): print numbers, never assert them.
        .executableTarget(name: "bench-foundation", dependencies: ["Sealing", "Signing", "Wire", "CSodium"],
                          path: "bench/foundation"),
        // make bench-relay: the relay beside Mosquitto, nats-server and raw TCP, thin blocking clients.
        .executableTarget(name: "bench-relay", dependencies: ["RelayWire", "Signing", "COpenSSL", "CLinux", "Basics", "NatsFixture"],
                          path: "bench/relay", exclude: ["README.md"]),
        // The pure test kit: seeded randomness, temp dirs, the setup error, polling waits. Links
        // nothing of the product, so codec tests build and run in seconds (make test-fast).
        // A plain target: SwiftPM lets nothing depend on a test target.
        .target(name: "TestKit", path: "Tests/TestKit"),
        // One nats-server node's configuration, for the cluster tests and bench-relay --cluster.
        // Links nothing (a fixture, never a product module's dependency).
        .target(name: "NatsFixture", path: "Tests/NatsFixture"),
        // The process kit tests and benches share (live relay, child processes, certs, ports,
        // Python peers); re-exports TestKit.
        .target(name: "TestSupport", dependencies: ["TestKit", "RelayServer", "Courier", "PeerLink", "Sealing", "Signing", "Transport", "Basics"], path: "Tests/TestSupport",
                exclude: ["peers"]),
        // The real llama-server on the tiny model for the suites carrying `.realEngine`
        // (InferenceTests, HomebaseAgentTests): a test fixture, no product module links it.
        .target(name: "EngineFixture", dependencies: ["TestSupport", "Inference"], path: "Tests/EngineFixture"),
        // What the end-to-end benches share: real processes on loopback, the guest in-process, stats.
        .target(name: "BenchSupport", dependencies: ["TestSupport", "GuestAgent", "RelayRouting", "Routing", "Inference"],
                path: "bench/support"),
        // make bench-e2e: guest → relay → Homebase → llama-server beside the engine alone, faults, 1,000 streams.
        .executableTarget(name: "bench-e2e", dependencies: ["BenchSupport", "RelayRouting", "Routing",
                                                            "Inference", "HomebaseAgent", "Courier", "PeerLink", "Sealing",
                                                            "Signing", "Transport", "Wire", "Basics", "GuestAgent", "TestSupport"],
                          path: "bench/e2e"),
        // make bench-router: the routing decision per call, and not-here → first on-device token.
        .executableTarget(name: "bench-router", dependencies: ["BenchSupport", "GuestAgent", "Routing", "Inference", "RelayRouting"],
                          path: "bench/router"),
        // make bench-homebase: the Homebase's cost per chunk and its tokens/s beside the engine alone.
        .executableTarget(name: "bench-homebase", dependencies: ["BenchSupport", "HomebaseAgent", "Courier", "PeerLink",
                                                                 "Sealing", "Signing", "Wire", "Inference", "Basics"],
                          path: "bench/homebase"),

        .testTarget(name: "BasicsTests", dependencies: ["Basics"]),
        .testTarget(name: "CommandLineKitTests", dependencies: ["CommandLineKit"]),
        .testTarget(name: "SigningTests", dependencies: ["TestKit", "Signing", "Basics"]),
        .testTarget(name: "SealingTests", dependencies: ["TestKit", "Sealing", "Signing", "Basics", "CSodium"]),
        .testTarget(name: "WireTests", dependencies: ["TestKit", "Wire"]),
        .testTarget(name: "InferenceWireTests", dependencies: ["InferenceWire", "Inference", "Wire", "Sealing"]),
        .testTarget(name: "StorageTests", dependencies: ["TestKit", "Storage"]),
        .testTarget(name: "TransportTests", dependencies: ["TestSupport", "Transport", "CLinux", "COpenSSL"], exclude: ["peers", "Fixtures"]),
        .testTarget(name: "AgentKitTests", dependencies: ["TestSupport", "AgentKit", "Inference"]),
        .testTarget(name: "RoutingTests", dependencies: ["TestKit", "Routing", "Inference", "Storage", "Wire", "Signing"]),
        .testTarget(name: "PeerLinkTests", dependencies: ["TestSupport", "PeerLink", "Transport", "Wire", "Signing", "Basics"]),
        // cluster/: three nats-server and three `homebase-relay serve` processes on loopback.
        .testTarget(name: "RelayServerTests", dependencies: ["TestSupport", "Basics", "RelayServer", "RelayCluster", "Transport", "Wire", "Signing",
                                                            "NatsFixture"]),
        .testTarget(name: "CourierTests", dependencies: ["TestSupport", "Courier", "PeerLink", "Sealing", "Wire", "Signing", "Transport", "RelayServer", "Basics"]),
        .testTarget(name: "RelayRoutingTests", dependencies: ["TestSupport", "RelayRouting", "InferenceWire", "Courier", "Routing", "Inference", "Sealing", "Wire", "Signing", "PeerLink", "Transport", "RelayServer"]),
        .testTarget(name: "RelayProbeTests", dependencies: ["TestSupport", "RelayProbe", "RelayServer", "PeerLink", "Transport", "Wire", "Signing"]),
        .testTarget(name: "VectorTests", dependencies: ["Wire", "Sealing", "Signing", "Courier", "Pairing", "CSodium", "Basics"]),
        .testTarget(name: "ModelStoreTests", dependencies: ["TestSupport", "ModelStore", "guest"], exclude: ["peers"]),
        .testTarget(name: "InferenceTests", dependencies: ["TestSupport", "EngineFixture", "Inference"], exclude: ["peers"]),
        .testTarget(name: "HomebaseAgentTests", dependencies: ["TestSupport", "EngineFixture", "HomebaseAgent", "homebase", "CommandLineKit", "InferenceWire", "Courier", "PeerLink", "Sealing", "Signing", "Wire", "Inference", "Storage", "RelayServer", "RelayRouting", "Pairing", "Transport", "Basics"]),
        .testTarget(name: "GuestAgentTests", dependencies: ["TestSupport", "GuestAgent", "OnDeviceEngine", "Routing", "Inference", "AgentKit", "ModelStore", "Sealing", "Signing", "Wire", "Courier", "PeerLink", "Transport", "Basics", "Pairing"],
                    exclude: ["peers"]),
        .testTarget(name: "PairingTests", dependencies: ["Pairing", "Wire", "Sealing", "Signing"]),
        .testTarget(name: "CloudKeysTests", dependencies: ["TestSupport", "CloudKeys", "Signing", "Inference", "guest"]),
        // Real processes on loopback (relay, homebase, guest, llama-server): no module but
        // Pairing (a pure codec, to forge codes the way an attacker would) and TestSupport (its
        // child processes, ports). peers/: the stand-in engine.
        .testTarget(name: "EndToEndTests", dependencies: ["Pairing", "TestSupport", "Wire"], exclude: ["peers"]),
        .testTarget(name: "LocalAPITests", dependencies: ["TestSupport", "LocalAPI", "Inference", "Transport", "guest", "CommandLineKit"], exclude: ["peers"]),
    ]
)
