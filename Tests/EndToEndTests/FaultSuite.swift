import Foundation
import Glibc
import Testing

/// "Always an answer", proven with real processes on loopback: each case provokes one fault
/// from outside the programs (a signal, a stand-in engine, a restart) and asserts that the
/// answer arrived, which brain gave it and why. Every wait of the programs is shortened by
/// their flags, never by code; the time bounds here are generous and only stop a hung test.
/// Two more cases live in `EndToEndTests`: the Homebase killed while its advert is fresh
/// (`not-here`), and nothing configured at all.
@Suite(.serialized) struct FaultSuite {
    /// The Homebase's last advert outlives the guest's freshness window (shortened to 1 s by
    /// `--advert-max-age`): the router decides on-device before any network. The Homebase is
    /// frozen, so a request sent to it would wait out the 60 s accept rung and say so.
    @Test func silentHomebasePastTheAdvertWindowAnswersOnDeviceWithoutWaiting() throws {
        let (lb, guest) = try Loopback.laptop(engine: .standIn(mode: "stall"))
        defer { lb.stopAll() }
        let fresh = try guest.status()
        #expect(fresh["route"] as? String == "external", "\(fresh)")
        #expect((fresh["reason"] as? String)?.contains("own Homebase, own Homebase advert is") == true, "\(fresh)")

        lb.signalHomebase(SIGSTOP)
        var stale: [String: Any] = [:]
        try lb.procs.waitUntil(30, "the advert to age past 1 s") {
            stale = try guest.status(["--advert-max-age", "1s"])
            return stale["route"] as? String == "on-device"
        }
        let reason = stale["reason"] as? String ?? ""
        #expect(reason.contains("own Homebase advert is") && reason.contains("old (limit 1 s)"), "\(reason)")

        // Bounded well below the accept rung: a request to the frozen Homebase could not finish in time.
        let (out, line) = try guest.chat("are you there", ["--advert-max-age": "1s", "--accept-timeout": "60s"], within: 50)
        #expect(line.brain == "on-device", "\(out)")
        #expect(!line.line.contains("fell back"), "the Homebase was tried: \(line.line)")
        #expect(!guest.log.contains("homebase: "), "a request went to the Homebase: \(guest.log)")
    }

    /// The Homebase is connected to the relay but frozen (SIGSTOP): no `not-here`, no
    /// `accept`. Behind a relay that does not probe (an older one: `--probe-after 0ms`) the
    /// accept rung (1 s) fires and the device answers.
    @Test func frozenHomebaseFallsBackOnDeviceAtTheAcceptRung() throws {
        let (lb, guest) = try Loopback.laptop(engine: .standIn(mode: "stall"), relayArgs: ["--probe-after", "0ms"])
        defer { lb.stopAll() }
        lb.signalHomebase(SIGSTOP)
        defer { lb.signalHomebase(SIGCONT) }

        let (out, line) = try guest.chat("hello, frozen host", ["--accept-timeout": "1s"], within: 60)
        #expect(line.brain == "on-device", "\(out)")
        #expect(line.line.contains("fell back: homebase failed (timed out: accept)"), "\(line.line)")
        #expect(out.count > line.line.count + 1, "no answer text before the line")
        #expect(guest.log.contains("fallback: homebase failed (timed out: accept) after 0 bytes; continuing on on-device"),
                "\(guest.log)")
    }
}
