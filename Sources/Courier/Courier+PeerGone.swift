import Sealing
import Signing
import Synchronization

// The relay's `peer-gone` for a host ends the requests waiting on it (`Reply.hostGone`), so the
// caller falls back at once instead of waiting out a watchdog rung. Which requests it is about
// is judged on the link's thread (`PeerLink.onPeerGone`, wired in `Courier.init`), in order with
// the live outcomes: only requests whose outcome already said they reached the relay; a notice
// heard before that is about an earlier departure (a Homebase that restarted), not about the
// request. They end when the Courier's inbound loop meets the notice, after every frame that
// arrived before it: a host's last chunk, sent before it left, still reaches its reader.

/// The requests each `peer-gone` heard on the link's thread is about, until the inbound loop
/// meets that notice. Per host, oldest first; guarded by its mutex.
final class GoneNotices: Sendable {
    private let pending = Mutex<[PublicKey: [[MessageID]]]>([:])

    func heard(_ host: PublicKey, _ requests: [MessageID]) {
        pending.withLock { $0[host, default: []].append(requests) }
    }

    /// The oldest notice's requests for `host` (none when its notice was never heard).
    func take(_ host: PublicKey) -> [MessageID] {
        pending.withLock { p in
            guard var list = p[host], !list.isEmpty else { return [] }
            let first = list.removeFirst()
            p[host] = list.isEmpty ? nil : list
            return first
        }
    }
}
