import Foundation
import Glibc
import NatsFixture
import Synchronization
import TestSupport

/// Three `nats-server` processes on loopback in one cluster with JetStream: random ports, a
/// temporary directory each, the configuration of `NatsConfig` (explicit accounts, authenticated routes).
final class NatsCluster: @unchecked Sendable {
    struct Node {
        let name: String
        let clientPort: Int
        let clusterPort: Int
        let monitorPort: Int
        let dir: String
    }

    static let user = "relay"
    static let password = "relay-test-password"
    let nodes: [Node]
    let root: String
    private var processes: [Int: ProcessBox] = [:]

    var urls: [String] { nodes.map { "nats://127.0.0.1:\($0.clientPort)" } }

    /// Per node: configuration lines added to that node's file (e.g. a small `max_pending`).
    private let extra: [Int: String]

    init(count: Int = 3, extra: [Int: String] = [:]) throws {
        self.extra = extra
        guard FileManager.default.isExecutableFile(atPath: Self.binary) else {
            throw SetupError("nats-server is not installed: run scripts/setup.sh")
        }
        root = try temporaryDirectory("nats")
        var ns: [Node] = []
        for i in 1...count {
            let dir = root + "/n\(i)"
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            ns.append(Node(name: "n\(i)", clientPort: try freePort(), clusterPort: try freePort(), monitorPort: try freePort(), dir: dir))
        }
        nodes = ns
        for i in nodes.indices { try writeConfig(i) }
        for i in nodes.indices { try start(i) }
        for i in nodes.indices { try waitReady(i) }
    }

    static var binary: String { NatsConfig.binary }

    private func writeConfig(_ i: Int) throws {
        let n = nodes[i]
        let conf = NatsConfig(name: n.name, clientPort: n.clientPort, clusterPort: n.clusterPort, monitorPort: n.monitorPort,
                              storeDirectory: n.dir + "/js", routePorts: nodes.filter { $0.name != n.name }.map(\.clusterPort),
                              user: Self.user, password: Self.password, clusterName: "homebase-test",
                              routePassword: "route-test-password", systemPassword: "sys-test-password", extra: extra[i] ?? "")
        try conf.text.write(toFile: n.dir + "/nats.conf", atomically: true, encoding: .utf8)
    }

    func start(_ i: Int) throws {
        let n = nodes[i]
        _ = FileManager.default.createFile(atPath: n.dir + "/log", contents: nil)
        let (exe, args) = ChildSpawner.wrap(Self.binary, ["-c", n.dir + "/nats.conf"])
        processes[i] = try ChildSpawner.run { try ProcessBox(exe, args, log: n.dir + "/log") }
    }

    /// Up and JetStream ready (the monitor's /healthz answers ok once the meta group has a leader).
    func waitReady(_ i: Int) throws {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if canConnect(nodes[i].clientPort), healthy(nodes[i].monitorPort) { return }
            usleep(50_000)
        }
        throw SetupError("nats-server \(nodes[i].name) did not become ready: see \(nodes[i].dir)/log")
    }

    private func healthy(_ port: Int) -> Bool {
        guard let fd = connectLoopback(port, receiveTimeout: 2) else { return false }
        defer { close(fd) }
        _ = NatsConfig.healthRequest.withCString { write(fd, $0, strlen($0)) }
        var buf = [UInt8](repeating: 0, count: 512)
        let n = read(fd, &buf, buf.count)
        return n > 0 && String(decoding: buf[..<n], as: UTF8.self).contains("200 OK")
    }

    /// Node `i`'s log so far.
    func log(_ i: Int) -> String { (try? String(contentsOfFile: nodes[i].dir + "/log", encoding: .utf8)) ?? "" }

    /// SIGKILL, no goodbye: the node's routes and clients see the socket die.
    func kill9(_ i: Int) { processes[i]?.stop(); processes[i] = nil }

    func stopAll() {
        for i in processes.keys { processes[i]?.stop() }
        processes = [:]
        try? FileManager.default.removeItem(atPath: root)
    }

    deinit { stopAll() }
}
