// Runs every file in protocol/vectors/ through the checker for its kind.
// An unknown kind, an unknown header key or a missing checker fails the run.
import Foundation
import Testing

/// A checker validates one vector file and throws on any mismatch.
typealias VectorChecker = @Sendable (VectorFile) throws -> Void

let allCheckers: [String: VectorChecker] = wireCheckers.merging(sealingCheckers) { a, _ in a }
    .merging(derivationCheckers) { a, _ in a }.merging(pairingCheckers) { a, _ in a }
    .merging(inferenceV2Checkers) { a, _ in a }

func vectorDirectory() -> URL {
    URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("protocol/vectors")
}

func loadVectors() throws -> [VectorFile] {
    let dir = vectorDirectory()
    let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".txt") }.sorted()
    return try names.map { name in
        let path = dir.appendingPathComponent(name).path
        return try VectorFile(path: name, text: String(contentsOfFile: path, encoding: .utf8))
    }
}

@Test func everyVectorPassesItsChecker() throws {
    let vectors = try loadVectors()
    for v in vectors {
        guard let check = allCheckers[v.kind] else {
            Issue.record("\(v.path): no checker for kind \(v.kind)")
            continue
        }
        do { try check(v) } catch { Issue.record("\(v.path): \(error)") }
    }
}

@Test func runnerRejectsUnknownHeaderKeys() throws {
    let v = try VectorFile(path: "inline", text: "kind: x\nexpect: success\ncomment: c\nbogus: 00\n\n00\n")
    #expect(throws: VectorFile.Bad.self) { try v.requireOnly(["key"]) }
    #expect(throws: VectorFile.Bad.self) { try VectorFile(path: "inline", text: "kind: x\nexpect: success\n\nzz\n") }
}
