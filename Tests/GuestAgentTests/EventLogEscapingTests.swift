import Foundation
import Testing
@testable import GuestAgent

/// guest.log lines carry device names from other devices: a newline or an escape sequence in
/// one is written escaped, never raw (issue 15, hole 11).
@Test func guestLogLinesEscapeControlCharacters() throws {
    let dir = try TempDir("eventlog")
    defer { dir.cleanup() }
    let log = EventLog(path: dir.path("guest.log"))
    log.write("paired evil\nfallback: forged\u{1b}[2J 0011…")
    let text = try String(contentsOfFile: log.path, encoding: .utf8)
    #expect(text.split(separator: "\n").count == 1 && !text.contains("\u{1b}"), "\(text.debugDescription)")
    #expect(text.contains("paired evil\\u{a}fallback: forged\\u{1b}[2J 0011…"), "\(text.debugDescription)")
}
