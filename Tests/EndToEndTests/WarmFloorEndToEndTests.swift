import Foundation
import Glibc
import Testing

/// The warm floor (#24), with real processes: the relay, the own Homebase on the tiny engine, the
/// guest's own llama-server on the tiny model. A guest that has just started (its on-device engine
/// cold) sends to a Homebase that is gone: the engine the fallback needs was already starting
/// when the fallback began. Asserted on the guest's events, never on time.
@Suite(.serialized) struct WarmFloorEndToEndTests {
    @Test func aColdGuestsFallbackFindsTheEngineTheWarmFloorStarted() throws {
        let (lb, guest) = try Loopback.laptop(engine: .llama)
        defer { lb.stopAll() }
        lb.killHomebase()  // before the request: the relay answers not-here at once

        let (out, line) = try guest.chat("are you there")
        #expect(line.brain == "on-device", "\(out)")
        #expect(line.line.contains("fell back: homebase failed"), "\(line.line)")
        let log = guest.log
        // Started when chat opened its link (the route is a Homebase), or beside the request.
        let warm = try #require(log.range(of: "warm floor: starting the on-device engine"), "\(log)")
        let fallback = try #require(log.range(of: "fallback: homebase failed"), "\(log)")
        #expect(warm.lowerBound < fallback.lowerBound, "the engine started only after the fallback began\n\(log)")
        // The fallback's request joined the warm floor's start, or found the server it made.
        #expect(!log.contains("engine: a request starts it (cold)"), "\(log)")
        #expect(log.contains("(started by the warm floor)"), "\(log)")
    }

    /// `engine.warm off`: the same fault, and the fallback starts the engine itself (the old way).
    @Test func engineWarmOffLeavesTheEngineToTheFallback() throws {
        let lb = try Loopback(engine: .llama)
        defer { lb.stopAll() }
        let guest = try lb.addGuest("laptop")
        _ = try guest.run(["settings", "set", "engine.warm", "off"])
        try lb.startHomebase()
        try guest.waitForAdvert()
        lb.killHomebase()

        let (out, line) = try guest.chat("are you there")
        #expect(line.brain == "on-device", "\(out)")
        let log = guest.log
        #expect(!log.contains("warm floor: starting"), "\(log)")
        #expect(log.contains("engine: a request starts it (cold)"), "\(log)")
        #expect(log.contains("(started by a request)"), "\(log)")
        #expect((try guest.status()["engine"] as? String)?.hasPrefix("cold") == true)
    }

    /// `guest serve` keeps the engine warm, and `guest status` (another process) says so.
    @Test func serveKeepsTheEngineWarmAndStatusSaysSo() throws {
        let (lb, guest, serve) = try ServeLinkEndToEndTests.laptopWithServe()
        defer { lb.stopAll() }
        var engine = ""
        try lb.procs.waitUntil(60, "serve's warm engine in guest status") {
            engine = try guest.status()["engine"] as? String ?? ""
            return engine.hasPrefix("warm: llama-server pid")
        }
        #expect(engine.contains("(started by the warm floor)"), "\(engine)")
        #expect(engine.contains("warm floor on"), "\(engine)")
        #expect(guest.log.contains("serve: warm floor: starting the on-device engine"), "\(guest.log)")
        // The status command's own exit leaves serve's engine.json alone.
        #expect(FileManager.default.fileExists(atPath: guest.directory + "/engine.json"))

        Glibc.kill(serve.processIdentifier, SIGTERM)
        try lb.procs.waitUntil(60, "serve to exit") { !serve.isRunning }
        #expect(!FileManager.default.fileExists(atPath: guest.directory + "/engine.json"), "serve's stop removes it")
        #expect((try guest.status()["engine"] as? String)?.hasPrefix("cold") == true)
    }
}
