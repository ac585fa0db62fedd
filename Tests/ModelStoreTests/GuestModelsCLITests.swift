import Foundation
import Testing
@testable import ModelStore

/// `guest models pull / use` then `guest chat`, as a user runs them: the real guest binary, the
/// stand-in hub (HF_ENDPOINT) serving the tiny real GGUF, the real llama-server.
@Suite(.serialized) struct GuestModelsCLITests {
    @Test func aPulledModelIsWhatTheOnDeviceBrainServes() async throws {
        let hub = try StandInHub(), dir = try TempDir("homebase-models")
        defer { hub.stop(); dir.cleanup() }
        let guest = try GuestRun(dir: dir, hubURL: hub.baseURL)
        let pulledPath = "\(guest.dataDir)/models/\(tinyRepo)/\(tinyFile)"

        let pull = try guest.run(["models", "pull", tinyRepo, "--llama-server", llamaServerPath])
        #expect(pull.status == 0, "\(pull.err)")
        #expect(pull.out == "\(tinyID): ready\n")
        #expect(fileBytes(pulledPath) == fileBytes(tinyModelPath))
        // `ready` came after the load check: llama-server was started on the pulled file, and the
        // guest waited for its /health to answer 200, which it does only once the model is loaded.
        // (Its later log lines are written by a logging thread and may be cut by the stop.)
        let engineLog = try String(contentsOfFile: guest.dataDir + "/llama-server.log", encoding: .utf8)
        #expect(engineLog.contains("loading model '\(pulledPath)'"))

        #expect(try guest.run(["models", "use", tinyID]).out == "using \(tinyID)\n")
        #expect(try guest.run(["models", "list"]).out.contains("* \(tinyID)  ready"))

        let chat = try InteractiveGuest(guest, ["chat", "--llama-server", llamaServerPath, "--max-tokens", "8"])
        chat.send("hello")
        try await chat.wait(for: "[on-device")  // the answer's summary line names the brain
        #expect(!chat.text.contains("fell back"))
        // While the chat waits for its next line, ask its engine what it loaded.
        let port = try #require(chat.enginePort())
        let http = HTTPClient()
        let props = try await http.get(HTTPRequest(url: "http://127.0.0.1:\(port)/props"))
        let propsJSON = try #require(try JSONSerialization.jsonObject(with: props.body) as? [String: Any])
        #expect(propsJSON["model_path"] as? String == pulledPath)
        let models = try await http.get(HTTPRequest(url: "http://127.0.0.1:\(port)/v1/models"))
        let list = try #require(try JSONSerialization.jsonObject(with: models.body) as? [String: Any])
        let ids = (list["data"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
        #expect(ids == [tinyID])
        chat.send("/exit")
        #expect(chat.finish() == 0)
    }

    @Test func readyIsRecordedOnlyOnceTheEngineLoadedTheModel() async throws {
        let hub = try StandInHub(), dir = try TempDir("homebase-models")
        defer { hub.stop(); dir.cleanup() }
        let guest = try GuestRun(dir: dir, hubURL: hub.baseURL)
        // Downloaded, but no engine to load it: failed, not ready, and not selectable.
        let noEngine = try guest.run(["models", "pull", tinyRepo, "--llama-server", dir.path + "/no/llama-server"])
        #expect(noEngine.status == 1)
        #expect(noEngine.err.contains("llama-server not found"))
        #expect(try guest.run(["models", "list"]).out.contains("\(tinyID)  failed (llama-server not found"))
        let use = try guest.run(["models", "use", tinyID])
        #expect(use.status == 1 && use.err.contains("it is failed"))
        let cdnBefore = try await hub.log().filter { $0.host.hasPrefix("127.0.0.2:") }.count

        // With the engine: the complete file is not fetched again, the load check passes.
        let pull = try guest.run(["models", "pull", tinyRepo, "--llama-server", llamaServerPath])
        #expect(pull.out == "\(tinyID): ready\n", "\(pull.err)")
        #expect(try await hub.log().filter { $0.host.hasPrefix("127.0.0.2:") }.count == cdnBefore)
        #expect(try guest.run(["models", "use", tinyID]).status == 0)
    }

    @Test func aModelSelectedWhileDownloadingLeavesTheReadyOneAnswering() async throws {
        let hub = try StandInHub(), dir = try TempDir("homebase-models")
        defer { hub.stop(); dir.cleanup() }
        let guest = try GuestRun(dir: dir, hubURL: hub.baseURL)
        let engine = ["--llama-server", llamaServerPath]
        #expect(try guest.run(["models", "pull", tinyRepo] + engine).out == "\(tinyID): ready\n")
        #expect(try guest.run(["models", "use", tinyID]).status == 0)

        // A second pull, held by the CDN after 1000 bytes of its first file.
        let smol = "hbtest/SmolVLM-256M-Instruct-GGUF", smolID = "hbtest/SmolVLM-256M-Instruct-GGUF:Q8_0"
        try await hub.mode("hold=1000")
        let pull = guest.process(["models", "pull", smol] + engine)
        pull.standardOutput = FileHandle.nullDevice
        pull.standardError = FileHandle.nullDevice
        try pull.run()
        let part = "\(guest.dataDir)/models/\(smol)/SmolVLM-256M-Instruct-Q8_0-00001-of-00003.gguf.part"
        let start = ContinuousClock.now
        while (fileBytes(part)?.count ?? 0) < 1000 {
            guard pull.isRunning, ContinuousClock.now - start < .seconds(120) else { throw SetupError("the held pull never started") }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(try guest.run(["models", "use", smolID]).out == "using \(smolID)\n")
        #expect(try guest.run(["models", "list"]).out.contains("* \(smolID)  downloading"))

        let chat = try guest.run(["chat", "hello", "--max-tokens", "4"] + engine)
        #expect(chat.status == 0)
        #expect(chat.out.contains("[on-device"), "\(chat.out)")  // the tiny model answered, not the floor notice
        try await hub.mode("release=1")
        pull.waitUntilExit()
    }
}
