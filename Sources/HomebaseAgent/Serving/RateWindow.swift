/// A grant's requests per minute: a sliding window of the last minute's admissions per grantee.
/// Over the rate the request is answered `busy` (the guest falls back, as for a full engine).
struct RateWindow: Sendable {
    static let windowMs: Int64 = 60_000
    private var times: [Int64] = []

    /// Records and admits a request at `nowMs` unless `perMinute` were already admitted in the
    /// last minute. 0 means no limit.
    mutating func admit(nowMs: Int64, perMinute: UInt32) -> Bool {
        guard perMinute > 0 else { return true }
        times.removeAll { $0 <= nowMs - Self.windowMs }
        guard times.count < Int(perMinute) else { return false }
        times.append(nowMs)
        return true
    }
}
