import CommandLineKit
import GuestAgent

extension Invocation {
    /// `withLinkedContext` when `linked` (a model choice is mailed to the siblings), else
    /// `withContext` with no link.
    func withContext(linked: Bool, _ body: (GuestContext, GuestLink?) async throws -> Int32) async throws -> Int32 {
        if linked { return try await withLinkedContext(body) }
        return try await withContext { try await body($0, nil) }
    }
}
