import Foundation
import Glibc

/// One guest device of a `Loopback`: its data directory, its commands, its log.
struct Guest {
    let loopback: Loopback
    let directory: String

    /// The watchdog and link waits of `guest chat`: generous, so that only the fault a test
    /// provokes makes the Homebase fail; a test shortens the one rung it is about.
    static let chatWaits: [(name: String, value: String)] = [
        ("--max-tokens", "16"), ("--relay-wait", "3s"), ("--connect-timeout", "2s"),
        ("--accept-timeout", "10s"), ("--first-output-timeout", "30s"), ("--stall-timeout", "10s"),
    ]

    var globalFlags: [String] {
        ["--data-dir", directory, "--llama-server", loopback.bin.engine, "--model-path", loopback.bin.model]
    }

    /// `guest COMMAND ...` to its end (bounded by `within` seconds); fails on a non-zero exit.
    func run(_ args: [String], within seconds: Double = 180) throws -> String {
        let r = try loopback.procs.run(loopback.bin.path("guest"), args + globalFlags, within: seconds)
        guard r.status == 0 else { throw Failure("guest \(args.first ?? "") exited \(r.status): \(r.out)") }
        return r.out
    }

    /// The chat flags with `overrides` replacing the defaults of the same name.
    static func flags(_ overrides: [String: String]) -> [String] {
        var out: [String] = []
        for (name, value) in chatWaits where overrides[name] == nil { out += [name, value] }
        for (name, value) in overrides.sorted(by: { $0.key < $1.key }) { out += [name, value] }
        return out
    }

    /// One `guest chat PROMPT`: its whole output and the answer's dim line.
    func chat(_ prompt: String, _ overrides: [String: String] = [:], within seconds: Double = 180) throws -> (out: String, line: AnswerLine) {
        let out = try run(["chat"] + Self.flags(overrides) + [prompt], within: seconds)
        loopback.procs.append("answers.log", out)  // kept with the logs, for whoever reads a failure
        return (out, try AnswerLine(out))
    }

    /// `guest status --json` as a dictionary.
    func status(_ extra: [String] = []) throws -> [String: Any] {
        let out = try run(["status", "--json", "--relay-wait", "2s", "--connect-timeout", "2s"] + extra)
        guard let json = try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any] else {
            throw Failure("guest status --json is not an object: \(out)")
        }
        return json
    }

    /// Waits (bounded) until the own Homebase's advert is on file here. `homebase run` logs an
    /// advert when it hands it to its link, a moment before the relay holds it.
    func waitForAdvert() throws {
        try loopback.procs.waitUntil(30, "the advert at \(directory)") { try status()["ownAdvertAgeSeconds"] != nil }
    }

    /// The guest's event log (`DATA-DIR/guest.log`): fallbacks, repairs, relay mail.
    var log: String { (try? String(contentsOfFile: directory + "/guest.log", encoding: .utf8)) ?? "" }

    /// An interactive `guest chat` (no PROMPT): one conversation, a line of stdin per turn.
    func startConversation(_ overrides: [String: String] = [:], log name: String) throws -> Conversation {
        let (process, input) = try loopback.procs.startInteractive(loopback.bin.path("guest"),
                                                                   ["chat"] + Self.flags(overrides) + globalFlags, log: name)
        return Conversation(procs: loopback.procs, process: process, input: input, log: name)
    }
}

/// A running interactive chat: `ask` sends a turn and waits (bounded) for its answer line.
struct Conversation {
    let procs: Processes
    let process: Process
    let input: FileHandle
    let log: String

    /// The answer lines so far (`[homebase · ...]`), in order.
    var answers: [AnswerLine] {
        procs.read(log).split(separator: "\n").compactMap { line in
            guard line.hasPrefix("[homebase") || line.hasPrefix("[on-device") || line.hasPrefix("[no brain") else { return nil }
            return try? AnswerLine(String(line))
        }
    }

    func ask(_ prompt: String, within seconds: Double = 120) throws -> AnswerLine {
        let before = answers.count
        try input.write(contentsOf: Data((prompt + "\n").utf8))
        try procs.waitUntil(seconds, "the answer to turn \(before + 1)") { answers.count > before }
        return answers[before]
    }

    /// Ends the chat (end of input) and waits for the guest to exit.
    func end(within seconds: Double = 60) throws {
        try? input.close()
        try procs.waitUntil(seconds, "the interactive guest to exit") { !process.isRunning }
    }
}
