import Foundation
import Synchronization
@testable import ModelStore

/// The built `guest` executable with throwaway config, data and a hub (`HF_ENDPOINT`).
struct GuestRun {
    static let binary = packageRoot.appendingPathComponent(".build/debug/guest").path

    let dataDir: String
    let environment: [String: String]

    init(dir: TempDir, hubURL: String) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary) else {
            throw SetupError("\(Self.binary) missing: swift build --build-tests first")
        }
        guard FileManager.default.isExecutableFile(atPath: llamaServerPath) else {
            throw SetupError("llama-server missing at \(llamaServerPath): make engine")
        }
        dataDir = dir.path + "/guest"
        var env = ProcessInfo.processInfo.environment
        env["XDG_CONFIG_HOME"] = dir.path + "/config"
        env["XDG_DATA_HOME"] = dir.path + "/xdg"
        env["HF_ENDPOINT"] = hubURL
        env["HF_TOKEN"] = nil
        environment = env
    }

    /// `guest ARGS --data-dir D`; returns status, stdout, stderr.
    func run(_ args: [String]) throws -> (status: Int32, out: String, err: String) {
        let p = process(args)
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        try p.run()
        // Read stderr beside stdout: a full pipe would block the child.
        let errData = Mutex(Data())
        let done = DispatchSemaphore(value: 0)
        Thread {
            errData.withLock { $0 = err.fileHandleForReading.readDataToEndOfFile() }
            done.signal()
        }.start()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        done.wait()
        return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: errData.withLock { $0 }, as: UTF8.self))
    }

    func process(_ args: [String]) -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Self.binary)
        p.arguments = args + ["--data-dir", dataDir]
        p.environment = environment
        return p
    }
}

/// An interactive `guest chat`: lines in on stdin, output read as it arrives.
final class InteractiveGuest: @unchecked Sendable {  // `output` is behind its mutex
    let process: Process
    private let input = Pipe()
    private let output = Mutex("")

    init(_ guest: GuestRun, _ args: [String]) throws {
        process = guest.process(args)
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        process.standardInput = input
        try process.run()
        let handle = out.fileHandleForReading
        Thread { [self] in
            while case let data = handle.availableData, !data.isEmpty {
                output.withLock { $0 += String(decoding: data, as: UTF8.self) }
            }
        }.start()
    }

    var text: String { output.withLock { $0 } }

    func send(_ line: String) { input.fileHandleForWriting.write(Data((line + "\n").utf8)) }

    /// Waits until the output contains `marker` (generous bound: only "it arrived at all").
    func wait(for marker: String, within limit: Duration = .seconds(180)) async throws {
        let start = ContinuousClock.now
        while !text.contains(marker) {
            guard process.isRunning, ContinuousClock.now - start < limit else {
                throw SetupError("no \"\(marker)\" in the output: \(text)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Closes stdin (the chat ends) and waits for the exit.
    func finish() -> Int32 {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// The `--port` of the llama-server this guest started (its direct child), from /proc.
    func enginePort() -> UInt16? {
        let parent = process.processIdentifier
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.compactMap { Int32($0) } ?? []
        for pid in pids {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 1, Int32(fields[1]) == parent,
                  let raw = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { continue }
            let argv = raw.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            guard argv.first?.hasSuffix("llama-server") == true, let i = argv.firstIndex(of: "--port"), i + 1 < argv.count
            else { continue }
            return UInt16(argv[i + 1])
        }
        return nil
    }
}
