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

/// Lowercase hex, and back.
public func hex(_ bytes: some Collection<UInt8>) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out = [UInt8]()
    out.reserveCapacity(bytes.count * 2)
    for b in bytes { out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 15)]) }
    return String(decoding: out, as: UTF8.self)
}

public func unhex(_ text: some StringProtocol) -> [UInt8]? {
    let u = Array(text.utf8)
    guard u.count % 2 == 0 else { return nil }
    func v(_ c: UInt8) -> UInt8? {
        switch c {
        case 48...57: c - 48
        case 97...102: c - 87
        case 65...70: c - 55
        default: nil
        }
    }
    var out = [UInt8]()
    out.reserveCapacity(u.count / 2)
    var i = 0
    while i < u.count {
        guard let hi = v(u[i]), let lo = v(u[i + 1]) else { return nil }
        out.append(hi << 4 | lo)
        i += 2
    }
    return out
}
