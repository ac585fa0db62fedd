import Courier
import Foundation
import PeerLink
import Signing
import Synchronization
import Testing
import TestSupport
import Wire
@testable import HomebaseAgent
@testable import homebase

/// `homebase run` and logind's sleep: a real dbus-daemon with a STAND-IN logind
/// (TestSupport/peers/logind_standin.py: Inhibit and PrepareForSleep only), a real relay, a guest device.
@Suite(.serialized) struct SleepWatchTests {
    /// The next advert delivered, acking everything read.
    func nextAdvert(_ it: inout AsyncStream<Delivery>.Iterator) async throws -> AppMessage.Advert {
        while let d = await it.next() {
            d.ack()
            if case .advert(let a) = d.message { return a }
        }
        throw TestSetupError("deliveries ended")
    }

    /// The next `away` delivered, acking everything read.
    func nextAway(_ it: inout AsyncStream<Delivery>.Iterator) async throws -> AppMessage.Away {
        while let d = await it.next() {
            d.ack()
            if case .away(let a) = d.message { return a }
        }
        throw TestSetupError("deliveries ended")
    }

    /// The stand-in logind on its own dbus-daemon: its stdin and the bus address.
    func startStandIn(_ children: ChildProcesses) async throws -> (FileHandle, String) {
        let (_, commands) = try children.startInteractive("/usr/bin/python3", [testsFile("TestSupport/peers/logind_standin.py")],
                                                          log: "logind.log")
        var address = ""
        try await eventually("the stand-in's bus is up") {
            guard let line = children.read("logind.log").split(separator: "\n").first(where: { $0.hasPrefix("bus ") }) else { return false }
            address = String(line.dropFirst(4))
            return true
        }
        return (commands, address)
    }

    @Test func theSleepSettingsAreReadAndCheckedAndOffIsSaid() async throws {
        var s = Settings()
        s.values = ["relay": "ws://127.0.0.1:1/v1/connect", "logind-bus": "unix:path=/tmp/x", "sleep-goodbye": "500ms"]
        let c = try s.configuration()
        #expect(c.sleep.busAddress == "unix:path=/tmp/x" && c.sleep.goodbyeBudget == .milliseconds(500) && c.sleep.enabled)
        s.values["sleep-watch"] = "maybe"
        #expect(throws: HomebaseError.self) { try s.configuration() }
        s.values["sleep-watch"] = "off"
        #expect(try s.configuration().sleep.enabled == false)
        try await HostFixture.with(runtime: nil, configure: { $0.sleep.enabled = false }) { f in
            try await eventually("status says the watch is off") {
                StatusText.render(try HostStatus.read(f.files), nowMs: nowMs()).contains("sleep: off (--sleep-watch off)")
            }
        }
    }

    @Test func withoutLogindStatusSaysSo() async throws {
        try await HostFixture.with(runtime: nil, configure: { $0.sleep.busAddress = "unix:path=/nonexistent/homebase-test-bus" }) { f in
            try await eventually("status names the missing logind") {
                let text = StatusText.render(try HostStatus.read(f.files), nowMs: nowMs())
                return text.contains("sleep: no logind (system bus unreachable at unix:path=/nonexistent/homebase-test-bus")
                    && text.contains("the relay finds out when the link goes quiet")
            }
        }
    }

    // The time limit turns a missing `away` (an older Homebase) into a failure, not a hang.
    @Test(.timeLimit(.minutes(2))) func sleepSaysGoodbyeBeforeReleasingTheLockAndResumeAdvertises() async throws {
        let children = try ChildProcesses(prefix: "homebase-sleep")
        defer { children.stopAll() }
        let (commands, bus) = try await startStandIn(children)
        let logged = Mutex<[String]>([])
        try await HostFixture.with(runtime: (try ScriptedEngine.url("ok"), ["a"]), configure: {
            $0.sleep.busAddress = bus
            $0.log = { line in logged.withLock { $0.append(line) } }
        }) { f in
            var it = f.guest.courier.deliveries.makeAsyncIterator()
            let first = try await nextAdvert(&it)
            #expect(first.models.map(\.tag) == ["a"])
            try await eventually("a sleep delay lock taken") { children.read("logind.log").contains("inhibit 1 sleep homebase delay") }
            try await eventually("status says the lock is held") {
                StatusText.render(try HostStatus.read(f.files), nowMs: nowMs()).contains("sleep: holding a logind sleep delay lock")
            }

            commands.write(Data("sleep\n".utf8))
            let away = try await nextAdvert(&it)
            #expect(away.models.isEmpty && away.sequence > first.sequence && away.verifies())
            // Then the away naming that advert, signed by the host key (the guest's "asleep").
            let mark = try await nextAway(&it)
            #expect(mark.advertSequence == away.sequence && mark.hostKey == away.hostKey)
            #expect(mark.hostKey.isValidSignature(mark.signature.bytes, for: mark.signedBytes()) == true)
            try await eventually("the lock released") { children.read("logind.log").contains("released 1") }
            // Both happened before the release: the watch logs them before it closes the lock's fd.
            let lines = logged.withLock { $0 }
            let advertLine = lines.firstIndex { $0.hasPrefix("sleep: away advert \(away.sequence) stored for 1 of 1") }
            let closedLine = lines.firstIndex { $0 == "sleep: relay link closed" }
            let releasedLine = lines.firstIndex { $0 == "sleep: lock released" }
            #expect(advertLine != nil && closedLine != nil)
            if let a = advertLine, let c = closedLine, let r = releasedLine { #expect(a < c && c < r) }
            #expect(f.agent.courier.link.state == .stopped)
            // Asleep: the relay has nobody to hand a question to.
            let (asleep, _) = await f.guest.ask(request("a"), to: f.host)
            #expect(asleep == .notHere)

            commands.write(Data("wake\n".utf8))
            let back = try await nextAdvert(&it)
            #expect(back.models.map(\.tag) == ["a"] && back.sequence > away.sequence)
            try await eventually("a new delay lock") { children.read("logind.log").contains("inhibit 2 sleep homebase delay") }
            let (outcome, answer) = await f.guest.ask(request("a"), to: f.host)
            #expect(outcome == .sent)
            #expect(answer.done != nil && !answer.text.isEmpty)
        }
    }

    /// The relay is gone (the away advert cannot be stored): the lock is released all the same
    /// once the goodbye budget runs out, and the link is closed.
    @Test func aGoodbyeThatCannotFinishStillReleasesTheLock() async throws {
        let children = try ChildProcesses(prefix: "homebase-sleep")
        defer { children.stopAll() }
        let (commands, bus) = try await startStandIn(children)
        let logged = Mutex<[String]>([])
        try await HostFixture.with(runtime: nil, configure: {
            $0.sleep.busAddress = bus
            $0.sleep.goodbyeBudget = .milliseconds(200)
            $0.log = { line in logged.withLock { $0.append(line) } }
        }) { f in
            try await eventually("a sleep delay lock taken") { children.read("logind.log").contains("inhibit 1 sleep homebase delay") }
            await f.relay.shutdown()
            try await eventually("the host saw the relay go") { !f.agent.courier.link.state.isConnected }
            commands.write(Data("sleep\n".utf8))
            try await eventually("the lock released") { children.read("logind.log").contains("released 1") }
            #expect(logged.withLock { $0.contains("sleep: goodbye unfinished after 0.2 seconds; sleeping anyway") })
            try await eventually("the link closed") { f.agent.courier.link.state == .stopped }
        }
    }
}
