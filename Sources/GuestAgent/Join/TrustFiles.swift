import Foundation
import Sealing
import Signing
import Wire

/// The roster this guest last accepted (`<data-dir>/roster.bin`, the encoded `roster`
/// message), and the Homebase's device key taken from it (`<data-dir>/homebase.key`, hex):
/// the key whose adverts count as "own" (`AccountAdverts`).
public struct RosterFile: Sendable {
    public let path: String

    public init(path: String) { self.path = path }

    /// The stored roster if it still verifies under `account`; nil otherwise.
    public func read(account: PublicKey) -> AppMessage.Roster? {
        guard let data = FileManager.default.contents(atPath: path),
              case .roster(let r)? = try? AppMessage.decode(Array(data)),
              r.isSigned(by: account) else { return nil }
        return r
    }

    public func write(_ roster: AppMessage.Roster) throws {
        try Data(try AppMessage.roster(roster).encode()).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}

extension AppMessage.Roster {
    /// True when it names `account` and that key signed exactly `signedBytes()`.
    public func isSigned(by account: PublicKey) -> Bool {
        guard accountKey.bytes == account.bytes, let bytes = try? signedBytes() else { return false }
        return account.isValidSignature(signature.bytes, for: bytes)
    }

    /// The listed records that verify (a record that does not is skipped, never trusted).
    public var records: [DeviceRecord] { deviceRecords.compactMap { try? DeviceRecord(encoded: $0) } }
}

/// The Homebase's device key (hex), the "account host key" of `OwnAdvertStore`.
public typealias HomebaseKeyFile = PublicKeyFile

extension GuestPaths {
    /// `relay.json`: the relay URL, its pin, the Homebase's record (`guest relay set`).
    public var relaySetting: String { dataDirectory + "/relay.json" }
    /// `roster.bin`: the last roster accepted from the account.
    public var roster: String { dataDirectory + "/roster.bin" }
    /// `homebase.key`: the Homebase's device key, whose adverts are "own".
    public var homebaseKey: String { dataDirectory + "/homebase.key" }
}
