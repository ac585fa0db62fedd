import PeerLink

// Mail from a sender the directory does not know yet. In a backlog, a new sibling's mail may
// come before (or be opened before) the roster that introduces it is applied; dropping it
// then would lose it for good, since it is acked. With `holdUnknownMail` > 0 such frames wait,
// unacked, for the owner to say the directory changed (`retryHeld`) or the backlog is over
// (`dropHeld`). A frame not held (live, or beyond the bound) is dropped as before.
extension Courier {
    /// Holds `frame` if it is mail and there is room; false when it should be dropped.
    func hold(_ frame: Inbound) -> Bool {
        let limit = configuration.holdUnknownMail
        guard frame.deliveryClass == .mail, limit > 0 else { return false }
        return held.withLock { h in
            guard h.count < limit else { return false }
            h.append(frame)
            return true
        }
    }

    /// Handles the held frames again, in arrival order (the directory learnt devices): those
    /// it now knows are opened and delivered, the others are held again.
    public func retryHeld() {
        let frames = held.withLock { h in defer { h = [] }; return h }
        for f in frames { handle(f) }
    }

    /// Drops the held frames for good: acked and counted as from unknown senders.
    public func dropHeld() {
        let frames = held.withLock { h in defer { h = [] }; return h }
        for f in frames { count(\.droppedUnknownSender, dropping: f) }
    }

    /// Frames held now.
    public var heldCount: Int { held.withLock { $0.count } }
}
