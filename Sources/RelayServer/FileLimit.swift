import Glibc

/// The relay's open-file limit: one descriptor per connection, plus its own few (listener,
/// metrics listener, event loop, mailbox database). Raised at start to what `max-connections`
/// needs, because the usual soft limit (1,024) would refuse the 1,000th device with EMFILE.
enum FileLimit {
    /// Descriptors besides the connections.
    static let reserve = 64

    /// What start-up did, for one log line; `enough` false: connections past `soft - reserve` fail.
    struct Outcome: Equatable {
        var enough: Bool
        var soft: rlim_t
        var words: String
    }

    /// Raises the soft limit (and the hard one, when privileged) to `maxConnections + reserve`.
    static func raise(for maxConnections: Int) -> Outcome {
        let need = rlim_t(max(0, maxConnections)) + rlim_t(reserve)
        let resource = Int32(RLIMIT_NOFILE.rawValue)
        var r = rlimit()
        guard getrlimit(resource, &r) == 0 else { return Outcome(enough: false, soft: 0, words: "open-file limit unreadable") }
        let before = r.rlim_cur
        if before >= need {
            return Outcome(enough: true, soft: before, words: "open-file limit \(before) (max-connections \(maxConnections) needs \(need))")
        }
        if r.rlim_max != rlim_t.max, r.rlim_max < need {
            var both = rlimit(rlim_cur: need, rlim_max: need)  // only with CAP_SYS_RESOURCE (root)
            if setrlimit(resource, &both) == 0 {
                return Outcome(enough: true, soft: need, words: "open-file limit raised \(before) → \(need) (hard limit too) for max-connections \(maxConnections)")
            }
        }
        r.rlim_cur = r.rlim_max == rlim_t.max ? need : min(need, r.rlim_max)
        _ = setrlimit(resource, &r)
        var now = rlimit()
        getrlimit(resource, &now)
        if now.rlim_cur >= need {
            return Outcome(enough: true, soft: now.rlim_cur, words: "open-file limit raised \(before) → \(now.rlim_cur) for max-connections \(maxConnections)")
        }
        let holds = now.rlim_cur > rlim_t(reserve) ? now.rlim_cur - rlim_t(reserve) : 0
        return Outcome(enough: false, soft: now.rlim_cur, words:
            "open-file limit is \(now.rlim_cur) (hard \(now.rlim_max)) but max-connections \(maxConnections) needs \(need): "
            + "about \(holds) connections can be held, the rest are refused. Raise it (LimitNOFILE= in the systemd unit, "
            + "ulimit -n, or run as root) or lower max-connections")
    }
}
