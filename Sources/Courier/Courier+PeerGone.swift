import PeerLink
import Signing
import Wire

extension Courier {
    /// The relay said `key` left: requests waiting on it end now (`Reply.hostGone`), so the
    /// caller falls back instead of waiting out a watchdog rung.
    func peerGone(_ key: PublicKey, _ reason: PeerGoneReason) {
        let ended = replies.hostGone(key, reason)
        inbound.withLock { $0.stats.peerGone += 1; $0.stats.requestsEndedByPeerGone += ended }
    }
}
