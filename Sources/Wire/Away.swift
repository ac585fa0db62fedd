// away (0x02): a host going to sleep says so, beside the advert listing no models it sends then.
//
//   host key 32 | advert sequence u64 | since ms u64 | signature 64
//
// signedBytes = "homebase-away-v1" || 0x00 || the body above without the signature.
// It names the sequence of that empty advert: it holds while the receiver's newest advert from
// the host has that sequence, so the host's next advert (on resume) ends it without a message
// of its own. A receiver that does not know 0x02 skips it and sees the empty advert alone.
import RelayWire

extension AppMessage {
    /// "I am asleep", Ed25519-signed by the host key over `signedBytes()`.
    public struct Away: Equatable, Sendable, BodyCodable {
        public var hostKey: Bytes32
        /// The sequence of the advert listing no models sent with it.
        public var advertSequence: UInt64
        /// When the host said goodbye (its clock, Unix ms): for people ("asleep since 23:10").
        public var sinceMs: UInt64
        public var signature: Bytes64

        public init(hostKey: Bytes32, advertSequence: UInt64, sinceMs: UInt64, signature: Bytes64 = .zero) {
            self.hostKey = hostKey; self.advertSequence = advertSequence; self.sinceMs = sinceMs; self.signature = signature
        }

        static let domain = Array("homebase-away-v1".utf8)

        /// The exact bytes the host key signs: domain, 0x00, the body without the signature.
        public func signedBytes() -> [UInt8] {
            var w = ByteWriter(domain: Self.domain)
            writeUnsigned(to: &w)
            return w.bytes
        }

        private func writeUnsigned(to w: inout ByteWriter) {
            w.fixed(hostKey); w.u64(advertSequence); w.u64(sinceMs)
        }

        func write(to w: inout ByteWriter) throws(WireError) {
            writeUnsigned(to: &w)
            w.fixed(signature)
        }

        static func read(_ r: inout ByteReader) throws(WireError) -> Away {
            Away(hostKey: try r.fixed("host key"), advertSequence: try r.u64("advert sequence"), sinceMs: try r.u64("since ms"),
                 signature: try r.fixed("signature"))
        }
    }
}
