import Foundation

/// The servers of one run, each a child process on loopback: our relay (plain and TLS), Mosquitto
/// (plain and TLS listeners), nats-server, and the raw TCP floor (echo and forward).
final class ServerSet {
    let dir: String
    let base: UInt16
    let cert: String, key: String
    private(set) var processes: [String: Process] = [:]
    /// The memory section's connections: the relay's max-connections is set above it.
    var connections = 10_000

    init() throws {
        dir = NSTemporaryDirectory() + "bench-relay-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        // Below the ephemeral range (32768-60999): 10,000 client connections must not take a listen port.
        base = UInt16(20_000 + Int(getpid()) % 12_000)
        cert = dir + "/cert.pem"; key = dir + "/key.pem"
        try run("/usr/bin/openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                                     "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=localhost"])
        chmod(key, 0o644) // Mosquitto may drop root for its own user and must still read it (a throwaway key)
    }

    // Ports, fixed offsets from a per-process base.
    var relayPort: UInt16 { base }
    var relayTLSPort: UInt16 { base + 1 }
    var mqttPort: UInt16 { base + 2 }
    var mqttTLSPort: UInt16 { base + 3 }
    var natsPort: UInt16 { base + 4 }
    var echoPort: UInt16 { base + 5 }
    var forwardPort: UInt16 { base + 6 }
    var memoryRelayPort: UInt16 { base + 7 }
    var memoryMQTTPort: UInt16 { base + 8 }
    var forwardTLSPort: UInt16 { base + 10 }

    static var selfPath: String { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0] }
    static var relayBinary: String { (selfPath as NSString).deletingLastPathComponent + "/homebase-relay" }

    /// Relay settings for a benchmark: no rate limit, no pings or idle cut-off during the run,
    /// room and accept rate for `connections` (plus the latency clients). Queues and buffers stay at their defaults.
    func relayArguments(port: UInt16, tls: Bool, name: String) -> [String] {
        var a = ["serve", "--listen", "127.0.0.1:\(port)", "--data-dir", dir + "/" + name, "--log-level", "error",
                 "--rate", "100000000", "--burst", "100000000", "--max-connections", "\(max(20_000, connections + 1_000))",
                 "--accept-rate", "1000000", "--accept-burst", "1024", "--ping-interval", "1h", "--idle-timeout", "2h",
                 "--header-timeout", "10m", "--handshake-timeout", "10m",
                 // Every bench client is on 127.0.0.1: the per-address limits would throttle the load itself.
                 "--ip-max-connections", "20000", "--ip-max-pending", "20000", "--max-pending", "\(max(20_000, connections + 1_000))",
                 "--ip-accept-rate", "1000000", "--ip-accept-burst", "1000000", "--metrics-listen", "off"]
        if tls { a += ["--tls-cert", cert, "--tls-key", key] }
        return a
    }

    func mosquittoConfig(port: UInt16, tlsPort: UInt16?, name: String) throws -> String {
        var c = "per_listener_settings false\nallow_anonymous true\nlog_dest stderr\nlog_type error\npersistence false\n"
        c += "listener \(port) 127.0.0.1\n"
        if let tlsPort { c += "listener \(tlsPort) 127.0.0.1\ncertfile \(cert)\nkeyfile \(key)\n" }
        let path = dir + "/\(name).conf"
        try c.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func startAll() throws {
        try start("relay", Self.relayBinary, relayArguments(port: relayPort, tls: false, name: "relay"), port: relayPort)
        try start("relay-tls", Self.relayBinary, relayArguments(port: relayTLSPort, tls: true, name: "relay-tls"), port: relayTLSPort)
        try start("mosquitto", "/usr/sbin/mosquitto", ["-c", try mosquittoConfig(port: mqttPort, tlsPort: mqttTLSPort, name: "mosquitto")], port: mqttPort)
        try start("nats", "/usr/sbin/nats-server", ["-a", "127.0.0.1", "-p", "\(natsPort)"], port: natsPort)
        try start("echo", Self.selfPath, ["raw-server", "\(echoPort)", "echo"], port: echoPort)
        try start("forward", Self.selfPath, ["raw-server", "\(forwardPort)", "forward"], port: nil)
        try start("forward-tls", Self.selfPath, ["raw-server", "\(forwardTLSPort)", "forward-tls", cert, key], port: nil)
    }

    /// Starts a child and waits until its port accepts (nil: the forward server, which pairs
    /// connections in accept order, so a test connection would take a slot; it gets 300 ms).
    func start(_ name: String, _ path: String, _ args: [String], port: UInt16?, environment: [String: String] = [:]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = args
        if !environment.isEmpty { p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        p.standardOutput = FileHandle.nullDevice
        // Server logs go to a file beside its data (Mosquitto logs every client that leaves without close_notify).
        _ = FileManager.default.createFile(atPath: dir + "/\(name).log", contents: nil)
        p.standardError = FileHandle(forWritingAtPath: dir + "/\(name).log")
        try p.run()
        processes[name] = p
        guard let port else { usleep(300_000); return }
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if (try? Sock(port: port, tls: false)) != nil { return }
            usleep(20_000)
        }
        throw BenchError.protocolError("\(name) did not start on port \(port)")
    }

    func stop(_ name: String) {
        guard let p = processes.removeValue(forKey: name) else { return }
        p.terminate()
        p.waitUntilExit()
    }

    func stopAll() { for n in Array(processes.keys) { stop(n) } }

    /// Every server thread on vCPU 0 (`taskset -a`), or back on all.
    func pin(_ pinned: Bool) throws {
        for p in processes.values {
            try run("/usr/bin/taskset", ["-a", "-p", "-c", pinned ? "0" : "0-\(ProcessInfo.processInfo.activeProcessorCount - 1)", "\(p.processIdentifier)"])
        }
    }

    func pid(_ name: String) -> Int32? { processes[name]?.processIdentifier }
}

/// Runs a command to completion; its stdout, or an error on a non-zero exit.
@discardableResult
func run(_ path: String, _ args: [String]) throws -> String {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: path)
    p.arguments = args
    let out = Pipe()
    p.standardOutput = out
    p.standardError = FileHandle.nullDevice
    try p.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    guard p.terminationStatus == 0 else { throw BenchError.protocolError("\(path) \(args.joined(separator: " ")) failed") }
    return String(decoding: data, as: UTF8.self)
}

/// Resident set size of a process in KiB (VmRSS; excludes kernel socket buffers).
func rssKiB(_ pid: Int32) -> Int {
    guard let s = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
    for line in s.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) ?? 0
    }
    return 0
}
