import Foundation
import Basics
import Glibc
@testable import GuestAgent
@testable import OnDeviceEngine
import Sealing
import Testing

/// The built `guest` executable, run as a user would.
@Suite(.serialized) struct CLITests {
    struct Run {
        var status: Int32
        var out: String
        var err: String
    }

    static let binary: String = {
        // Tests/GuestAgentTests/CLITests.swift → the package root → .build/debug/guest
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/guest").path
    }()

    let dataDir: String
    let configDir: String

    init() throws {
        let base = try temporaryDirectory("guest-tests")
        dataDir = base + "/data"
        configDir = base + "/config"
    }

    func guest(_ args: String...) throws -> Run { try guest(args, input: nil) }

    func guest(_ args: [String], input: String?) throws -> Run {
        guard FileManager.default.isExecutableFile(atPath: Self.binary) else {
            throw SetupError("\(Self.binary) missing: swift build --build-tests first")
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Self.binary)
        p.arguments = args
        var env = ProcessInfo.processInfo.environment
        env["XDG_CONFIG_HOME"] = configDir
        env["XDG_DATA_HOME"] = dataDir + "-xdg"
        p.environment = env
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        let stdin = Pipe()
        p.standardInput = input == nil ? FileHandle.nullDevice : stdin
        try p.run()
        if let input {
            stdin.fileHandleForWriting.write(Data(input.utf8))
            try stdin.fileHandleForWriting.close()
        }
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Run(status: p.terminationStatus, out: String(decoding: o, as: UTF8.self), err: String(decoding: e, as: UTF8.self))
    }

    @Test func helpEverywhere() throws {
        let top = try guest("--help")
        #expect(top.status == 0)
        for name in ["init", "chat", "status", "settings", "models", "keys", "serve", "runtime"] { #expect(top.out.contains("  \(name)")) }
        let chat = try guest("chat", "--help")
        #expect(chat.status == 0)
        #expect(chat.out.contains("--tools") && chat.out.contains("--allow-dir DIR") && chat.out.contains("--data-dir DIR"))
        #expect(try guest("models", "--help").out.contains("add-repo"))
        #expect(try guest("settings", "--help").out.contains("model.source"))
    }

    @Test func badFlagSaysWhatAndHowAndExits2() throws {
        let r = try guest("chat", "--bogus", "--data-dir", dataDir)
        #expect(r.status == 2)
        #expect(r.err.contains("unknown flag --bogus"))
        #expect(r.err.contains("guest chat --help"))
        let missing = try guest("status", "--data-dir")
        #expect(missing.status == 2)
        #expect(missing.err.contains("--data-dir needs a value"))
        let unknown = try guest("frobnicate")
        #expect(unknown.status == 2)
        #expect(unknown.err.contains("unknown command frobnicate"))
        #expect(try guest("chat", "--max-tokens", "zero", "hi").status == 2)
    }

    @Test func initWritesPrivateKeysAndPrintsTheRecord() throws {
        let account = String(repeating: "ab", count: 32)
        let r = try guest("init", "--name", "laptop", "--account", account, "--data-dir", dataDir)
        #expect(r.status == 0, "\(r.err)")
        let lines = r.out.split(separator: "\n").map(String.init)
        let hex = try #require(lines.first)
        let decoded = Basics.bytes(fromHex: hex)
        let bytes = try #require(decoded)
        let record = try DeviceRecord(encoded: bytes)
        #expect(record.name == "laptop")
        #expect(r.out.contains(record.signingKey.hex))
        for file in [DeviceIdentity.signingKeyFile, DeviceIdentity.hpkeKeyFile] {
            #expect(fileMode("\(dataDir)/identity/\(file)") == 0o600)
        }
        #expect(try String(contentsOfFile: dataDir + "/account.key", encoding: .utf8) == account + "\n")
        // A second init keeps the identity.
        let again = try guest("init", "--data-dir", dataDir)
        #expect(again.out.hasPrefix(hex + "\n"))
        #expect(again.out.contains("existing device"))
        #expect(try guest("init", "--account", "nothex", "--data-dir", dataDir).status == 2)
    }

    @Test func settingsSetGetUnset() throws {
        #expect(try guest("settings", "set", "model.source", "External", "--data-dir", dataDir).status == 0)
        let got = try guest("settings", "get", "model.source", "--data-dir", dataDir)
        #expect(got.out == "external\n")
        let all = try guest("settings", "get", "--data-dir", dataDir)
        #expect(all.out.contains("model.source = external") && all.out.contains("ollama.model = (unset)"))
        let bad = try guest("settings", "set", "model.source", "cloud9", "--data-dir", dataDir)
        #expect(bad.status == 2)
        #expect(bad.err.contains("expected one of on-device, community, external"))
        #expect(!bad.err.contains("cloud9"), "a rejected value is never echoed")
        #expect(try guest("settings", "set", "no.such", "x", "--data-dir", dataDir).status == 2)
        #expect(try guest("settings", "unset", "model.source", "--data-dir", dataDir).status == 0)
        #expect(try guest("settings", "get", "model.source", "--data-dir", dataDir).out == "(unset)\n")
    }

    /// `tools.remote` (#23): listed with what unset means, set on or off, shown by `status`.
    @Test func toolsRemoteIsASettingStatusExplains() throws {
        #expect(try guest("settings", "get", "--data-dir", dataDir).out.contains("tools.remote = (unset: on)"))
        #expect(try guest("settings", "--help").out.contains("tools.remote: one of on, off (default on)"))
        #expect(try guest("settings", "set", "tools.remote", "OFF", "--data-dir", dataDir).out == "tools.remote = off\n")
        #expect(try guest("settings", "set", "tools.remote", "sometimes", "--data-dir", dataDir).status == 2)
        let status = try guest("status", "--explain", "--data-dir", dataDir)
        #expect(status.out.contains("with tools:    on-device:"), "\(status.out)")
        #expect(status.out.contains("with images:   refused: "), "\(status.out)")
        #expect(status.out.contains("A request with an image is refused: no brain that can see the image is available"), "\(status.out)")
    }

    /// `request.shaping` (#22): listed with its default, set, refused when wrong, shown by `status`.
    @Test func requestShapingIsASettingStatusShows() throws {
        #expect(try guest("settings", "get", "--data-dir", dataDir).out.contains("request.shaping = (unset: padded)"))
        #expect(try guest("status", "--data-dir", dataDir).out.contains("requests:      padded (frames of at least 2097 bytes"))
        #expect(try guest("settings", "set", "request.shaping", "Cadence", "--data-dir", dataDir).out == "request.shaping = cadence\n")
        let bad = try guest("settings", "set", "request.shaping", "loud", "--data-dir", dataDir)
        #expect(bad.status == 2 && bad.err.contains("one of off, padded, cadence"), "\(bad.err)")
        #expect(try guest("status", "--data-dir", dataDir).out.contains("requests:      cadence (every frame 4145 bytes"))
    }

    @Test func statusJSONWithNothingConfigured() throws {
        let r = try guest("status", "--json", "--data-dir", dataDir)
        #expect(r.status == 0, "\(r.err)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
        #expect(json["route"] as? String == "on-device")
        #expect((json["reason"] as? String)?.contains("model source not set") == true)
        #expect(json["brain"] as? String == "none")
        #expect((json["keys"] as? [String: String]) == ["OpenAI": "absent", "Anthropic": "absent"])
        let plain = try guest("status", "--explain", "--data-dir", dataDir)
        #expect(plain.out.contains("no local model") && plain.out.contains("guest models pull"))
        #expect(!plain.out.contains("\u{1b}["), "no ANSI when stdout is not a terminal")
    }

    @Test func chatWithTheDemoModelIsLabelled() throws {
        let r = try guest("chat", "--demo-model", "hi", "--data-dir", dataDir)
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.contains("runtime fake: scripted demo model, not real inference"))
        #expect(r.out.contains("Hello from the scripted demo model"))
    }

    @Test func chatOnTheTinyModelNamesTheBrain() throws {
        let tiny = try Engine.tiny()
        let r = try guest("chat", "--model-path", tiny.path, "--llama-server", Engine.binary, "--max-tokens", "8",
                          "hello", "--data-dir", dataDir)
        #expect(r.status == 0, "\(r.err)")
        let lines = r.out.split(separator: "\n")
        let last = try #require(lines.last)
        #expect(last.hasPrefix("[on-device · first token"))
        #expect(lines.count >= 2 && !lines[0].isEmpty, "an answer arrives before the dim line")
    }

    @Test func chatWithNoModelAnswersWithTheFloor() throws {
        let r = try guest("chat", "hello", "--data-dir", dataDir)
        #expect(r.status == 0)
        #expect(r.out.hasPrefix("[No brain was reachable: no local model is installed."))
        #expect(r.out.contains("[no brain (floor notice)"))
    }

    /// A dead local endpoint: the answer comes from the tiny model, the dim line says why, the
    /// log and `status` show the fallback.
    @Test func deadLocalEndpointFallsBackOnDeviceVisibly() throws {
        let tiny = try Engine.tiny()
        for (name, value) in [("model.source", "external"), ("ollama.model", "llama3.1:8b")] {
            #expect(try guest("settings", "set", name, value, "--data-dir", dataDir).status == 0)
        }
        let port = try #require(try? deadLoopbackPort())
        try Data(#"{"url": "http://127.0.0.1:\#(port)", "models": ["llama3.1:8b"]}"#.utf8)
            .write(to: URL(fileURLWithPath: dataDir + "/runtime.json"))
        let r = try guest("chat", "--model-path", tiny.path, "--max-tokens", "8", "hello", "--data-dir", dataDir)
        #expect(r.status == 0, "\(r.err)")
        let last = try #require(r.out.split(separator: "\n").last)
        #expect(last.hasPrefix("[on-device · "))
        #expect(last.contains("fell back: local-endpoint failed (runtime unreachable"))
        let status = try guest("status", "--data-dir", dataDir)
        #expect(status.out.contains("route:         external (local endpoint http://127.0.0.1:\(port))"))
        #expect(status.out.contains("last fallback:") && status.out.contains("local-endpoint failed"))
        #expect(!(try String(contentsOfFile: dataDir + "/guest.log", encoding: .utf8)).contains("hello"))
    }

    @Test func interactiveChatKeepsGoingUntilExit() throws {
        let r = try guest(["chat", "--demo-model", "--data-dir", dataDir], input: "first\nsecond\n/exit\nnever\n")
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.components(separatedBy: "[demo model: scripted, not real inference]").count == 3)
    }

    @Test func toolsRunTheAgentLoopOnTheTinyModel() throws {
        let tiny = try Engine.tiny()
        let r = try guest("chat", "--tools", "--allow-dir", dataDir, "--model-path", tiny.path, "--max-tokens", "8",
                          "what time is it", "--data-dir", dataDir)
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.hasPrefix("[model tiny-seed0, runtime gguf]"))
        #expect(try guest("chat", "--allow-dir", dataDir, "hi", "--data-dir", dataDir).status == 2)
    }
}

extension CLITests {
    /// SIGTERM to the guest stops its llama-server too (none is left behind).
    @Test func sigtermStopsTheEngineWithTheGuest() async throws {
        let tiny = try Engine.tiny()
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Self.binary)
        p.arguments = ["chat", "--model-path", tiny.path, "--max-tokens", "4", "--data-dir", dataDir]
        var env = ProcessInfo.processInfo.environment
        env["XDG_CONFIG_HOME"] = configDir
        p.environment = env
        let stdin = Pipe(), out = Pipe()
        p.standardInput = stdin
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        stdin.fileHandleForWriting.write(Data("hello\n".utf8))  // starts the engine; stdin stays open
        var engine: Int32?
        for _ in 0..<1200 where engine == nil {  // a hang guard, not a speed check
            engine = children(of: p.processIdentifier).first
            if engine == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        let pid = try #require(engine, "the guest never started llama-server")
        kill(p.processIdentifier, SIGTERM)
        p.waitUntilExit()
        #expect(p.terminationStatus == 128 + SIGTERM)
        var gone = false
        for _ in 0..<100 where !gone {
            gone = !processExists(pid) || isZombie(pid)
            if !gone { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(gone, "llama-server \(pid) outlived the guest")
        try? stdin.fileHandleForWriting.close()
    }

    func children(of pid: Int32) -> [Int32] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.flatMap { t in
            ((try? String(contentsOfFile: "/proc/\(pid)/task/\(t)/children", encoding: .utf8)) ?? "")
                .split(separator: " ").compactMap { Int32($0) }
        }
    }

    func isZombie(_ pid: Int32) -> Bool {
        ((try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? "").contains(") Z ")
    }
}

/// A loopback port nothing listens on (bound, then closed).
func deadLoopbackPort() throws -> UInt16 { try freeLoopbackPort() }
