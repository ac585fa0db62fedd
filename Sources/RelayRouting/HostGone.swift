import Wire

/// How the relay's `peer-gone` for the host reads in the failure the caller logs and falls
/// back on (the guest continues on-device at once).
enum HostGone {
    static func words(_ reason: PeerGoneReason) -> String {
        switch reason {
        case .closed: "the Homebase left the relay mid-answer (its connection closed)"
        case .replaced: "the Homebase left the relay mid-answer (it reconnected)"
        case .silent: "the Homebase left the relay mid-answer (it stopped answering the relay)"
        default: "the Homebase left the relay mid-answer (\(reason))"
        }
    }
}
