// The one error type of RelayProbe. Each message is the one-line reason the probe prints before
// exiting non-zero: it names the step and the cause, never a token.

/// Why a probe failed.
public enum ProbeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The command line is wrong (exit status 2); the text says how.
    case usage(String)
    /// The relay could not be reached or the connection was lost (the link's own reason).
    case unreachable(String)
    /// The relay refused a device (admission, certificate, origin); the link's reason.
    case refused(String)
    /// The relay said it is restarting.
    case restarting
    /// `step` did not finish before the probe's timeout.
    case timeout(step: String, ms: Int)
    /// A live frame was not delivered: the relay's answer (`not-here`, `dropped`, ...).
    case liveFailed(String)
    /// The relay did not store the mail frame (`mailbox-full`, link error).
    case mailFailed(String)

    public var description: String {
        switch self {
        case .usage(let why): "usage: \(why)"
        case .unreachable(let why): "relay unreachable: \(why)"
        case .refused(let why): "relay refused the probe: \(why)"
        case .restarting: "relay is restarting"
        case .timeout(let step, let ms): "timeout: \(step) did not finish within \(ms) ms"
        case .liveFailed(let why): "live frame not delivered: \(why)"
        case .mailFailed(let why): "mail frame not stored: \(why)"
        }
    }

    /// 2 for a usage error, 1 for a failed probe.
    public var exitCode: Int32 {
        if case .usage = self { return 2 }
        return 1
    }
}
