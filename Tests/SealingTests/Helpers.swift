import Basics
import Foundation
import Glibc
import Testing
@testable import Sealing
import Signing

func unhex(_ s: String) -> [UInt8] { bytes(fromHex: s)! }

func secretBytes(_ s: SecretBytes) -> [UInt8] { s.withUnsafeBytes { Array($0) } }
