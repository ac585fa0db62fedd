import Foundation
import Testing

/// #23: an image through `guest serve` with the route on-device is answered by the on-device
/// engine started with the store model's projector (`--mmproj`). Real processes: the stand-in hub
/// (TEST PEER, Tests/ModelStoreTests/peers/hub.py) serving the tiny model with the tiny random
/// projector of scripts/engine/make_tiny_mmproj.py, `guest models pull`/`use`, `guest serve`, the
/// real llama-server. The projector sees nothing (random weights); what the test shows is that
/// the router treats the model as one that can see, the engine takes the image (its patches count
/// as prompt tokens), and the answer comes from `on-device`, not a 422.
@Suite(.serialized) struct OnDeviceVisionEndToEndTests {
    static let repo = "hbtest/Llama-Tiny-Vision-GGUF"

    @Test func anImageIsAnsweredByTheOnDeviceModelWithItsProjector() throws {
        let bin = try Binaries.locate(), procs = try Processes()
        defer { procs.stopAll() }
        let root = LocalModelChoiceEndToEndTests.packageRoot
        let venv = try procs.capture(root + "/scripts/engine/venv.sh", [])
        let python = try #require(venv.out.split(separator: "\n").last.map(String.init), "engine venv: \(venv.err)")
        let mmproj = procs.work + "/tiny-mmproj.gguf"
        let made = try procs.capture(python, [root + "/scripts/engine/make_tiny_mmproj.py", mmproj])
        try #require(made.status == 0, "make_tiny_mmproj: \(made.err)")

        let hubInput = Pipe()  // the hub serves until its stdin closes
        try procs.start("/usr/bin/python3", [root + "/Tests/ModelStoreTests/peers/hub.py", bin.model, mmproj], log: "hub.log", input: hubInput)
        try procs.waitUntil(30, "the stand-in hub") { procs.read("hub.log").contains("PORT ") }
        let hubPort = try #require(procs.read("hub.log").split(separator: "\n").first { $0.hasPrefix("PORT ") }.flatMap { Int($0.dropFirst(5)) })
        var env = procs.environment
        env["HF_ENDPOINT"] = "http://127.0.0.1:\(hubPort)"
        let flags = ["--data-dir", procs.work + "/g", "--llama-server", bin.engine]
        func guest(_ args: [String]) throws -> String {
            let r = try procs.capture(bin.path("guest"), args + flags, environment: env)
            guard r.status == 0 else { throw Failure("guest \(args.joined(separator: " ")): \(r.err)\(r.out)") }
            return r.out
        }
        _ = try guest(["init", "--name", "eye"])
        #expect(try guest(["models", "pull", Self.repo]).contains("\(Self.repo):F32: ready"))
        _ = try guest(["models", "use", Self.repo + ":F32"])
        let status = try guest(["status"])
        #expect(status.contains("with images:   on-device") && status.contains("request carries an image and the on-device"), "\(status)")

        let port = try Processes.freePort()
        try procs.start(bin.path("guest"), ["serve", "--listen", "127.0.0.1:\(port)"] + flags, log: "serve.log", environment: env)
        try procs.waitUntil(60, "guest serve") { Processes.canConnect(port) }
        // Bodies with a real 32x32 PNG (the engine decodes it) and the same ask without it.
        let write = try procs.capture("/usr/bin/python3", ["-c", Self.bodies, procs.work])
        try #require(write.status == 0, "\(write.err)")
        func ask(_ path: String, _ body: String) throws -> (brain: String?, status: Int?, object: [String: Any]) {
            let r = try procs.capture("/usr/bin/curl", ["-s", "-D", procs.work + "/headers", "-H", "Content-Type: application/json",
                                                        "--data-binary", "@" + procs.work + "/" + body, "http://127.0.0.1:\(port)" + path])
            let head = procs.read("headers").lowercased()
            let brain = head.split(separator: "\r\n").first { $0.hasPrefix("x-homebase-brain: ") }.map { String($0.dropFirst(18)) }
            let status = head.split(separator: " ").dropFirst().first.flatMap { Int($0) }
            return (brain, status, (try? JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any]) ?? ["raw": r.out])
        }
        let why = { "serve: \(procs.read("serve.log").suffix(1500))" }
        let image = try ask("/v1/chat/completions", "image.json"), text = try ask("/v1/chat/completions", "text.json")
        #expect(image.status == 200 && image.brain == "on-device", "\(image.object) \(why())")
        let tokens = { (o: [String: Any]) in (o["usage"] as? [String: Any])?["prompt_tokens"] as? Int ?? 0 }
        #expect(tokens(image.object) > tokens(text.object), "the image's patches are prompt tokens: \(image.object) \(text.object)")
        let ollama = try ask("/api/chat", "ollama.json")
        #expect(ollama.status == 200 && ollama.brain == "on-device", "\(ollama.object) \(why())")
        #expect((ollama.object["prompt_eval_count"] as? Int ?? 0) > tokens(text.object), "\(ollama.object)")
        let ps = try procs.capture("/bin/ps", ["-eo", "args"]).out
        #expect(ps.split(separator: "\n").contains { $0.contains("llama-server") && $0.contains("--mmproj " + procs.work) }, "\(ps)")
        withExtendedLifetime(hubInput) {}
    }

    static let bodies = """
        import base64, json, struct, sys, zlib
        def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
        raw = b''.join(b'\\x00' + bytes([200, 50, 50] * 32) for _ in range(32))
        png = b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 32, 32, 8, 2, 0, 0, 0)) + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b'')
        b64 = base64.b64encode(png).decode()
        ask = {"type": "text", "text": "what is this?"}
        bodies = {
            "image.json": {"model": "default", "max_tokens": 4, "messages": [{"role": "user", "content": [ask,
                           {"type": "image_url", "image_url": {"url": "data:image/png;base64," + b64}}]}]},
            "text.json": {"model": "default", "max_tokens": 4, "messages": [{"role": "user", "content": [ask]}]},
            "ollama.json": {"model": "default", "stream": False, "options": {"num_predict": 4},
                            "messages": [{"role": "user", "content": "what is this?", "images": [b64]}]},
        }
        for name, body in bodies.items():
            json.dump(body, open(sys.argv[1] + "/" + name, "w"))
        """
}
