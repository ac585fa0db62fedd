import Foundation
import Glibc
@testable import GuestAgent
import Inference
import Testing

/// `serve.json` (how `guest serve` announces itself) and the reader of serve's stream that
/// `guest chat` uses beside it. Files in a temporary directory; real short-lived processes for
/// the pid checks; the stream is serve's OpenAI-shaped SSE data, written here.
@Suite struct ServeFileTests {
    @Test func writtenFileReadsBackAndIsPrivate() throws {
        let paths = GuestPaths(dataDirectory: try temporaryDirectory("guest-tests"))
        let file = ServeFile(pid: 4242, host: "0.0.0.0", port: 11435)
        try file.write(paths)
        #expect(ServeFile.read(paths) == file)
        #expect(file.baseURL == "http://127.0.0.1:11435", "a wildcard address is reached on loopback")
        let mode = try FileManager.default.attributesOfItem(atPath: ServeFile.path(paths))[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: paths.dataDirectory) == ["serve.json"], "no temporary left")
    }

    /// The token file's path (never the token) is announced for `guest chat`; an older file
    /// without it still reads.
    @Test func theTokenFileIsAnnouncedAndOlderFilesStillRead() throws {
        let paths = GuestPaths(dataDirectory: try temporaryDirectory("guest-tests"))
        var file = ServeFile(pid: 4242, host: "127.0.0.1", port: 11435)
        file.tokenFile = "/home/u/.config/homebase/serve.token"
        try file.write(paths)
        #expect(ServeFile.read(paths)?.tokenFile == "/home/u/.config/homebase/serve.token")
        try Data(#"{"pid":1,"host":"127.0.0.1","port":2,"started":"2026-12-01T16:00:00Z"}"#.utf8).write(to: URL(fileURLWithPath: ServeFile.path(paths)))
        #expect(ServeFile.read(paths)?.port == 2 && ServeFile.read(paths)?.tokenFile == nil)
    }

    @Test func aDeadPidOrAnotherProgramIsNoServe() throws {
        let paths = GuestPaths(dataDirectory: try temporaryDirectory("guest-tests"))
        let sleeper = Process()
        sleeper.executableURL = URL(fileURLWithPath: "/bin/sleep")
        sleeper.arguments = ["30"]
        sleeper.standardOutput = FileHandle.nullDevice  // a child must not hold the runner's stdout
        try sleeper.run()
        defer { sleeper.terminate() }
        try ServeFile(pid: sleeper.processIdentifier, host: "127.0.0.1", port: 1).write(paths)
        var why: [String] = []
        #expect(ServeFile.live(paths, why: { why.append($0) }) == nil, "a live pid that is not guest serve")
        #expect(why.first?.contains("not a running guest serve") == true, "\(why)")

        let done = Process()
        done.executableURL = URL(fileURLWithPath: "/bin/true")
        try done.run()
        done.waitUntilExit()
        try ServeFile(pid: done.processIdentifier, host: "127.0.0.1", port: 1).write(paths)
        #expect(ServeFile.live(paths) == nil, "a dead pid")
        #expect(ServeFile.live(paths, except: done.processIdentifier) == nil, "its own file")
    }

    @Test func removeLeavesAnotherServesFile() throws {
        let paths = GuestPaths(dataDirectory: try temporaryDirectory("guest-tests"))
        try ServeFile(pid: 77, host: "127.0.0.1", port: 1).write(paths)
        ServeFile.remove(paths, pid: 78)
        #expect(ServeFile.read(paths)?.pid == 77)
        ServeFile.remove(paths, pid: 77)
        #expect(ServeFile.read(paths) == nil)
    }

    @Test func streamReaderNamesTheBrainAndTheFallbackAsChatDoes() throws {
        let start = ContinuousClock.now
        var r = ServeStreamReader(start: start)
        r.headerBrain = "homebase"
        let chunk = #"{"choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"},"finish_reason":null}]}"#
        #expect(try r.read(chunk, now: start + .milliseconds(20)) == "Hi")
        #expect(try r.read(#"{"choices":[{"index":0,"delta":{"content":" there"},"finish_reason":null}]}"#,
                           now: start + .milliseconds(120)) == " there")
        _ = try r.read(#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#)
        _ = try r.read(#"{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":4,"total_tokens":9},"homebase":{"brain":"on-device","route_reason":"own Homebase","chosen":"homebase","fell_back_from":"homebase","fallback_reason":"timed out: accept"}}"#)
        #expect(r.finished == false)
        _ = try r.read("[DONE]")
        #expect(r.finished)
        let a = try r.answer()
        #expect(a.text == "Hi there")
        #expect(a.metadata.brain == .onDevice, "the brain that finished, not the header's")
        #expect(a.metadata.summaryLine == "on-device · first token 20 ms · 40 tok/s · fell back: homebase failed (timed out: accept)")
        #expect(a.metadata.completionTokens == 4 && a.metadata.finishReason == "stop")
    }

    @Test func streamReaderRefusesAnErrorEventAndANamelessAnswer() throws {
        var r = ServeStreamReader(start: .now)
        #expect(throws: InferenceError.inBand("engine gone")) {
            try r.read(#"{"error":{"message":"engine gone","type":"server_error"}}"#)
        }
        #expect(throws: InferenceError.self) { try r.answer() }
    }
}
