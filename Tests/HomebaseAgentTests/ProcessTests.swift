import Foundation
import Glibc
import Testing
@testable import HomebaseAgent

/// The `homebase` executable itself: init prints the device, run connects and stops cleanly on
/// SIGTERM and SIGINT.
@Suite(.serialized) struct ProcessTests {
    static let binary = packageRoot.appendingPathComponent(".build/debug/homebase").path

    /// Runs `homebase ARGS` to its end: (status, stdout).
    func run(_ args: [String]) throws -> (Int32, String) {
        let out = Pipe()
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Self.binary)
        p.arguments = args
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func initPrintsTheDeviceAndABadFlagExitsTwo() throws {
        let dir = try temporaryDirectory("host")
        let (status, text) = try run(["--data-dir", dir, "init", "--name", "tower"])
        #expect(status == 0)
        let record = try #require(text.split(separator: "\n").first { $0.hasPrefix("device record: ") })
        let key = try HostFiles(dataDir: dir).loadIdentity().signingKey.publicKey.hex
        #expect(text.contains("device key: \(key)"))
        #expect(record.dropFirst("device record: ".count).count == 2 * (138 + 5))
        #expect(try run(["--data-dir", dir, "init"]).0 == 1)  // never overwrites
        #expect(try run(["--data-dir", dir, "status", "--nope"]).0 == 2)
        #expect(try run(["--data-dir", dir, "run", "--help"]).0 == 0)
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func runConnectsAndStopsCleanlyOnASignal(_ sig: Int32) async throws {
        let relay = try RelayFixture()
        defer { relay.stop() }
        let dir = try temporaryDirectory("host")
        #expect(try run(["--data-dir", dir, "init"]).0 == 0)
        let files = HostFiles(dataDir: dir)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Self.binary)
        p.arguments = ["--data-dir", dir, "run", "--relay", relay.url, "--reload-interval", "50ms", "--quiet",
                       "--default-runtime", "http://127.0.0.1:\(try freePort())"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL); p.waitUntilExit() } }
        try await eventually("the agent reports a connected link") {
            (try? HostStatus.read(files))?.live.map { $0.running && $0.link == "connected" } ?? false
        }
        kill(p.processIdentifier, sig)
        try await eventually("the agent exited") { !p.isRunning }
        #expect(p.terminationReason == .exit)
        #expect(p.terminationStatus == 0)
        #expect(try HostStatus.read(files).live?.running == false)
    }
}
