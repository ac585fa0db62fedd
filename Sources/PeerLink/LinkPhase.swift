import RelayWire

/// Where a link's connection stands (LinkCore's `phase`). Each case holds only what that phase
/// needs, so a socket, a session or a timer cannot outlive the phase it belongs to: leaving a
/// phase cancels its `timers` and closes its `socket` (LinkCore.closeConnection).
///
/// Every connection attempt has a number (`attempt`); a callback or timer carries the number
/// of the attempt it was made for and acts only while `mayFire` says that attempt is still
/// in the phase the callback belongs to. So a late close, a late auth timer (after `auth-ok`)
/// or a late retry timer can never act on a newer phase.
///
/// Generic over the socket and the timer so the transitions are tested without either
/// (LinkCore uses `LinkPhase<WebSocket, TimerHandle>`).
enum LinkPhase<Socket, Timer> {
    /// Not started, `suspend()`ed, or `replaced` by another copy of this device: no connection
    /// and no retry pending. The only phase `start()` connects from.
    case stopped
    /// TCP, TLS and the WebSocket upgrade of attempt `attempt` under way.
    case dialling(attempt: UInt64)
    /// Upgraded: answering the challenge; `authTimer` drops the connection if no `auth-ok` comes.
    case authenticating(Connection, authTimer: Timer)
    /// `auth-ok`: frames flow; `pingTimer` keeps it alive, `deadTimer` notices the relay's silence.
    case open(Connection, pingTimer: Timer, deadTimer: Timer)
    /// Down after attempt `after`; `retryTimer` dials again.
    case waitingToRetry(after: UInt64, retryTimer: Timer)
    /// `stop()`: final.
    case finished

    /// One upgraded connection: its socket and the device side of its handshake.
    struct Connection {
        let attempt: UInt64
        let socket: Socket
        var session: LinkSession
    }

    /// What a callback or timer is for; each acts only in its own phase (`mayFire`).
    enum Trigger: Equatable {
        /// The dial of attempt n completed (with a socket or a failure).
        case dialled(UInt64)
        /// Attempt n's socket: a message or its close.
        case socket(UInt64)
        /// Attempt n's auth timeout.
        case authTimer(UInt64)
        /// Attempt n's keepalive ping or dead-link check, and the live frames' barrier and timeouts.
        case openTimer(UInt64)
        /// The retry after attempt n was lost.
        case retryTimer(UInt64)
    }

    /// Whether `trigger` still belongs to this phase: false for anything of an older attempt,
    /// and for an auth timer once the link is open.
    func mayFire(_ trigger: Trigger) -> Bool {
        switch (self, trigger) {
        case (.dialling(let a), .dialled(let n)): a == n
        case (.authenticating(let c, _), .socket(let n)), (.open(let c, _, _), .socket(let n)): c.attempt == n
        case (.authenticating(let c, _), .authTimer(let n)): c.attempt == n
        case (.open(let c, _, _), .openTimer(let n)): c.attempt == n
        case (.waitingToRetry(let a, _), .retryTimer(let n)): a == n
        default: false
        }
    }

    /// Whether `start()` dials: only from `.stopped`. A pending retry (`.waitingToRetry`) is
    /// the link running already; that retry dials, never a second connection beside it.
    var startDials: Bool { if case .stopped = self { true } else { false } }

    /// Started and not stopped: connecting, connected or about to retry.
    var isRunning: Bool {
        switch self {
        case .stopped, .finished: false
        case .dialling, .authenticating, .open, .waitingToRetry: true
        }
    }

    /// Authenticated: live frames can be sent.
    var isOpen: Bool { if case .open = self { true } else { false } }

    var isFinished: Bool { if case .finished = self { true } else { false } }

    /// The socket of the current connection, upgraded or authenticated.
    var socket: Socket? {
        switch self {
        case .authenticating(let c, _), .open(let c, _, _): c.socket
        case .stopped, .dialling, .waitingToRetry, .finished: nil
        }
    }

    /// The timers this phase holds: what leaving it cancels.
    var timers: [Timer] {
        switch self {
        case .authenticating(_, let t): [t]
        case .open(_, let ping, let dead): [ping, dead]
        case .waitingToRetry(_, let t): [t]
        case .stopped, .dialling, .finished: []
        }
    }

    /// Feeds one frame to the connection's session; nil when there is no connection.
    mutating func handle(_ frame: RelayFrame) -> SessionAction? {
        switch self {
        case .authenticating(var c, let t):
            let action = c.session.handle(frame)
            self = .authenticating(c, authTimer: t)
            return action
        case .open(var c, let ping, let dead):
            let action = c.session.handle(frame)
            self = .open(c, pingTimer: ping, deadTimer: dead)
            return action
        case .stopped, .dialling, .waitingToRetry, .finished:
            return nil
        }
    }

    /// The open phase with its ping timer replaced (the keepalive re-arms itself).
    mutating func replacePingTimer(_ timer: Timer) {
        guard case .open(let c, _, let dead) = self else { return }
        self = .open(c, pingTimer: timer, deadTimer: dead)
    }

    /// The open phase with its dead-link timer replaced (it re-arms for the remainder).
    mutating func replaceDeadTimer(_ timer: Timer) {
        guard case .open(let c, let ping, _) = self else { return }
        self = .open(c, pingTimer: ping, deadTimer: timer)
    }
}
