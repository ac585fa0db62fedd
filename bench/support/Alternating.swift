// The order of a before/after pair, shared by the benches that compare two paths round by round.

/// Runs one round's two measurements, `a` first on even rounds and `b` first on odd ones, so a
/// burst of load on the machine (or a cache the first one warms) falls on both alike.
public func alternating(_ round: Int, _ a: () async throws -> Void, _ b: () async throws -> Void) async rethrows {
    if round.isMultiple(of: 2) {
        try await a()
        try await b()
    } else {
        try await b()
        try await a()
    }
}
