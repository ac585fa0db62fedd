import Foundation
import Glibc
import Inference
import Testing

/// The package root (for `.cache/venv` and the test peers): TestSupport's.
let doorsPackageRoot = packageRoot

/// The venv's Python (scripts/setup.sh), or a failure that says how to get it.
func venvPython() throws -> String { try pythonPath() }

func peerScript(_ name: String) -> String {
    doorsPackageRoot.appendingPathComponent("Tests/GuestAgentTests/peers/\(name)").path
}

/// Reads one line from `handle` (blocking), without the newline.
func readLine(_ handle: FileHandle) throws -> String {
    var line = Data()
    while let b = try handle.read(upToCount: 1), !b.isEmpty, b != Data("\n".utf8) { line += b }
    return String(decoding: line, as: UTF8.self)
}

/// `peers/cloud_standin.py`: a STAND-IN for the OpenAI and Anthropic APIs on loopback (see the
/// script). Stopped by closing its stdin.
final class CloudStandIn: Sendable {
    let peer: PortedProcess
    var port: Int { peer.port }

    init() throws {
        peer = try PortedProcess(try venvPython(), [peerScript("cloud_standin.py")])
    }

    var url: String { "http://127.0.0.1:\(port)" }

    /// Every request the stand-in got: path, key tail, model, anthropic-version.
    func record() async throws -> [[String: String]] {
        let r = try await HTTPStreamClient().send(HTTPStreamRequest(url: url + "/record"))
        let body = try await r.collect(limit: 1 << 20)
        let list = try JSONSerialization.jsonObject(with: Data(body)) as? [[String: Any]] ?? []
        return list.map { $0.compactMapValues { $0 as? String } }
    }

    func stop() { peer.stop(terminate: false) }
}

/// Runs the built `guest` with config and XDG dirs of the test, plus `environment`.
struct GuestRunner {
    let dataDir: String
    let configDir: String
    var environment: [String: String] = [:]

    init() throws {
        let base = try temporaryDirectory("guest-tests")
        dataDir = base + "/data"
        configDir = base + "/config"
    }

    var processEnvironment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["XDG_CONFIG_HOME"] = configDir
        env["XDG_DATA_HOME"] = dataDir + "-xdg"
        env.merge(environment) { _, new in new }
        return env
    }

    func binary() throws -> String {
        guard FileManager.default.isExecutableFile(atPath: CLITests.binary) else {
            throw SetupError("\(CLITests.binary) missing: swift build --build-tests first")
        }
        return CLITests.binary
    }

    /// `guest ARGS --data-dir DIR`, stdin from `input` (nothing when nil), to its end.
    func run(_ args: [String], input: String? = nil) throws -> CLITests.Run {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try binary())
        p.arguments = args + ["--data-dir", dataDir]
        p.environment = processEnvironment
        let out = Pipe(), err = Pipe(), stdin = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = input == nil ? FileHandle.nullDevice : stdin
        try p.run()
        if let input {
            stdin.fileHandleForWriting.write(Data(input.utf8))
            try stdin.fileHandleForWriting.close()
        }
        // stderr is drained on another thread so that neither pipe can fill up and block.
        let errData = DataBox()
        let drained = DispatchSemaphore(value: 0)
        DispatchQueue.global().async { errData.data = err.fileHandleForReading.readDataToEndOfFile(); drained.signal() }
        let o = out.fileHandleForReading.readDataToEndOfFile()
        drained.wait()
        p.waitUntilExit()
        return CLITests.Run(status: p.terminationStatus, out: String(decoding: o, as: UTF8.self),
                            err: String(decoding: errData.data, as: UTF8.self))
    }

    func run(_ args: String...) throws -> CLITests.Run { try run(args) }

    /// A guest whose router chose OpenAI at `baseURL` (a good key on file, the source external),
    /// serving with the tiny model on device behind it.
    static func servingOpenAI(_ baseURL: String) throws -> (GuestRunner, ServingGuest) {
        let tiny = try Engine.tiny()
        var g = try GuestRunner()
        g.environment = ["HOMEBASE_OPENAI_BASE_URL": baseURL]
        #expect(try g.run(["keys", "add", "openai"], input: KeysCLITests.good + "\n").status == 0)
        for (name, value) in [("model.source", "external"), ("external.runtime", "openai")] {
            #expect(try g.run("settings", "set", name, value).status == 0)
        }
        return (g, try g.serve(["--model-path", tiny.path, "--llama-server", Engine.binary]))
    }

    /// `guest serve --listen 127.0.0.1:0 ARGS` in the background, once it printed where it listens.
    func serve(_ args: [String]) throws -> ServingGuest {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try binary())
        p.arguments = ["serve", "--listen", "127.0.0.1:0"] + args + ["--data-dir", dataDir]
        p.environment = processEnvironment
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let line = try readLine(out.fileHandleForReading)
        let prefix = "guest serve: listening on http://"
        guard line.hasPrefix(prefix), let hostPort = line.dropFirst(prefix.count).split(separator: " ").first else {
            p.terminate()
            throw SetupError("guest serve did not start: \(line)")
        }
        return ServingGuest(process: p, hostPort: String(hostPort))
    }
}

final class DataBox: @unchecked Sendable { var data = Data() }  // written once, read after the semaphore

/// A running `guest serve`.
struct ServingGuest {
    let process: Process
    let hostPort: String

    /// SIGTERM, then the exit status once it is gone.
    func stop() -> Int32 {
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        return process.terminationStatus
    }
}

/// Runs `peers/serve_clients.py` (the official openai and ollama clients) against `hostPort`.
func runServeClients(_ hostPort: String, maxTokens: Int) throws -> [String: Any] {
    let line = try runJSONPeer(peerScript("serve_clients.py"), [hostPort, "\(maxTokens)"])
    guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
        throw SetupError("serve_clients.py printed no JSON: \(line)")
    }
    return o
}

/// The children of `pid` (every thread's), from /proc.
func childPIDs(of pid: Int32) -> [Int32] {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
    return tasks.flatMap { t in
        ((try? String(contentsOfFile: "/proc/\(pid)/task/\(t)/children", encoding: .utf8)) ?? "")
            .split(separator: " ").compactMap { Int32($0) }
    }
}

func isZombieProcess(_ pid: Int32) -> Bool {
    ((try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? "").contains(") Z ")
}
