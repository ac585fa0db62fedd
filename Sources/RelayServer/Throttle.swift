import Basics
import Transport
import RelayWire

/// Auth-failure throttling per client address, and shorter deadlines under connection pressure.
extension Hub {
    /// An `auth` from an address that failed too often: refused `rate-limited` without a check
    /// (guessing tokens or keys at full speed gets nowhere), counted.
    func authThrottled(_ s: Session) -> Bool {
        guard !authFailures.wouldAllow(s.host, now: monotonicNanos()) else { return false }
        metrics.authFailed(.rateLimited)
        log.info("auth refused peer=\(s.peer) reason=rate-limited")
        s.control(.authRefused(.init(reason: .rateLimited, text: "too many failed auths from this address; try later")))
        s.state = .closing
        s.ws.close(code: .policyViolation, reason: "auth refused")
        return true
    }

    /// The auth just handled was refused: it spends one of the address's failure tokens.
    func noteAuthFailure(_ s: Session) {
        _ = authFailures.allow(s.host, now: monotonicNanos())
    }

    /// The auth deadline: shorter while many connections wait unauthenticated.
    func handshakeTimeout(for s: Session) -> Duration {
        s.ws.connection.underPressure ? min(config.limits.pressureHandshakeTimeout, config.handshakeTimeout) : config.handshakeTimeout
    }
}
