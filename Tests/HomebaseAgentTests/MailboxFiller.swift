import PeerLink
import Signing
import TestSupport

/// A stranger who knows `key` fills its mailbox at the relay `url` (these tests give it a small
/// cap) until the relay answers `mailbox-full`; the caller stops the returned link.
func strangerFillingMailbox(of key: PublicKey, at url: String) async throws -> PeerLink {
    let stranger = try PeerLink(configuration: .fast(url), identity: SigningKey.generate())
    stranger.start()
    try await eventually("stranger connected") { stranger.state.isConnected }
    var filled = false
    for _ in 0..<16 where !filled {
        filled = try await stranger.sendMail(to: key, payload: Array(repeating: 7, count: 64), ttl: .seconds(600)) == .mailboxFull
    }
    if !filled { stranger.stop(); throw SetupError("the relay never answered mailbox-full") }
    return stranger
}
