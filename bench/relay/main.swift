import Foundation

// bench-relay: the relay beside Mosquitto, nats-server and raw TCP, all through the same thin
// blocking clients (bench/relay/README.md). With no command it runs everything and prints a
// markdown table; the other commands are its child processes.
let args = Array(CommandLine.arguments.dropFirst())

func usage() -> Never {
    FileHandle.standardError.write(Data("""
        usage: bench-relay [--runs N] [--connections N] [--count N] [--no-memory | --memory-only]
               bench-relay --cluster [--runs N] [--count N] [--throughput-count N] [--mail-count N] [--connections N]
               bench-relay latency PROTO PORT[:PORTB] tls|plain echo|pair COUNT WARMUP SIZE
               bench-relay throughput PROTO PORT[:PORTB] tls|plain COUNT SIZE
               bench-relay mail PORT COUNT WARMUP SIZE
               bench-relay hold PROTO PORT tls|plain COUNT
               bench-relay raw-server PORT echo|forward|forward-tls [CERT KEY]
               bench-relay memory relay|mosquitto tls|plain [ENV=VALUE ...]   (BENCH_CONNECTIONS, BENCH_RUNS)
        PORTB: the second peer on another server. --cluster: 3 nats-servers (JetStream) and 2 relay nodes
        beside one relay and NATS alone (defaults: --runs 3, --count 1000, --throughput-count 2000, --mail-count 200,
        --connections 1000: idle devices held on one cluster node and on one single node, 0 skips).
        PROTO: relay, mqtt, nats, raw. --connections: idle connections held in the memory section (default 10000),
        from 127.0.0.2, 127.0.0.3, ... (16,000 each); 100000 needs root (or a hard open-file limit above it).

        """.utf8))
    exit(2)
}

func int(_ i: Int) -> Int { guard i < args.count, let v = Int(args[i]) else { usage() }; return v }
/// `PORT` or `PORT:PORTB`.
func ports(_ i: Int) -> (UInt16, UInt16?) {
    guard i < args.count else { usage() }
    let p = args[i].split(separator: ":").map { UInt16($0) }
    guard (1...2).contains(p.count), let a = p[0] else { usage() }
    if p.count == 2 { guard let b = p[1] else { usage() }; return (a, b) }
    return (a, nil)
}
func proto(_ i: Int) -> Proto { guard i < args.count, let p = Proto(rawValue: args[i]) else { usage() }; return p }

do {
    switch args.first {
    case "latency":
        try Workloads.latency(proto(1), port: ports(2).0, portB: ports(2).1, tls: args[3] == "tls", echo: args[4] == "echo",
                              count: int(5), warmup: int(6), size: int(7))
    case "throughput":
        try Workloads.throughput(proto(1), port: ports(2).0, portB: ports(2).1, tls: args[3] == "tls", count: int(4), size: int(5))
    case "mail":
        try Workloads.mail(port: UInt16(int(1)), count: int(2), warmup: int(3), size: int(4))
    case "--cluster":
        var c = ClusterBench()
        var i = 1
        while i < args.count {
            switch args[i] {
            case "--runs": c.bench.runs = int(i + 1)
            case "--count": c.bench.count = int(i + 1)
            case "--throughput-count": c.bench.throughputCount = int(i + 1)
            case "--mail-count": c.mailCount = int(i + 1)
            case "--connections": c.bench.connections = int(i + 1)
            default: usage()
            }
            i += 2
        }
        guard c.bench.runs > 0, c.bench.count > 0, c.bench.throughputCount > 0, c.mailCount > 0, c.bench.connections >= 0 else { usage() }
        try c.main()
    case "hold":
        try Workloads.hold(proto(1), port: UInt16(int(2)), tls: args[3] == "tls", count: int(4))
    case "memory":
        var o = Orchestrator()
        o.connections = Int(ProcessInfo.processInfo.environment["BENCH_CONNECTIONS"] ?? "") ?? 10_000
        o.runs = Int(ProcessInfo.processInfo.environment["BENCH_RUNS"] ?? "") ?? 3
        var env: [String: String] = [:]
        for kv in args.dropFirst(3) {
            let p = kv.split(separator: "=", maxSplits: 1)
            if p.count == 2 { env[String(p[0])] = String(p[1]) }
        }
        guard args.count >= 3 else { usage() }
        try o.memoryOnly(server: args[1], tls: args[2] == "tls", environment: env)
    case "raw-server" where args.count > 4 && args[2] == "forward-tls":
        try TLSForwarder.run(port: UInt16(int(1)), cert: args[3], key: args[4])
    case "raw-server":
        try RawServer.run(port: UInt16(int(1)), forward: args.count > 2 && args[2] == "forward")
    default:
        var o = Orchestrator()
        var i = 0
        while i < args.count {
            switch args[i] {
            case "--runs": o.runs = int(i + 1); i += 1
            case "--connections": o.connections = int(i + 1); i += 1
            case "--count": o.count = int(i + 1); i += 1
            case "--no-memory": o.skipMemory = true
            case "--memory-only": o.memoryOnlyRun = true
            case "--cluster":
                FileHandle.standardError.write(Data("bench-relay: --cluster must come first: bench-relay --cluster [--runs N ...]\n".utf8))
                exit(2)
            default: usage()
            }
            i += 1
        }
        try o.main()
    }
} catch {
    print("error: \(error)")
    FileHandle.standardError.write(Data("bench-relay: \(error)\n".utf8))
    exit(1)
}
