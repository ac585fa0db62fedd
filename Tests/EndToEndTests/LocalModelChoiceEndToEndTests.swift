import Foundation
import Testing

/// A local model chosen on one device follows on its sibling, which lacks it: the sibling
/// downloads it through its model store (from a stand-in hub) while it keeps answering, then
/// selects it. Real processes: relay, Homebase (for the roster), two guests, the hub, llama-server.
@Suite(.serialized) struct LocalModelChoiceEndToEndTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let repo = "hbtest/Llama-Tiny-0.5M-Instruct-GGUF"

    @Test func aSiblingDownloadsTheChosenLocalModelWhileItKeepsAnswering() throws {
        let s = try PairScene(engine: false)
        defer { s.stop() }
        // The stand-in hub (Tests/ModelStoreTests/peers/hub.py, standard library only).
        let hub = Process(), hubOut = Pipe(), hubIn = Pipe()
        hub.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        hub.arguments = [Self.packageRoot + "/Tests/ModelStoreTests/peers/hub.py", s.bin.model]
        hub.standardOutput = hubOut
        hub.standardInput = hubIn
        try hub.run()
        defer { hub.terminate() }
        let first = String(decoding: hubOut.fileHandleForReading.availableDataLine(), as: UTF8.self)
        guard first.hasPrefix("PORT "), let port = Int(first.dropFirst(5)) else { throw Failure("hub: \(first)") }
        s.extraEnvironment["HF_ENDPOINT"] = "http://127.0.0.1:\(port)"
        func hubMode(_ q: String) throws {
            let r = try s.run("/usr/bin/curl", ["-sf", "http://127.0.0.1:\(port)/_mode?\(q)"])
            guard r.status == 0 else { throw Failure("hub mode \(q): curl exited \(r.status)") }
        }

        _ = try RosterEndToEndTests.siblings(s, ["a", "b"])
        try s.startHost()
        let wait = ["--relay-wait", "5s"]
        for n in ["a", "b"] {
            try s.procs.waitUntil(60, "roster 3 at \(n)") { try s.guest(n, ["devices"] + wait).contains("roster version 3") }
        }
        let pulled = try s.guest("a", ["models", "pull", Self.repo])
        guard let id = pulled.split(separator: "\n").first(where: { $0.hasSuffix(": ready") })?.dropLast(": ready".count) else {
            throw Failure("pull: \(pulled)")
        }

        // b is chatting (its link open) when a chooses; b's download is held half-way.
        try hubMode("hold=100000")
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

        try hubMode("release=1")
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
