import Foundation
import Glibc
@testable import GuestAgent
import Testing

/// A data directory made with a default umask (0755) before the first run is tightened to 0700,
/// and the routing store (settings, joined Homebases, conversation replicas) is 0600.
@Suite struct DataDirectoryModeTests {
    @Test func anOpenDataDirectoryIsTightenedAndItsStoreIsPrivate() throws {
        let dir = try temporaryDirectory("guest-tests")
        chmod(dir, 0o755)
        let context = try GuestContext(GuestConfiguration(paths: GuestPaths(dataDirectory: dir), environment: [:]))
        _ = context
        #expect(fileMode(dir) == 0o700)
        #expect(fileMode(dir + "/routing.sqlite") == 0o600)
        #expect(fileMode(dir + "/routing.sqlite-wal") ?? 0o600 == 0o600)
    }
}
