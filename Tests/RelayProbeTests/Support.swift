// SetupError, hangGuard, eventually, temporaryDirectory, LiveRelay, makeCertificate and pinHex
// are TestSupport's, re-exported for every file of this target.
@_exported import TestSupport
import Foundation
import PeerLink
import RelayServer
import Signing
import Synchronization
import Testing
import Transport

/// A started link with everything it saw recorded (TestSupport's LinkRecorder, acking frames
/// unless told not to).
final class Device: Sendable {
    let link: PeerLink
    let key: PublicKey
    private let log: LinkRecorder

    init(_ url: String, identity: SigningKey = .generate(), trust: PeerLink.Trust = .systemRoots,
         token: String? = nil, autoAck: Bool = true) throws {
        link = try PeerLink(configuration: .fast(url, trust: trust), identity: identity,
                            admissionToken: token.map { Array($0.utf8) })
        key = identity.publicKey
        log = LinkRecorder(link, autoAck: autoAck)
        link.start()
    }

    var history: [LinkState] { log.history }
    var frames: [Inbound] { log.frames }
    var queueEmpties: Int { log.queueEmpties }
    var connections: Int { log.connections }

    func waitConnected(count: Int = 1) async throws { try await log.waitConnected(count: count) }
    func waitFrames(_ n: Int) async throws { try await log.waitFrames(n) }
    func stop() { link.stop() }
}

/// A live relay and one device with a fresh key, connected to it. Stop the device, then the relay.
func relayWithDevice() async throws -> (LiveRelay, Device) {
    let relay = try LiveRelay()
    do {
        let a = try Device(relay.url)
        do {
            try await a.waitConnected()
        } catch {
            a.stop()
            throw error
        }
        return (relay, a)
    } catch {
        relay.stop()
        throw error
    }
}

/// A port nothing listens on: bound, then closed.
func deadPort() throws -> UInt16 {
    let relay = try LiveRelay()
    let port = relay.port
    relay.stop()
    return port
}
