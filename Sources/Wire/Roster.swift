// roster (0x35): an account's signed list of its devices.
//
//   account key 32 | version u64 | record count u16 | device records bytes32 (opaque) | signature 64
//
// signedBytes = "homebase-roster-v1" || 0x00 || the body above without the signature.
import RelayWire

extension AppMessage {
    /// The devices of an account, Ed25519-signed by the account key over `signedBytes()`.
    public struct Roster: Equatable, Sendable, BodyCodable {
        public var accountKey: Bytes32
        /// Strictly increasing: a receiver refuses a roster older than or equal to the one it holds.
        public var version: UInt64
        /// Signed device records, opaque to Wire.
        public var deviceRecords: [[UInt8]]
        public var signature: Bytes64
        public init(accountKey: Bytes32, version: UInt64, deviceRecords: [[UInt8]], signature: Bytes64 = .zero) {
            self.accountKey = accountKey; self.version = version
            self.deviceRecords = deviceRecords; self.signature = signature
        }

        static let domain = Array("homebase-roster-v1".utf8)

        /// The exact bytes the account key signs: domain, 0x00, the body without the signature.
        public func signedBytes() throws(WireError) -> [UInt8] {
            var w = ByteWriter(domain: Self.domain)
            try writeUnsigned(to: &w)
            return w.bytes
        }

        private func writeUnsigned(to w: inout ByteWriter) throws(WireError) {
            w.fixed(accountKey); w.u64(version)
            try w.count(deviceRecords.count, "device records")
            for d in deviceRecords { try w.prefixed(4, d, limit: .max, "device record") }
        }

        func write(to w: inout ByteWriter) throws(WireError) {
            try writeUnsigned(to: &w)
            w.fixed(signature)
        }

        static func read(_ r: inout ByteReader) throws(WireError) -> Roster {
            let key: Bytes32 = try r.fixed("account key")
            let version = try r.u64("version")
            let n = try r.count(minItemSize: 4, "device records")
            var records: [[UInt8]] = []
            records.reserveCapacity(n)
            for _ in 0..<n { records.append(try r.prefixed(4, limit: .max, "device record")) }
            return Roster(accountKey: key, version: version, deviceRecords: records, signature: try r.fixed("signature"))
        }
    }
}
