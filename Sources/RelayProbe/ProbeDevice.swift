import PeerLink
import Signing
import Synchronization

/// One throwaway device: a PeerLink with a fresh key, and what it has seen so far (states, the
/// frames it received, the link's last log line) for the probe to wait on. Live frames it
/// receives are answered at once when `echo` is set (the far end of the round trip).
final class ProbeDevice: Sendable {
    struct Seen {
        var connectedAt: ContinuousClock.Instant?
        var failure: ProbeError?
        var frames: [Inbound] = []
        var lastLog = ""
    }

    let link: PeerLink
    let key: PublicKey
    private let seen = Shared()

    /// The record, shared by the stream consumers and the probe.
    final class Shared: Sendable {
        let m = Mutex(Seen())
        func withLock<R>(_ body: (inout Seen) -> R) -> R { m.withLock { body(&$0) } }
    }

    init(options: ProbeOptions, echo: Bool) throws(ProbeError) {
        let seen = seen
        let config = try options.linkConfiguration { line in seen.withLock { $0.lastLog = line } }
        let identity = SigningKey.generate()
        key = identity.publicKey
        do {
            link = try PeerLink(configuration: config, identity: identity, admissionToken: options.token.map { Array($0.utf8) })
        } catch let e as PeerLinkError {
            throw .usage("\(e)")
        } catch {
            throw .unreachable("\(error)")
        }
        let link = link
        Task {
            for await state in link.states {
                let now = ContinuousClock.now
                seen.withLock { s in
                    switch state {
                    case .connected: if s.connectedAt == nil { s.connectedAt = now }
                    case .refused: s.failure = s.failure ?? .refused(Self.reason(s.lastLog, state))
                    case .waiting: s.failure = s.failure ?? .unreachable(Self.reason(s.lastLog, state))
                    case .relayRestarting: s.failure = s.failure ?? .restarting
                    case .connecting, .authenticating, .stopped: break
                    }
                }
            }
        }
        Task {
            for await event in link.inbound {
                guard case .frame(let f) = event else { continue }
                if echo && f.deliveryClass == .live { link.sendLive(to: f.sender, payload: f.payload, then: nil) }
                if f.deliveryClass == .mail { link.ack(f) }
                seen.withLock { $0.frames.append(f) }
            }
        }
    }

    /// The link's own log line without its `relay link <origin>` prefix, else the state.
    private static func reason(_ log: String, _ state: LinkState) -> String {
        guard !log.isEmpty else { return "\(state)" }
        guard let r = log.firstRange(of: ": ") else { return log }
        var why = String(log[r.upperBound...])
        // Layers may each prefix the same words ("connect failed: connect failed: ..."): say them once.
        while let c = why.firstRange(of: ": "), why[c.upperBound...].hasPrefix(why[..<c.upperBound]) {
            why = String(why[c.upperBound...])
        }
        return why
    }

    func start() { link.start() }
    func stop() { link.stop() }

    var failure: ProbeError? { seen.withLock { $0.failure } }
    var connectedAt: ContinuousClock.Instant? { seen.withLock { $0.connectedAt } }

    /// The first received frame matching `match`.
    func frame(_ match: (Inbound) -> Bool) -> Inbound? {
        seen.withLock { $0.frames.first(where: match) }
    }
}

/// Polls `value` every millisecond until it is non-nil, a device failed, or `deadline` passed.
/// Timings never come from this loop: they are stamped where the events happen.
func wait<T>(_ step: String, until deadline: ContinuousClock.Instant, timeout: Duration,
             devices: [ProbeDevice], _ value: () -> T?) async throws(ProbeError) -> T {
    while true {
        if let v = value() { return v }
        for d in devices { if let f = d.failure { throw f } }
        guard ContinuousClock.now < deadline else {
            throw .timeout(step: step, ms: Int(timeout / .milliseconds(1)))
        }
        do { try await Task.sleep(for: .milliseconds(1)) } catch { throw .timeout(step: step, ms: 0) }
    }
}
