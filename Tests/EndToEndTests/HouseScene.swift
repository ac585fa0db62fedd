import Foundation

/// #21's stage: a relay, N tiny llama-servers each behind `peers/usage_tap.py` (which records the
/// usage each engine itself reported), one Homebase serving them all, the owner's paired laptop
/// and a friend joined with an invite. All real processes.
struct HouseScene {
    let s: PairScene
    /// Per engine: the tap's port (the runtime URL the Homebase knows) and its usage file.
    var taps: [(port: Int, out: String, process: Process)] = []
    var hostKey = ""
    let chat = ["--relay-wait", "5s", "--connect-timeout", "3s", "--accept-timeout", "30s",
                "--first-output-timeout", "60s", "--stall-timeout", "30s"]

    init(engines: Int) throws {
        s = try PairScene(engine: false)
        for i in 0..<engines {
            let enginePort = try Processes.freePort(), tapPort = try Processes.freePort()
            try s.procs.start(s.bin.engine, ["--model", s.bin.model, "--host", "127.0.0.1", "--port", "\(enginePort)",
                                             "--alias", "tiny"], log: "engine\(i).log")
            let out = s.procs.work + "/tap\(i).jsonl"
            let tap = try s.procs.start(anyPython, [testsFile("EndToEndTests/peers/usage_tap.py"), "--port", "\(tapPort)",
                                                    "--target", "\(enginePort)", "--out", out, "--fail-file", failFile(i)],
                                        log: "tap\(i).log")
            try s.procs.waitUntil(60, "llama-server \(i)") { Processes.canConnect(enginePort) && Processes.canConnect(tapPort) }
            taps.append((tapPort, out, tap))
        }
    }

    var url: [String] { taps.map { "http://127.0.0.1:\($0.port)" } }

    /// While this file exists, tap `i` answers every POST 503 (its engine failing).
    func failFile(_ i: Int) -> String { s.procs.work + "/tap\(i).fail" }

    /// `homebase init`, every tap added as a runtime, `homebase run` with `flags`.
    mutating func startHost(_ flags: [String] = []) throws {
        let out = try s.homebase(["init", "--name", "house"])
        hostKey = try s.field(out, "device key: ")
        for u in url {
            try s.procs.waitUntil(60, "homebase runtime add \(u)") {
                (try? s.run(s.bin.path("homebase"), s.hostArgs + ["runtime", "add", u]))?.status == 0
            }
        }
        try s.procs.start(s.bin.path("homebase"), s.hostArgs + ["run", "--relay", s.relay, "--advert-pulse", "2s",
                                                                "--reload-interval", "100ms", "--reverify-interval", "1h"] + flags,
                          log: "homebase.log")
        try s.procs.waitUntil(30, "the Homebase to connect") { s.procs.read("homebase.log").contains("connected to the relay") }
    }

    /// The owner's laptop, paired (`homebase pair`, `guest pair`) and routed to the Homebase.
    func pairLaptop(_ name: String = "laptop") throws {
        let pairing = try s.procs.start(s.bin.path("homebase"), s.hostArgs + ["pair", "--relay", s.relay], log: "pair.log")
        try s.procs.waitUntil(30, "the code") { s.procs.read("pair.log").contains("hbpair1-") }
        try s.guest(name, ["pair", try s.code(s.procs.read("pair.log")), "--name", name, "--wait", "30s"])
        try s.procs.waitUntil(30, "homebase pair to finish") { !pairing.isRunning }
        try s.guest(name, ["settings", "set", "model.source", "external"])
        try s.guest(name, ["settings", "set", "ollama.model", "tiny"])
    }

    /// A friend's device joined with an invite made by `homebase share ARGS`, routed to it.
    func joinFriend(_ name: String, share args: [String]) throws {
        let out = try s.homebase(["share", "--relay", s.relay] + args)
        let invite = String(out.prefix { $0 != "\n" })
        let joined = try s.guestRun(name, ["join", invite, "--as", name, "--wait", "30s", "--relay-wait", "3s", "--connect-timeout", "2s"])
        guard joined.out.contains("joined: models tiny") else { throw Failure("join: \(joined.out) \(joined.err)") }
        for (k, v) in [("model.source", "external"), ("ollama.host", hostKey), ("ollama.model", "tiny")] {
            try s.guest(name, ["settings", "set", k, v])
        }
    }

    /// The chat completions a tap saw, in order (the probe's one-token trials left out).
    func tapped(_ i: Int) -> [[String: Any]] {
        s.procs.read(String(taps[i].out.dropFirst(s.procs.work.count + 1))).split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }.filter { ($0["max_tokens"] as? Int) != 1 }
    }

    /// `homebase grants usage --json` summed over own devices (true) and grantees (false).
    func usage() throws -> [Bool: (requests: Int, tokensIn: Int, tokensOut: Int)] {
        let json = try s.homebase(["grants", "usage", "--json"])
        let root = try require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        var out: [Bool: (requests: Int, tokensIn: Int, tokensOut: Int)] = [:]
        for q in root["requesters"] as? [[String: Any]] ?? [] {
            let own = q["own"] as? Bool ?? false
            for row in q["rows"] as? [[String: Any]] ?? [] {
                let was = out[own] ?? (0, 0, 0)
                out[own] = (was.requests + (row["requests"] as? Int ?? 0), was.tokensIn + (row["tokensIn"] as? Int ?? 0),
                            was.tokensOut + (row["tokensOut"] as? Int ?? 0))
            }
        }
        return out
    }
}

private func require<T>(_ v: T?) throws -> T {
    guard let v else { throw Failure("missing value") }
    return v
}
