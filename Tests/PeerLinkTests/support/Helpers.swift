// SetupError, hangGuard, eventually and makeCertificate are TestSupport's, re-exported for
// every file of this target.
@_exported import TestSupport
import Foundation
import PeerLink
import Signing
import Synchronization
import Testing
import Transport
import Wire

/// Collects a link's states and inbound events (TestSupport's LinkRecorder).
typealias Recorder = LinkRecorder

/// A started loop for the links of one test.
final class TestLoop: Sendable {
    let loop: EventLoop
    init() throws { loop = try EventLoop(); try loop.start() }
    func stop() { loop.shutdown(); loop.join() }
}

/// Fast settings: millisecond timers, so tests run quickly; none is asserted on.
func fastConfiguration(_ url: String, trust: PeerLink.Trust = .systemRoots,
                       _ tweak: (inout PeerLink.Configuration) -> Void = { _ in }) throws -> PeerLink.Configuration {
    var c = try PeerLink.Configuration.fast(url, trust: trust)
    tweak(&c)
    return c
}

/// A link with a recorder, started.
func startLink(_ relayURL: String, on loop: TestLoop, identity: SigningKey = .generate(),
               trust: PeerLink.Trust = .systemRoots,
               _ tweak: (inout PeerLink.Configuration) -> Void = { _ in }) throws -> (PeerLink, Recorder) {
    let link = try PeerLink(configuration: fastConfiguration(relayURL, trust: trust, tweak), identity: identity, loop: loop.loop)
    let rec = Recorder(link)
    link.start()
    return (link, rec)
}

/// One link to `relay` with its recorder, connected.
func connectedLink(_ relay: ScriptedRelay, on loop: TestLoop) async throws -> (PeerLink, Recorder) {
    let (link, rec) = try startLink(relay.url, on: loop)
    try await rec.waitConnected()
    return (link, rec)
}

/// Two links to `relay`, both connected: A (the sender) and B with its recorder.
func connectedPair(_ relay: ScriptedRelay, on loop: TestLoop) async throws -> (PeerLink, PeerLink, Recorder) {
    let (a, _) = try await connectedLink(relay, on: loop)
    let (b, recB) = try await connectedLink(relay, on: loop)
    return (a, b, recB)
}

func bytes16(_ f: Inbound) -> Bytes16 { f.frameID }
