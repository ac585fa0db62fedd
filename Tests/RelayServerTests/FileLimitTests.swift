import Glibc
import Testing
@testable import RelayServer

/// The relay's start-up raises RLIMIT_NOFILE to what `max-connections` needs (#24). Run in this
/// process: the limit is only ever raised here, never lowered, so other tests are not starved.
@Suite struct FileLimitTests {
    func soft() -> rlim_t {
        var r = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &r)
        return r.rlim_cur
    }

    @Test func aLimitAlreadyLargeEnoughIsLeftAndSaidSo() {
        let before = soft()
        let outcome = FileLimit.raise(for: 10)
        #expect(outcome.enough)
        #expect(soft() == before)
        #expect(outcome.words.contains("max-connections 10 needs \(10 + FileLimit.reserve)"), "\(outcome.words)")
    }

    @Test func maxConnectionsAboveTheLimitRaisesItOrSaysWhatIsMissing() {
        let before = soft()
        let wanted = Int(before) + 5_000
        let outcome = FileLimit.raise(for: wanted)
        if outcome.enough {
            #expect(soft() >= rlim_t(wanted + FileLimit.reserve))
            #expect(outcome.words.contains("raised \(before) → "), "\(outcome.words)")
        } else {
            // Unprivileged with a low hard limit: the words say what is missing and how to fix it.
            #expect(outcome.words.contains("max-connections \(wanted) needs"), "\(outcome.words)")
            #expect(outcome.words.contains("LimitNOFILE"), "\(outcome.words)")
        }
    }
}
