// swift-tools-version:6.0
// Homebase: a relay, a workstation agent and a laptop agent. See ../shared/DESIGN.md and protocol/SPEC.md.
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

        // Ed25519 identities and signature checks: all the relay may know of cryptography.
        .target(name: "Signing", dependencies: ["CSodium"]),
        // HPKE, sealed envelopes, streamed-reply keys, device identity.
        .target(name: "Sealing", dependencies: ["Signing", "CSodium"]),
        // Relay frames and application messages: pure codecs, no I/O.
        .target(name: "Wire"),
        // SQLite: WAL, migrations, transactions.
        .target(name: "Storage", dependencies: ["CSQLite"]),
        // Event loop, TCP, TLS, HTTP/1.1 upgrade, WebSocket codec.
        .target(name: "Transport", dependencies: ["CLinux", "COpenSSL"]),

        // Chat providers: the shared request/event vocabulary, streaming HTTP, runtime clients.
        .target(name: "Inference", dependencies: ["CCurl"]),

        // Writes protocol/vectors/ (make vectors).
        .executableTarget(name: "vectorgen", dependencies: ["Wire", "Sealing", "Signing"]),

        // libFuzzer targets (make fuzz); a plain build of each replays saved inputs.
        .target(name: "FuzzReplay"),
        .executableTarget(name: "fuzz-frames", dependencies: ["Wire", "FuzzReplay"]),
        .executableTarget(name: "fuzz-messages", dependencies: ["Wire", "FuzzReplay"]),

        .testTarget(name: "SigningTests", dependencies: ["Signing"]),
        .testTarget(name: "SealingTests", dependencies: ["Sealing", "Signing"]),
        .testTarget(name: "WireTests", dependencies: ["Wire"]),
        .testTarget(name: "StorageTests", dependencies: ["Storage"]),
        .testTarget(name: "TransportTests", dependencies: ["Transport"], exclude: ["peers"]),
        .testTarget(name: "VectorTests", dependencies: ["Wire", "Sealing", "Signing"]),
        .testTarget(name: "InferenceTests", dependencies: ["Inference"], exclude: ["peers"]),
    ]
)
