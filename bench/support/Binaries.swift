// Where the programs are: the release binaries next to the bench, the engine in its cache.
import Foundation
import TestSupport

/// TestSupport's `Binaries` (one copy with the end-to-end tests).
public typealias Binaries = TestSupport.Binaries

extension Binaries {
    /// `HOMEBASE_BIN_DIR` (default: the bench's own directory, `.build/release`) and
    /// `HOMEBASE_ENGINE_DIR` (default `~/.cache/homebase/engine`, made by `make engine`).
    public static func locate(needs programs: [String]) throws -> Binaries {
        try locate(needs: programs, hint: "build the release products first (the Makefile target does both)")
    }
}
