import Glibc
import Inference
@testable import RelayServer
import Testing
@testable import Transport

@Suite("the provider's two paths to the relay")
struct PathTests {
    /// What makes `.memory` in memory: the hub's connections of both devices are socketpairs
    /// (AF_UNIX), never accepted by the listener; `.live`'s are TCP on loopback. And the
    /// provider answers either way.
    @Test(arguments: ProviderPath.allCases) func theMemoryPathNeverReachesTheListener(via path: ProviderPath) async throws {
        let scene = try await Scene([.answer(["ok"])], via: path)
        defer { scene.stop() }
        let seen = try await read(scene.provider(), ChatRequest(model: "tiny", messages: chat("hi")))
        #expect(seen.done && seen.text == "ok")
        let relay = scene.relay.relay
        let families = try onLoop(scene.relay.loop) { relay.hub.connections.values.map { socketFamily($0.ws.connection.fd) } }
        #expect(families.count == 2)
        #expect(families.allSatisfy { $0 == (path == .memory ? AF_UNIX : AF_INET) }, "\(families)")
    }
}

/// The address family of a socket (AF_UNIX for a socketpair, AF_INET for loopback TCP).
private func socketFamily(_ fd: Int32) -> Int32 {
    var address = sockaddr_storage()
    var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
    let ok = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return ok == 0 ? Int32(address.ss_family) : -1
}
