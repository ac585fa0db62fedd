import Foundation
import Testing

/// A local model chosen on one device follows on its sibling, which lacks it: the sibling
/// downloads it through its model store (from a stand-in hub) while it keeps answering, then
/// selects it. Real processes: relay, Homebase (for the roster), two guests, the hub, llama-server.
@Suite(.serialized) struct LocalModelChoiceEndToEndTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let repo = "hbtest/Llama-Tiny-0.5M-Instruct-GGUF"

    /// Siblings "a" and "b" of the scene's account, the Homebase running and both holding its
    /// roster; "a" has pulled the tiny model from the stand-in hub. The model's id.
    static func siblingsAndAModelOnA(_ s: PairScene, _ wait: [String]) throws -> Substring {
        _ = try RosterEndToEndTests.siblings(s, ["a", "b"])
        try s.startHost()
        for n in ["a", "b"] {
            try s.procs.waitUntil(60, "roster 3 at \(n)") { try s.guest(n, ["devices"] + wait).contains("roster version 3") }
        }
        let pulled = try s.guest("a", ["models", "pull", repo])
        guard let id = pulled.split(separator: "\n").first(where: { $0.hasSuffix(": ready") })?.dropLast(": ready".count) else {
            throw Failure("pull: \(pulled)")
        }
        return id
    }

    @Test func aSiblingDownloadsTheChosenLocalModelWhileItKeepsAnswering() throws {
        let s = try PairScene(engine: false)
        defer { s.stop() }
        let hub = try StandInHub(s)
        defer { hub.stop() }

        let wait = ["--relay-wait", "5s"]
        let id = try Self.siblingsAndAModelOnA(s, wait)

        // b is chatting (its link open) when a chooses; b's download is held half-way.
        try hub.mode("hold=100000")
        let (chat, input) = try s.startInteractive(s.bin.path("guest"), ["chat", "--max-tokens", "8"] + wait + s.guestArgs("b"),
                                                   log: "b-chat.log")
        try s.procs.waitUntil(60, "b's chat prompt") { s.procs.read("b-chat.log").contains("> ") }
        #expect(try s.guest("a", ["models", "use", String(id)] + wait).contains("using \(id)"))
        try s.procs.waitUntil(60, "b to start the download") {
            s.procs.read("b/guest.log").contains("model choice: \(id) is not on this device: downloading it")
        }
        input.write(Data("hello while downloading\n".utf8))
        try s.procs.waitUntil(120, "b's answer meanwhile") { (try? AnswerLine(s.procs.read("b-chat.log"))) != nil }
        #expect(!s.procs.read("b/guest.log").contains("downloaded and selected"), "the download was not held")

        try hub.mode("release=1")
        try s.procs.waitUntil(120, "b to select the model") { s.procs.read("b/guest.log").contains("\(id) downloaded and selected") }
        try? input.close()
        try s.procs.waitUntil(30, "b's chat to end") { !chat.isRunning }
        let list = try s.guest("b", ["models", "list"])
        #expect(list.contains("* \(id)  ready"), "\(list)")
        // No echo: b applied a's choice and sent nothing back.
        #expect(!s.procs.read("b/guest.log").contains("sent to"), "\(s.procs.read("b/guest.log"))")
    }
}

extension FileHandle {
    /// Bytes up to the first newline (blocking).
    func availableDataLine() -> Data {
        var line = Data()
        while let b = try? read(upToCount: 1), !b.isEmpty, b != Data("\n".utf8) { line += b }
        return line
    }
}
