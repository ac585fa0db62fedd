import PeerLink

extension ReplyWriter {
    /// One empty, non-final chunk: the keep-alive of SPEC.md ("Inference through the relay"),
    /// sent while the engine works without output so the requester's watchdog sees us alive.
    /// False when the stream is closed: nothing was sent, `then` hears `.failed(.stopped)`.
    @discardableResult
    public func postKeepAlive(then completion: (@Sendable (LiveOutcome) -> Void)? = nil) -> Bool {
        let done = completion ?? { _ in }
        guard handOff([([], false)], closing: false, then: done) else {
            done(.failed(.stopped))
            return false
        }
        return true
    }
}
