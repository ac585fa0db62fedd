import Foundation
import Glibc
@testable import GuestAgent
@testable import OnDeviceEngine
@testable import ModelStore
import Testing

/// The model store's load check blames a model only when the engine itself runs.
@Suite struct LoadCheckTests {
    /// TEST FAKE engine: a shell script standing in for llama-server (`script` is its body).
    func fakeEngine(_ script: String) throws -> String {
        let path = try temporaryDirectory("guest-tests") + "/fake-llama-server"
        try Data("#!/bin/sh\n# TEST FAKE llama-server\n\(script)\n".utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o755)
        return path
    }

    func check(engine: String) async -> Error? {
        let supervisor = LlamaServerSupervisor(.init(locator: EngineLocator(configured: engine, environment: [:]),
                                                     healthDeadline: .seconds(30), stopGrace: .milliseconds(200)))
        let candidate = LoadCandidate(id: "owner/model:Q8_0", modelPath: "/nonexistent/model.gguf", projectorPath: nil)
        do {
            try await GuestContext.loadCheck(candidate, supervisor, engineCheck: EngineCheck(timeout: .seconds(30)))
            return nil
        } catch {
            return error
        }
    }

    @Test func aBrokenEngineFailsTheLoadWithoutCondemningTheModel() async throws {
        let engine = try fakeEngine("echo 'error while loading shared libraries: libllama.so' >&2\nexit 1")
        let error = await check(engine: engine)
        guard case .engineBroken(let path, let detail)? = error as? GuestError else {
            Issue.record("expected engineBroken, got \(String(describing: error))")
            return
        }
        #expect(path == engine)
        #expect(detail.contains("exit 1") && detail.contains("libllama.so"), "\(detail)")
        #expect((error as? GuestError)?.description.hasPrefix("the engine at \(engine) does not run:") == true)
    }

    @Test func anEngineThatRunsButExitsOnTheModelMarksItUnsupported() async throws {
        let engine = try fakeEngine("if [ \"$1\" = --version ]; then echo 'version: fake'; exit 0; fi\nexit 1")
        let error = await check(engine: engine)
        guard case .unsupported(let model, let detail)? = error as? ModelStoreError else {
            Issue.record("expected unsupported, got \(String(describing: error))")
            return
        }
        #expect(model == "owner/model:Q8_0" && detail.contains("exit 1"))
    }
}
