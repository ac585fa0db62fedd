import Basics
import Foundation
import Wire
import Sealing

/// The guest's relay setting, `<data-dir>/relay.json` (written by `guest relay set`):
///
///     {"url": "wss://relay.example/v1/connect", "pin": "AB12…" (optional),
///      "homebase": "<the Homebase's device record, hex>" (optional),
///      "alternates": ["wss://node2.relay.example", …] (optional: the cluster's other nodes)}
///
/// `homebase` is the explicit record exchange's other half: the Homebase's record as
/// `homebase init` printed it. The guest needs it to open the first mail the Homebase sends
/// (the roster); once a roster signed by the account key is on file, the roster is the list.
/// Absent file: no relay, every Homebase route fails at once and answers on-device.
public struct RelayFile: Sendable {
    public let path: String
    /// Bound on the file read: a URL, a pin and one record are far smaller.
    public static let maxBytes = 64 << 10

    public init(path: String) { self.path = path }

    public struct Setting: Codable, Sendable, Equatable {
        public var url: String
        /// SHA-256 of the relay's certificate (64 hex digits) for a self-signed relay.
        public var pin: String?
        /// The Homebase's device record, hex.
        public var homebase: String?
        /// The account's proof for this device at this relay (`AppMessage.RelayProof`, hex),
        /// from the pairing; presented as `device-proof` to a relay admitting by account.
        public var proof: String?
        /// Other nodes of the relay's cluster, dialled in turn after `url` (docs/CLUSTER.md "Devices").
        public var alternates: [String]?

        public init(url: String, pin: String? = nil, homebase: String? = nil, proof: String? = nil,
                    alternates: [String]? = nil) {
            self.url = url; self.pin = pin; self.homebase = homebase; self.proof = proof; self.alternates = alternates
        }

        /// The stored relay proof, decoded; nil when absent or malformed.
        public var relayProof: AppMessage.RelayProof? {
            proof.flatMap(\.trimmedHexBytes).flatMap { try? AppMessage.RelayProof.decode($0) }
        }

        /// The Homebase's record, verified (its self-signature); nil when absent or invalid.
        public var homebaseRecord: DeviceRecord? {
            guard let hex = homebase, let bytes = hex.trimmedHexBytes else { return nil }
            return try? DeviceRecord(encoded: bytes)
        }
    }

    /// The setting on file; nil when there is none. A malformed file throws.
    public func read() throws(GuestError) -> Setting? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path), data.count <= Self.maxBytes,
              let setting = try? JSONDecoder().decode(Setting.self, from: data) else {
            throw .badFile(path: path, detail: "not {\"url\": ..., \"pin\": ..., \"homebase\": ...} (guest relay set URL)")
        }
        return setting
    }

    public func write(_ setting: Setting) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try encoder.encode(setting).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    public func remove() { try? FileManager.default.removeItem(atPath: path) }
}

extension String {
    /// The bytes of a line of hex as the guest's files hold it (white space around it ignored).
    var trimmedHexBytes: [UInt8]? { bytes(fromHex: trimmingCharacters(in: .whitespacesAndNewlines)) }
}
