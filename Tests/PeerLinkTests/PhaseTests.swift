import Signing
import Testing
import Wire
@testable import PeerLink

/// The link's lifecycle phases, without sockets or timers: strings stand in for sockets and
/// numbers for timers.
@Suite("LinkPhase transitions")
struct PhaseTests {
    typealias Phase = LinkPhase<String, Int>
    let relay = try! RelayURL(parsing: "wss://relay.example/v1/connect")
    let key = SigningKey.generate()

    func connection(_ attempt: UInt64) -> Phase.Connection {
        .init(attempt: attempt, socket: "socket \(attempt)", session: LinkSession(relay: relay, identity: key, account: nil, admission: .token(nil)))
    }

    /// Every phase attempt `n` can be in.
    func phases(of n: UInt64) -> [Phase] {
        [.dialling(attempt: n), .authenticating(connection(n), authTimer: 1),
         .open(connection(n), pingTimer: 2, deadTimer: 3), .waitingToRetry(after: n, retryTimer: 4)]
    }

    func triggers(of n: UInt64) -> [Phase.Trigger] {
        [.dialled(n), .socket(n), .authTimer(n), .openTimer(n), .retryTimer(n)]
    }

    @Test func nothingOfAnOlderAttemptActsOnANewerOne() {
        for phase in phases(of: 2) + [.stopped, .finished] {
            for trigger in triggers(of: 1) {
                #expect(!phase.mayFire(trigger), "\(trigger) acted on \(phase)")
            }
        }
    }

    @Test func eachTriggerActsOnlyInItsOwnPhase() {
        let fires = phases(of: 5).map { phase in triggers(of: 5).filter { phase.mayFire($0) } }
        #expect(fires == [[.dialled(5)], [.socket(5), .authTimer(5)], [.socket(5), .openTimer(5)], [.retryTimer(5)]])
        // Once open, the same attempt's auth timer (fired late, after `auth-ok`) cannot drop it.
        #expect(!Phase.open(connection(5), pingTimer: 2, deadTimer: 3).mayFire(.authTimer(5)))
        for trigger in triggers(of: 5) {
            #expect(!Phase.stopped.mayFire(trigger) && !Phase.finished.mayFire(trigger))
        }
    }

    @Test func onlyStoppedStartsAndNothingElseIsIdle() {
        #expect(Phase.stopped.startDials)
        // A pending retry is running already: `start()` leaves it to dial.
        for phase in phases(of: 1) + [.finished] { #expect(!phase.startDials, "\(phase)") }
        #expect(phases(of: 1).allSatisfy(\.isRunning) && !Phase.stopped.isRunning && !Phase.finished.isRunning)
        #expect(phases(of: 1).map(\.isOpen) == [false, false, true, false])
    }

    @Test func leavingAPhaseCancelsExactlyItsTimersAndClosesItsSocket() {
        #expect(phases(of: 3).map(\.timers) == [[], [1], [2, 3], [4]])
        #expect(phases(of: 3).map(\.socket) == [nil, "socket 3", "socket 3", nil])
        #expect(Phase.stopped.timers.isEmpty && Phase.finished.socket == nil)
    }

    @Test func theOpenPhaseReArmsItsOwnTimersAndNoOthers() {
        var phase = Phase.open(connection(1), pingTimer: 2, deadTimer: 3)
        phase.replacePingTimer(20)
        phase.replaceDeadTimer(30)
        #expect(phase.timers == [20, 30])
        var waiting = Phase.waitingToRetry(after: 1, retryTimer: 4)
        waiting.replacePingTimer(20)
        #expect(waiting.timers == [4])
    }

    @Test func framesGoToTheConnectionsSessionAndItKeepsTheirEffect() {
        var phase = Phase.authenticating(connection(1), authTimer: 1)
        let action = phase.handle(.challenge(.init(nonce: .repeating(7), origin: "wss://relay.example")))
        guard case .send(.auth)? = action else { Issue.record("\(String(describing: action))"); return }
        let ok = RelayFrame.AuthOK(serverTimeMs: 1, mailboxCapacity: 2, maxTTLSeconds: 3)
        // The session moved on to awaiting the result: auth-ok is now what it takes.
        #expect(phase.handle(.authOK(ok)) == .authenticated(ok))
        guard case .authenticating(let c, _) = phase else { Issue.record("\(phase)"); return }
        #expect(c.session.isOpen)
        // No connection, no session: nothing handles a frame.
        var waiting = Phase.waitingToRetry(after: 1, retryTimer: 4)
        #expect(waiting.handle(.ping(1)) == nil)
    }
}
