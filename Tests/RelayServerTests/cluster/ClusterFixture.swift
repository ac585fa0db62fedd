import Foundation
import Glibc
import Wire

/// Three nats-server nodes and `relays` real `homebase-relay serve` processes, relay i on NATS
/// node i first (it discovers the others). Devices are the tests' own clients (TestClient).
final class ClusterFixture: @unchecked Sendable {
    let nats: NatsCluster
    let dir: String
    let loop: LoopThread
    private(set) var relays: [RelayProcessHandle?] = []
    let extra: [String]
    /// Per relay: flags added to (or replacing the defaults of) that relay's command line.
    let relayExtra: [Int: [String]]
    /// Between relay-1 and its nats-server (relay-1 is given only this URL); nil: direct.
    let proxy: FreezableProxy?

    init(relays count: Int = 3, extra: [String] = [], relayExtra: [Int: [String]] = [:], proxyRelay1: Bool = false,
         natsExtra: [Int: String] = [:]) throws {
        nats = try NatsCluster(extra: natsExtra)
        proxy = proxyRelay1 ? try FreezableProxy(to: nats.nodes[0].clientPort) : nil
        dir = try temporaryDirectory("relay")
        loop = try LoopThread()
        self.extra = extra
        self.relayExtra = relayExtra
        try NatsCluster.password.write(toFile: dir + "/nats-password", atomically: true, encoding: .utf8)
        for i in 0..<count { relays.append(try startRelay(i)) }
    }

    func args(_ i: Int) -> [String] {
        var urls = [nats.urls[i % nats.urls.count]] + nats.urls.enumerated().filter { $0.offset != i % nats.urls.count }.map(\.element)
        if i == 0, let proxy { urls = [proxy.url] } // the others are discovered (INFO connect_urls)
        var flags: [(String, String)] = [("--cluster-nats", urls.joined(separator: ",")), ("--cluster-node-name", "relay-\(i + 1)"),
                     ("--cluster-nats-user", NatsCluster.user), ("--cluster-nats-password-file", dir + "/nats-password"),
                     ("--cluster-ack-wait", "2s"), ("--cluster-publish-timeout", "1s"), ("--cluster-nats-timeout", "1s"),
                     ("--cluster-nats-ping-interval", "500ms")]
        let own = relayExtra[i] ?? []
        flags.removeAll { own.contains($0.0) }
        return flags.flatMap { [$0.0, $0.1] } + extra + own
    }

    @discardableResult
    func startRelay(_ i: Int) throws -> RelayProcessHandle {
        let d = dir + "/relay-\(i + 1)"
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        let r = try RelayProcessHandle(dataDir: d, extra: args(i))
        if i < relays.count { relays[i] = r }
        return r
    }

    func relay(_ i: Int) -> RelayProcessHandle { relays[i]! }

    /// A device authenticated on relay `i`, its backlog read (returned) up to `queue-empty`.
    func device(_ i: Int, _ key: SigningKeyBox = SigningKeyBox()) throws -> (TestClient, [RelayFrame.Receive]) {
        let c = try authenticated(i, key)
        return (c, try backlog(c))
    }

    /// A device on relay `i` once `auth-ok` arrives (its backlog left unread: without a mail
    /// quorum no `queue-empty` comes).
    func authenticated(_ i: Int, _ key: SigningKeyBox) throws -> TestClient {
        let r = relay(i)
        let c = try TestClient.connect(loop: loop.loop, port: r.port)
        try c.authenticate(key: key, origin: r.origin)
        guard case .authOK = try c.next() else { throw TestSetupError("no auth-ok from relay-\(i + 1)") }
        return c
    }

    /// relay `i`'s /metrics text.
    func metrics(_ i: Int) throws -> String {
        guard let port = relay(i).metricsPort, let fd = connectLoopback(Int(port), receiveTimeout: 5) else {
            throw TestSetupError("no metrics listener on relay-\(i + 1)")
        }
        defer { close(fd) }
        let req = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        _ = req.withCString { write(fd, $0, strlen($0)) }
        var out: [UInt8] = [], buf = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(fd, &buf, buf.count)
            if n <= 0 { break }
            out += buf[..<n]
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// SIGKILL relay `i` and wait for it.
    func killRelay(_ i: Int) {
        guard let r = relays[i] else { return }
        r.signal(SIGKILL)
        _ = r.wait()
        relays[i] = nil
    }

    func stop() {
        proxy?.stop()
        for i in relays.indices { killRelay(i) }
        loop.stop()
        nats.stopAll()
    }
}
