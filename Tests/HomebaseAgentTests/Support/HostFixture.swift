import Foundation
import Inference
import RelayServer
import Sealing
import Signing
@testable import HomebaseAgent

/// A Homebase on a fresh data directory, a relay, and a guest listed as a sibling.
final class HostFixture: @unchecked Sendable {
    let relay: RelayFixture
    let files: HostFiles
    let agent: HomebaseAgent
    let guest: GuestSide
    var host: DeviceRecord { agent.identity.record }
    /// The account key `init` made (with `joined`, its file is gone: the test signs as the account's first Homebase).
    let accountKey: SigningKey

    /// - Parameters:
    ///   - runtime: a runtime row written as is (scripted engines would not pass the probe);
    ///     nil stores none.
    ///   - sibling: list the guest in the roster (else it must be a grantee to be heard).
    ///   - joined: the agent holds no account key, like a Homebase that joined with `homebase pair CODE`.
    ///   - relayConfig: changes to the in-process relay's settings (its mailbox caps, say).
    init(runtime: (url: String, models: [String])?, sibling: Bool = true, joined: Bool = false,
         relayConfig: (inout RelayConfig) -> Void = { _ in },
         configure: (inout HomebaseAgent.Configuration) -> Void = { _ in }) async throws {
        relay = try RelayFixture(relayConfig)
        files = HostFiles(dataDir: try temporaryDirectory("host"))
        _ = try files.initialize(name: "workstation", nowMs: nowMs())
        let hostRecord = try files.loadIdentity().record
        guest = try GuestSide(relayURL: relay.url, host: hostRecord)
        let store = try files.openStore()
        accountKey = try files.loadAccountKey()
        if sibling {
            try store.addDevice(guest.identity.record, accountKey: accountKey, nowMs: nowMs())
        }
        if joined { try FileManager.default.removeItem(atPath: files.accountKeyPath) }
        if let runtime {
            let now = nowMs()
            try store.save(StoredRuntime(url: runtime.url, kind: .llamaServer, version: nil, available: true,
                                         models: runtime.models.map { RuntimeModel(tag: $0, capabilities: [.completion]) },
                                         addedMs: now, verifiedMs: now, checkedMs: now, lastError: nil))
        }
        store.close()
        var c = try HomebaseAgent.Configuration(relayURL: relay.url)
        c.link.backoff = .init(initial: .milliseconds(20), maximum: .milliseconds(200))
        c.reloadInterval = .milliseconds(50)
        c.advertPulse = .seconds(3600)
        c.reverifyInterval = .seconds(3600)
        c.verifyOnStart = false  // scripted runtimes would not pass the probe; tests that want it set it
        c.defaultRuntimeURL = "http://127.0.0.1:\(try freePort())"
        c.probeTimeouts = HTTPTimeouts(connect: .seconds(2), firstByte: .seconds(5), idle: .seconds(5))
        configure(&c)
        agent = try HomebaseAgent(configuration: c, files: files)
    }

    /// Starts the agent and the guest; returns once both links are up.
    func start() async throws {
        agent.start()
        try await guest.start()
        try await eventually("host link connected") { agent.courier.link.state.isConnected }
    }

    func stop() async {
        guest.stop()
        await agent.stop()
        relay.stop()
    }
}

extension HostFixture {
    /// A started host for `body`, stopped after it (also when it throws). `prepare` runs on the
    /// stopped fixture first (store edits the agent should see at start).
    static func with(runtime: (url: String, models: [String])?, sibling: Bool = true, joined: Bool = false,
                     configure: (inout HomebaseAgent.Configuration) -> Void = { _ in },
                     prepare: (HostFixture) throws -> Void = { _ in },
                     _ body: (HostFixture) async throws -> Void) async throws {
        let f = try await HostFixture(runtime: runtime, sibling: sibling, joined: joined, configure: configure)
        do {
            try prepare(f)
            try f.agent.reload()
            try await f.start()
            try await body(f)
        } catch {
            await f.stop()
            throw error
        }
        await f.stop()
    }
}
