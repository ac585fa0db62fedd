import Foundation
import Testing

/// What the stand-in engine (`peers/standin_engine.py`) sends before it fails.
let standInPartial = "Stand-in engine, partial answer: "

/// Engine faults behind a healthy Homebase: the stand-in engine is registered as the
/// Homebase's runtime (it passes `runtime add`'s probe and one-token trial), streams the
/// start of an answer, then fails. The device must continue the answer, not restart it.
extension FaultSuite {
    /// The engine goes silent mid-stream; the Homebase waits (its engine idle limit is 5 min),
    /// so the guest's stall rung (1 s) fires and its on-device model continues the answer.
    @Test func stallMidStreamIsContinuedOnDevice() throws {
        let (lb, guest) = try Loopback.laptop(engine: .standIn(mode: "stall"), homebaseArgs: ["--engine-idle-timeout", "5m"])
        defer { lb.stopAll() }

        let (out, line) = try guest.chat("tell me a story", ["--stall-timeout": "1s"], within: 60)
        Self.expectContinuedOnDevice(out, line)
        #expect(out.count > standInPartial.count + line.line.count + 1, "nothing after the partial answer: \(out)")
        #expect(line.line.contains("fell back: homebase failed (timed out: stall)"), "\(line.line)")
        let seam = "after \(standInPartial.utf8.count) bytes; continuing on on-device"
        #expect(guest.log.contains("fallback: homebase failed (timed out: stall) " + seam), "\(guest.log)")
    }

    /// The engine reports an error inside its stream after some text: the Homebase ends the
    /// request with `host_error`, and the device continues from the text already shown.
    @Test func inBandEngineErrorIsContinuedOnDevice() throws {
        let (lb, guest) = try Loopback.laptop(engine: .standIn(mode: "error"))
        defer { lb.stopAll() }

        let (out, line) = try guest.chat("tell me a story", within: 60)
        Self.expectContinuedOnDevice(out, line)
        #expect(line.line.contains("fell back: homebase failed (remote error host_error"), "\(line.line)")
        #expect(guest.log.contains("after \(standInPartial.utf8.count) bytes; continuing on on-device"), "\(guest.log)")
        // `status` reads what the running Homebase rewrites every 200 ms.
        try lb.procs.waitUntil(30, "the Homebase to count the host_error") {
            try lb.homebase(["status"]).contains("host_error 1")
        }
    }
}
