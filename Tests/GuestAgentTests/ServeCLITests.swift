import Foundation
@testable import GuestAgent
import Glibc
import Inference
import Testing

/// `guest serve` as local tools meet it: the built binary on a loopback port, driven by the
/// official `openai` and `ollama` Python clients, answering from the brain the router chose.
@Suite(.serialized) struct ServeCLITests {
    /// The real tiny model answers every client, streamed and not; every answer names it.
    @Test func officialClientsGetOnDeviceAnswers() throws {
        let tiny = try Engine.tiny()
        let g = try GuestRunner()
        let serving = try g.serve(["--model-path", tiny.path, "--llama-server", Engine.binary])
        var stopped = false
        defer { if !stopped { _ = serving.stop() } }
        let o = try runServeClients(serving.hostPort, maxTokens: 8)

        for mode in ["openai_whole", "openai_stream", "ollama_whole", "ollama_stream"] {
            let r = try #require(o[mode] as? [String: Any], "\(mode) missing: \(o)")
            #expect(!(r["content"] as? String ?? "").isEmpty, "\(mode): \(r)")
            #expect(r["header"] as? String == "on-device", "\(mode): \(r)")
        }
        for mode in ["openai_whole", "openai_stream"] {
            let homebase = (o[mode] as? [String: Any])?["homebase"] as? [String: String]
            #expect(homebase?["brain"] == "on-device", "\(mode): \(o)")
            #expect(homebase?["route_reason"]?.contains("model source not set") == true, "\(mode): \(o)")
            #expect(homebase?["fell_back_from"] == nil)
        }
        let whole = try #require(o["openai_whole"] as? [String: Any])
        #expect(["length", "stop"].contains(whole["finish_reason"] as? String ?? ""))
        let stream = try #require(o["openai_stream"] as? [String: Any])
        #expect((stream["chunks"] as? Int ?? 0) > 2, "streamed as several chunks")
        #expect((o["ollama_stream"] as? [String: Any])?["parts"] as? Int ?? 0 > 2)
        // What the router can serve: `default` and the on-device model, each with its brain.
        #expect(o["openai_models"] as? [String] == ["default", "tiny-seed0"], "\(o)")
        #expect(o["ollama_tags"] as? [String] == ["default", "tiny-seed0"], "\(o)")
        for key in ["openai_model_brains", "ollama_tag_brains"] {
            #expect(o[key] as? [String: String] == ["default": "on-device", "tiny-seed0": "on-device"], "\(key): \(o)")
        }

        // SIGTERM ends serve and its llama-server with it.
        let engines = childPIDs(of: serving.process.processIdentifier)
        #expect(engines.count == 1, "one llama-server under serve")
        let status = serving.stop()
        stopped = true
        #expect(status == 0 || status == 128 + SIGTERM, "exit \(status)")
        for pid in engines { #expect(!processExists(pid) || isZombieProcess(pid), "llama-server \(pid) outlived serve") }
    }

    /// The router chose OpenAI (a key on file): the clients get the stand-in's answer, named
    /// `openai`; with the key gone, the same server answers on-device at the next request.
    @Test func officialClientsGetTheCloudTheRouterChose() throws {
        let peer = try CloudStandIn()
        defer { peer.stop() }
        let (g, serving) = try GuestRunner.servingOpenAI(peer.url)
        defer { _ = serving.stop() }
        let o = try runServeClients(serving.hostPort, maxTokens: 8)
        for mode in ["openai_whole", "openai_stream", "ollama_whole", "ollama_stream"] {
            let r = try #require(o[mode] as? [String: Any], "\(mode) missing: \(o)")
            #expect(r["content"] as? String == "Hello from the OpenAI stand-in (key …wxyz).", "\(mode): \(r)")
            #expect(r["header"] as? String == "openai", "\(mode): \(r)")
        }
        #expect(((o["openai_stream"] as? [String: Any])?["homebase"] as? [String: String])?["brain"] == "openai")
        #expect((o["openai_stream"] as? [String: Any])?["finish_reason"] as? String == "stop")

        // A bad key moved first: the cloud says 401, the device answers, the answer says so.
        #expect(try g.run(["keys", "add", "openai"], input: KeysCLITests.bad + "\n").status == 0)
        #expect(try g.run("keys", "move", "openai", "2", "1").status == 0)
        let fell = try runServeClients(serving.hostPort, maxTokens: 8)
        let whole = try #require(fell["openai_whole"] as? [String: Any])
        #expect(whole["header"] as? String == "on-device")
        let homebase = try #require(whole["homebase"] as? [String: String])
        #expect(homebase["brain"] == "on-device")
        #expect(homebase["fell_back_from"] == "openai")
        #expect(homebase["fallback_reason"]?.hasPrefix("HTTP 401") == true)
        // The whole ladder once: each rung tried, what failed and when, then who answered.
        let rungs = try #require(try JSONSerialization.jsonObject(with: Data((homebase["rungs"] ?? "").utf8)) as? [[String: Any]],
                                 "\(homebase)")
        #expect(rungs.count == 2, "\(rungs)")
        #expect(rungs.first?["brain"] as? String == "openai" && (rungs.first?["why"] as? String)?.hasPrefix("HTTP 401") == true
                && rungs.first?["failed_at_ms"] is Int, "\(rungs)")
        #expect(rungs.last?["brain"] as? String == "on-device" && rungs.last?["answered"] as? Bool == true, "\(rungs)")
        #expect(!(whole["content"] as? String ?? "").contains("stand-in"))
    }

    /// An image no brain the user chose can see (#23): the real `guest serve` answers 422 with the
    /// router's words, in both APIs, and asks no brain (the on-device built-in model cannot see).
    @Test func anImageNoBrainCanSeeIsRefused422() async throws {
        let tiny = try Engine.tiny()
        let g = try GuestRunner()
        // The warm floor would start the engine with serve itself (#24): off, so no child means no start for the request.
        _ = try g.run(["settings", "set", "engine.warm", "off"])
        let serving = try g.serve(["--model-path", tiny.path, "--llama-server", Engine.binary])
        defer { _ = serving.stop() }
        let png = "iVBORw0KGgo="  // 8 bytes of PNG signature, base64: enough to be an image part
        let bodies = [
            ("/v1/chat/completions", #"{"model": "default", "messages": [{"role": "user", "content": [{"type": "text", "text": "what is this?"}, {"type": "image_url", "image_url": {"url": "data:image/png;base64,\#(png)"}}]}]}"#),
            ("/api/chat", #"{"model": "default", "stream": false, "messages": [{"role": "user", "content": "what is this?", "images": ["\#(png)"]}]}"#),
        ]
        for (path, body) in bodies {
            let r = try await HTTPStreamClient().send(HTTPStreamRequest(
                method: "POST", url: "http://\(serving.hostPort)\(path)", headers: [HTTPHeader("Content-Type", "application/json")],
                body: Array(body.utf8)))
            let text = String(decoding: try await r.collect(), as: UTF8.self)
            #expect(r.status == 422, "\(path): \(r.status) \(text)")
            #expect(text.contains("no brain that can see the image is available"), "\(path): \(text)")
            #expect(text.contains("cannot see images"), "\(path): \(text)")
        }
        #expect(childPIDs(of: serving.process.processIdentifier).isEmpty, "no engine was started for a refused request")
    }

    @Test func badFlagsAndHelp() throws {
        let g = try GuestRunner()
        let help = try g.run("serve", "--help")
        #expect(help.status == 0)
        #expect(help.out.contains("--listen HOST:PORT") && help.out.contains("/api/chat") && help.out.contains("--relay-wait TIME"))
        #expect(help.out.contains("Request bodies up to 32 MiB are taken"), "\(help.out)")
        let listen = try g.run("serve", "--listen", "localhost")
        #expect(listen.status == 2)
        #expect(listen.err.contains("expected HOST:PORT"))
        let remote = try g.run("serve", "--listen", "0.0.0.0:0")
        #expect(remote.status == 2)
        #expect(remote.err.contains("needs --allow-remote and --token"))
        #expect(try g.run("serve", "extra").status == 2)
    }
}

