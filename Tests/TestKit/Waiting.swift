// The pure kit every test target shares: one setup error, the hang guard, a polling wait.
// A library target (not a test target: SwiftPM lets nothing depend on those) that only test
// targets and the benches depend on.
import Foundation

/// A fixture could not be set up (never a test's own verdict).
public struct SetupError: Error, CustomStringConvertible {
    public let description: String
    public init(_ d: String) { description = d }
}

/// Hang guard for waits on real sockets and processes: generous, never a speed assertion.
public let hangGuard: Duration = .seconds(30)

/// Waits until `condition` holds, polling every `interval`; throws (naming `what`) only when
/// `seconds` pass (default: the hang guard).
public func eventually(_ what: String, guard seconds: Int = 30, every interval: Duration = .milliseconds(5),
                       _ condition: () async throws -> Bool) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now + .seconds(seconds)
    while !(try await condition()) {
        guard clock.now < deadline else { throw SetupError("never happened: \(what)") }
        try await Task.sleep(for: interval)
    }
}

/// The checkout this file is in (Tests/TestKit/ is two levels down).
public let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
