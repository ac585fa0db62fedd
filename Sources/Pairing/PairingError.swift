import Foundation

/// The one error type of pairing: every way a code or an exchange fails, each with a message
/// that says what happened and what to do. Never carries the code's secret.
public enum PairingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The text is not a pairing code at all (no `hbpair1-` prefix, letters outside the alphabet).
    case notACode(String)
    /// The code decodes but its checksum does not match: a typo or a cut-off paste.
    case mistyped
    /// A code of a newer format than this program reads.
    case unsupportedVersion(UInt8)
    /// The code's validity ended (checked locally, before any network, and by the inviter).
    case expired(atMs: Int64)
    /// The inviter already paired a device with this code.
    case used
    /// The inviter does not know this code (never issued there, or issued by another device).
    case unknownCode
    /// The inviter refused the code's proof: the code is not the one it issued.
    case wrongCode(triesLeft: Int)
    /// Too many wrong attempts: the inviter burnt the code.
    case burnt
    /// The inviter cannot add devices right now, with its reason.
    case unavailable(String)
    /// The inviter is not connected to the relay (`homebase run` is not running there).
    case inviterOffline
    /// No answer from the inviter in time.
    case noAnswer(seconds: Int)
    /// The answer did not prove the code's secret, or its roster does not verify or omit us.
    case forgedAnswer(String)
    /// The relay link failed.
    case link(String)

    public var description: String {
        switch self {
        case .notACode(let why):
            "this is not a pairing code (\(why)): copy the whole line `homebase pair` printed, starting with hbpair1-"
        case .mistyped:
            "the code is mistyped: its checksum does not match (a changed, missing or extra character); copy it again"
        case .unsupportedVersion(let v):
            "this pairing code has format \(v), newer than this program reads: update it"
        case .expired(let at):
            "the code expired at \(Self.time(at)): run `homebase pair` again on the Homebase for a new one"
        case .used:
            "the code was already used to pair a device: run `homebase pair` again for a new one"
        case .unknownCode:
            "the Homebase does not know this code: it was issued elsewhere or removed; run `homebase pair` again"
        case .wrongCode(let left):
            "the Homebase refused the code (wrong code; \(left) tr\(left == 1 ? "y" : "ies") left before it is burnt): copy it again exactly"
        case .burnt:
            "the code was burnt after too many wrong attempts: run `homebase pair` again for a new one"
        case .unavailable(let why):
            "the Homebase cannot add this device: \(why)"
        case .inviterOffline:
            "the Homebase is not connected to the relay: start `homebase run` there, then try again"
        case .noAnswer(let s):
            "no answer from the Homebase within \(s) s: is `homebase run` running and connected to the relay?"
        case .forgedAnswer(let why):
            "refused the answer: \(why) (someone other than the Homebase answered); nothing was stored"
        case .link(let why):
            "relay link: \(why)"
        }
    }

    /// A Unix-ms instant for people (UTC).
    public static func time(_ ms: Int64) -> String {
        let f = DateFormatter()
        f.dateFormat = "yyyy-MM-dd HH:mm:ss 'UTC'"
        f.timeZone = TimeZone(identifier: "UTC")
        return f.string(from: Date(timeIntervalSince1970: Double(ms) / 1000))
    }
}
