import Basics
import Foundation
import Glibc
import Testing
@testable import Sealing
import Signing

func unhex(_ s: String) -> [UInt8] { bytes(fromHex: s)! }

func secretBytes(_ s: SecretBytes) -> [UInt8] { s.withUnsafeBytes { Array($0) } }

/// The repository root, found from this file's path.
func repositoryRoot() -> URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}

func temporaryDirectory() throws -> String {
    let path = NSTemporaryDirectory() + "homebase-sealing-" + hexString(secretBytes(.random(count: 8)))
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
    return path
}
