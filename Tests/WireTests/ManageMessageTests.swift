import Testing
@testable import Wire

/// The manage messages (0x52-0x54) round-trip, and their bounds hold (SPEC "Managing the host's models").
@Suite struct ManageMessageTests {
    let rid = Bytes16.repeating(7)

    @Test func everyMessageRoundTrips() throws {
        let messages: [AppMessage] = [
            .manageRequest(.init(requestID: rid, action: .pull, model: "o/r/f.gguf", runtime: "http://127.0.0.1:1")),
            .manageRequest(.init(requestID: rid, action: .init(rawValue: 99))),
            .manageProgress(.init(requestID: rid, completed: 1 << 40, total: 0, status: "pulling manifest")),
            .manageResult(.init(requestID: rid, text: "done", runtimes: [
                .init(url: "http://x", kind: 2, abilities: 0xFF, models: [.init(name: "m", sizeBytes: 5, flags: 0xFF)]),
                .init(url: "", kind: 0, abilities: 0, models: []),
            ])),
            .error(.init(requestID: rid, code: .notOwner, message: "no")),
        ]
        for m in messages { #expect(try AppMessage.decode(try m.encode()) == m) }
        #expect(AppMessage.ErrorCode.notOwner.name == "not_owner")
    }

    @Test func boundsAreRefusedBothWays() throws {
        let long = String(repeating: "a", count: Limits.maxManageText + 1)
        #expect(throws: WireError.self) { try AppMessage.manageRequest(.init(requestID: rid, action: .pull, model: long)).encode() }
        let many = (0...Limits.maxManageRuntimes).map { _ in AppMessage.HostRuntime(url: "", kind: 0, abilities: 0, models: []) }
        #expect(throws: WireError.self) { try AppMessage.manageResult(.init(requestID: rid, text: "", runtimes: many)).encode() }
        // A request whose model length runs past the end.
        var bytes = try AppMessage.manageRequest(.init(requestID: rid, action: .list)).encode()
        bytes[19] = 5
        #expect(throws: WireError.truncated(field: "model")) { try AppMessage.decode(bytes) }
        bytes[18] = 0x10  // 4,096 bytes announced: above the limit, refused before reading them
        #expect(throws: WireError.tooLarge(field: "model", length: 4101, limit: Limits.maxManageText)) { try AppMessage.decode(bytes) }
    }
}
