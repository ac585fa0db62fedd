import Foundation
@testable import ModelStore

struct LoadFailed: Error, CustomStringConvertible {
    let description: String
}

/// The guest's load check, as tests run it: start the REAL llama-server on the files, wait for
/// /health to answer 200, stop it. Throws when the server exits or never becomes healthy.
func llamaServerVerify(deadline: Duration = .seconds(120)) -> ModelStore.VerifyLoad {
    { candidate in
        guard FileManager.default.isExecutableFile(atPath: llamaServerPath) else {
            throw SetupError("llama-server missing at \(llamaServerPath): run scripts/engine/install.sh")
        }
        let port = refusedPort()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: llamaServerPath)
        process.arguments = ["--model", candidate.modelPath, "--host", "127.0.0.1", "--port", "\(port)", "--alias", "check"]
            + (candidate.projectorPath.map { ["--mmproj", $0] } ?? [])
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            // SIGKILL the binary itself: on SIGTERM llama-server shuts down gracefully and may
            // linger; a load check has nothing to save.
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        let http = HTTPClient(options: HTTPOptions(connectTimeout: .seconds(2)))
        let start = ContinuousClock.now
        while ContinuousClock.now - start < deadline {
            guard process.isRunning else { throw LoadFailed(description: "llama-server exited (\(process.terminationStatus))") }
            if let r = try? await http.get(HTTPRequest(url: "http://127.0.0.1:\(port)/health")), r.status == 200 { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw LoadFailed(description: "llama-server not healthy in time")
    }
}

/// A load check that waits for the test to open it, ignoring cancellation (a slow server start).
final class LoadGate: @unchecked Sendable {
    private let lock = NSLock()
    private var entered = false
    private var open = false
    var hasEntered: Bool { lock.withLock { entered } }
    func release() { lock.withLock { open = true } }
    var verify: ModelStore.VerifyLoad {
        { [self] _ in
            lock.withLock { entered = true }
            while !lock.withLock({ open }) { try? await Task.sleep(for: .milliseconds(5)) }
        }
    }
}
