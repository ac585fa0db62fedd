import PeerLink
import Testing

/// The relay terminating TLS with a self-signed certificate; the link pins it.
@Suite("PeerLink over TLS to the real relay")
struct TLSTests {
    @Test func pinnedSelfSignedCertificateCarriesLiveAndMail() async throws {
        let cert = try makeCertificate()
        let relay = try LiveRelay(tls: cert)
        defer { relay.stop() }
        let pin = try PeerLink.Trust.pinned(hex: try pinHex(cert.cert))
        let a = try Device(relay.url, trust: pin), b = try Device(relay.url, trust: pin)
        defer { a.stop(); b.stop() }
        try await a.waitConnected(); try await b.waitConnected()
        #expect(relay.url.hasPrefix("wss://"))
        #expect(await a.link.sendLive(to: b.key, payload: [1]) == .sent)
        #expect(try await a.link.sendMail(to: b.key, payload: [2], ttl: .seconds(60)) == .stored)
        try await b.waitFrames(2)
        #expect(b.frames.map(\.payload) == [[1], [2]])
    }

    @Test func aWrongPinIsRefusedAsACertificateFailure() async throws {
        let cert = try makeCertificate()
        let relay = try LiveRelay(tls: cert)
        defer { relay.stop() }
        let a = try Device(relay.url, trust: .pinnedSHA256([UInt8](repeating: 0xab, count: 32)))
        defer { a.stop() }
        try await eventually("refused") {
            a.history.contains { if case .refused(.certificate, _) = $0 { true } else { false } }
        }
        #expect(a.connections == 0)
    }
}
