// A device's Ed25519 public key is a Bytes32: one type from the frame to the signature check, so
// a key read off the wire needs no conversion. Bytes only here; Signing calls it `PublicKey` and
// adds the check (it needs libsodium).
import Basics

extension Bytes32: Codable {
    /// Nil unless exactly 32 bytes.
    public init?(bytes: some Collection<UInt8>) { self.init(bytes) }

    /// Nil unless exactly 64 hex digits.
    public init?(hex: String) {
        guard let raw = Basics.bytes(fromHex: hex) else { return nil }
        self.init(raw)
    }

    /// JSON: 64 lowercase hex digits.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let key = Bytes32(hex: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                debugDescription: "a public key is 64 hex digits"))
        }
        self = key
    }

    /// The first 16 hex digits and an ellipsis (`shortKey`): a key in a log or a status line.
    public var short: String { shortKey(bytes, hexDigits: 16) }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }
}
