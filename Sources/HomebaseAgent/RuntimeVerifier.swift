import Inference

/// "Test before persist": a runtime enters the store only after passing every probe step
/// (reachable, an engine of a known kind, a chat model, a one-token trial). A runtime that
/// answers but serves no model fails the last steps, so it is refused, not stored: the same
/// rule as a dead URL. Later verifications of a stored runtime never delete it: a failure only
/// marks it unavailable (its configuration stays), a pass makes it available again.
public struct RuntimeVerifier: Sendable {
    public let store: HostStore
    public var timeouts = HTTPTimeouts(connect: .seconds(3), firstByte: .seconds(10), idle: .seconds(10))
    public var trialTimeouts = HTTPTimeouts(connect: .seconds(3), firstByte: .seconds(120), idle: .seconds(30))

    public init(store: HostStore) { self.store = store }

    /// Probes `url`; stores it only on a `.ready` verdict. Throws `.runtimeRefused` with the
    /// probe's step and advice otherwise.
    @discardableResult
    public func add(url: String) async throws(HomebaseError) -> RuntimeReport {
        let result = await probe(url, trialModel: nil)
        switch result {
        case .failure(let f):
            throw .runtimeRefused(f.description)
        case .report(let r) where r.verdict != .ready:
            throw .runtimeRefused("\(r.verdict.rawValue): \(r.advice ?? "the engine did not pass every step")")
        case .report(let r):
            try store.saveVerified(r, url: url, nowMs: nowMs())
            return r
        }
    }

    /// Probes every stored runtime again and records the verdicts. Returns whether any
    /// runtime's availability or model list changed.
    public func reverifyAll() async throws(HomebaseError) -> Bool {
        let before = try store.runtimes()
        for runtime in before {
            let result = await probe(runtime.url, trialModel: runtime.models.first?.tag)
            if let r = result.report, r.verdict == .ready {
                try store.saveVerified(r, url: runtime.url, nowMs: nowMs())
            } else {
                let reason = result.failure?.description
                    ?? result.report.map { "\($0.verdict.rawValue): \($0.advice ?? "")" } ?? "probe failed"
                try store.markUnavailable(url: runtime.url, reason: reason, nowMs: nowMs())
            }
        }
        let after = try store.runtimes()
        return ModelCatalog(runtimes: before) != ModelCatalog(runtimes: after)
    }

    func probe(_ url: String, trialModel: String?) async -> ProbeResult {
        await RuntimeProbe(.init(baseURL: url, timeouts: timeouts, trialTimeouts: trialTimeouts,
                                 trialModel: trialModel)).run()
    }
}
