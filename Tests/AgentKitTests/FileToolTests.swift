import AgentKit
import Foundation
import Testing

/// A scratch tree:  base/allowed/{a.txt, sub/b.txt, big.txt, bin.dat, out@ -> ../secret.txt,
/// in@ -> a.txt, subout@ -> ..}, base/secret.txt, base/alias@ -> allowed.
final class Scratch {
    let base: String
    var allowed: String { base + "/allowed" }

    init() throws {
        let fm = FileManager.default
        let tmp = FileManager.default.temporaryDirectory.path
        base = (try fm.destinationOfSymbolicLinkOrNil(tmp) ?? tmp) + "/agentkit-\(UUID().uuidString)"
        try fm.createDirectory(atPath: base + "/allowed/sub", withIntermediateDirectories: true)
        try "alpha\n".write(toFile: base + "/allowed/a.txt", atomically: true, encoding: .utf8)
        try "beta".write(toFile: base + "/allowed/sub/b.txt", atomically: true, encoding: .utf8)
        try String(repeating: "x", count: 100).write(toFile: base + "/allowed/big.txt", atomically: true, encoding: .utf8)
        try Data([0x41, 0, 0x42]).write(to: URL(fileURLWithPath: base + "/allowed/bin.dat"))
        try "secret".write(toFile: base + "/secret.txt", atomically: true, encoding: .utf8)
        try fm.createSymbolicLink(atPath: base + "/allowed/out", withDestinationPath: "../secret.txt")
        try fm.createSymbolicLink(atPath: base + "/allowed/in", withDestinationPath: "a.txt")
        try fm.createSymbolicLink(atPath: base + "/allowed/subout", withDestinationPath: "..")
        try fm.createSymbolicLink(atPath: base + "/alias", withDestinationPath: "allowed")
    }

    deinit { try? FileManager.default.removeItem(atPath: base) }
}

extension FileManager {
    /// The real path of the temporary directory, should it be a symlink itself.
    func destinationOfSymbolicLinkOrNil(_ path: String) throws -> String? {
        URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    }
}

@Suite struct FileToolTests {
    private func read(_ path: String, root: String, maxBytes: Int = 64) async throws -> String {
        try await ReadFileTool(allowed: try AllowedDirectories([root]), maxBytes: maxBytes)
            .call(argumentsJSON: #"{"path": "\#(path)"}"#)
    }

    @Test func readsInsideTheAllowedDirectory() async throws {
        let s = try Scratch()
        #expect(try await read("a.txt", root: s.allowed) == "alpha\n")
        #expect(try await read("sub/b.txt", root: s.allowed) == "beta")
        #expect(try await read(s.allowed + "/sub/../a.txt", root: s.allowed) == "alpha\n")
        #expect(try await read("in", root: s.allowed) == "alpha\n")  // a symlink that stays inside
    }

    @Test(arguments: ["../secret.txt", "sub/../../secret.txt", "out", "subout/secret.txt", "/etc/hostname"])
    func refusesPathsThatResolveOutside(_ path: String) async throws {
        let s = try Scratch()
        await #expect(throws: AgentError.pathNotAllowed(path)) { try await read(path, root: s.allowed) }
    }

    @Test func refusesTheAbsolutePathOfAFileOutside() async throws {
        let s = try Scratch()
        await #expect(throws: AgentError.pathNotAllowed(s.base + "/secret.txt")) {
            try await read(s.base + "/secret.txt", root: s.allowed)
        }
    }

    @Test func aSymlinkedAllowedDirectoryIsResolved() async throws {
        let s = try Scratch()
        let allowed = try AllowedDirectories([s.base + "/alias"])
        #expect(allowed.roots == [s.allowed])
        #expect(try await read(s.base + "/alias/a.txt", root: s.base + "/alias") == "alpha\n")
        #expect(try await read(s.allowed + "/a.txt", root: s.base + "/alias") == "alpha\n")
        await #expect(throws: AgentError.pathNotAllowed("../secret.txt")) {
            try await read("../secret.txt", root: s.base + "/alias")
        }
    }

    @Test func capsTheBytesRead() async throws {
        let s = try Scratch()
        let text = try await read("big.txt", root: s.allowed, maxBytes: 10)
        #expect(text == String(repeating: "x", count: 10) + "\n[truncated: showing the first 10 of 100 bytes]")
    }

    @Test func refusesMissingBinaryAndNonFiles() async throws {
        let s = try Scratch()
        await #expect(throws: AgentError.notFound("nope.txt")) { try await read("nope.txt", root: s.allowed) }
        await #expect(throws: AgentError.pathNotAllowed("../nope.txt")) { try await read("../nope.txt", root: s.allowed) }
        await #expect(throws: AgentError.binaryFile("bin.dat")) { try await read("bin.dat", root: s.allowed) }
        await #expect(throws: AgentError.notARegularFile("sub")) { try await read("sub", root: s.allowed) }
    }

    @Test func refusesWithoutAllowedDirectoriesAndRejectsBadOnes() async throws {
        #expect(throws: AgentError.noAllowedDirectories) { try AllowedDirectories([]).resolve("/etc/hostname") }
        #expect(throws: AgentError.badAllowedDirectory("/no/such/dir")) { try AllowedDirectories(["/no/such/dir"]) }
        await #expect(throws: AgentError.invalidArguments(tool: "read_file", detail: "path is required")) {
            try await ReadFileTool(allowed: try AllowedDirectories(["/tmp"])).call(argumentsJSON: "{}")
        }
    }

    @Test func listsADirectoryAndRefusesOneOutside() async throws {
        let s = try Scratch()
        let tool = ListDirTool(allowed: try AllowedDirectories([s.allowed]))
        #expect(try await tool.call(argumentsJSON: "{}") == "a.txt\nbig.txt\nbin.dat\nin@\nout@\nsub/\nsubout@")
        #expect(try await tool.call(argumentsJSON: #"{"path": "sub"}"#) == "b.txt")
        await #expect(throws: AgentError.pathNotAllowed("subout")) { try await tool.call(argumentsJSON: #"{"path": "subout"}"#) }
        await #expect(throws: AgentError.notADirectory("a.txt")) { try await tool.call(argumentsJSON: #"{"path": "a.txt"}"#) }
        let capped = ListDirTool(allowed: try AllowedDirectories([s.allowed]), maxEntries: 2)
        #expect(try await capped.call(argumentsJSON: "{}") == "a.txt\nbig.txt\n[5 more entries not shown]")
    }
}
