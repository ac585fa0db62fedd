import PeerLink
import Signing
import Synchronization

/// An end-to-end check of a running relay, for monitoring: two throwaway devices (fresh keys)
/// authenticate, exchange a live frame each way and a mail frame, and the times are reported.
///
///     let report = try await RelayProbe.run(ProbeOptions(url: "wss://relay.example.com"))
///     print(report.line)
///
/// Nothing stays behind: the mail frame is acknowledged (deleted) by its recipient, and its TTL
/// (60 s) bounds what a probe that fails half-way can leave in the relay's mailbox.
public enum RelayProbe {
    /// Runs the probe; throws the first failure (refusal, unreachable relay, timeout, bounce).
    public static func run(_ options: ProbeOptions) async throws(ProbeError) -> ProbeReport {
        let deadline = ContinuousClock.now + options.timeout
        let a = try ProbeDevice(options: options, echo: false)
        let b = try ProbeDevice(options: options, echo: true)
        defer { a.stop(); b.stop() }
        let both = [a, b]
        func until<T>(_ step: String, _ value: () -> T?) async throws(ProbeError) -> T {
            try await wait(step, until: deadline, timeout: options.timeout, devices: both, value)
        }

        let authStart = ContinuousClock.now
        a.start()
        let aUp = try await until("authentication") { a.connectedAt }
        b.start()
        _ = try await until("authentication of the second device") { b.connectedAt }

        // Live: A -> B, B answers at once, back to A. Stamped at receipt on A's loop.
        let livePayload = randomBytes(count: 32)
        let outcome = Mutex<LiveOutcome?>(nil)
        let liveStart = ContinuousClock.now
        a.link.sendLive(to: b.key, payload: livePayload) { o in outcome.withLock { $0 = o } }
        let answer = try await until("live round trip") {
            a.frame { $0.deliveryClass == .live && $0.sender == b.key && $0.payload == livePayload }
        }
        let settled = try await until("live outcome") { outcome.withLock { $0 } }
        guard settled == .sent else { throw .liveFailed(describe(settled)) }

        // Mail: A -> relay (stored) -> B (delivered, acked by B).
        let mailPayload = randomBytes(count: 32)
        let mailStart = ContinuousClock.now
        let stored: Duration
        do {
            let result = try await withDeadline(deadline) {
                try await a.link.sendMail(to: b.key, payload: mailPayload, ttl: .seconds(60))
            }
            guard let result else { throw ProbeError.timeout(step: "mail stored", ms: Int(options.timeout / .milliseconds(1))) }
            guard result == .stored else { throw ProbeError.mailFailed("mailbox full") }
            stored = ContinuousClock.now - mailStart
        } catch let e as ProbeError {
            throw e
        } catch {
            throw .mailFailed("\(error)")
        }
        let mail = try await until("mail delivery") {
            b.frame { $0.deliveryClass == .mail && $0.sender == a.key && $0.payload == mailPayload }
        }
        return ProbeReport(origin: a.link.configuration.relay.origin, auth: aUp - authStart,
                           liveRoundTrip: answer.receivedAt - liveStart, mailStored: stored,
                           mailDelivered: mail.receivedAt - mailStart)
    }

    static func describe(_ o: LiveOutcome) -> String {
        switch o {
        case .sent: "sent"
        case .notHere: "not-here (the second device is not connected to this relay)"
        case .dropped: "dropped (the relay found the receiver too slow)"
        case .failed(let e): "\(e)"
        }
    }
}

/// Runs `body`, or returns nil once `deadline` passes (the body's task is then cancelled).
func withDeadline<T: Sendable>(_ deadline: ContinuousClock.Instant,
                               _ body: @escaping @Sendable () async throws -> T) async throws -> T? {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try? await Task.sleep(until: deadline, clock: .continuous)
            return nil
        }
        let first = try await group.next() ?? nil
        group.cancelAll()
        return first
    }
}
