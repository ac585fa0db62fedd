// advert (0x01): a host's signed list of the models it serves.
//
//   host key 32 | sequence u64 | timestamp ms u64 | model count u16 | models | signature 64
//   model = tag str16 | family str16 | parameter size str16 | quantization str16
//           | context length u32 | capabilities u8 (bit 0 tools, 1 vision, 2 completion,
//             3 embedding; others reserved: preserved, since they are signed)
//
// signedBytes = "homebase-advert-v1" || 0x00 || the body above without the signature.
import RelayWire

extension AppMessage {
    /// What a model can do (capability bits of an advert).
    public struct Capabilities: OptionSet, Hashable, Sendable {
        public var rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let tools = Capabilities(rawValue: 1 << 0)
        public static let vision = Capabilities(rawValue: 1 << 1)
        public static let completion = Capabilities(rawValue: 1 << 2)
        /// Makes embeddings (an embedding-only model has this bit without `completion`: it is
        /// advertised for embeddings and never routed chat).
        public static let embedding = Capabilities(rawValue: 1 << 3)
    }

    /// One advertised model.
    public struct ModelInfo: Equatable, Sendable {
        /// The runtime's tag, e.g. "llama3.1:8b-instruct-q4_K_M": what requests name.
        public var tag: String
        public var family: String
        /// As the runtime reports it, e.g. "8.0B".
        public var parameterSize: String
        /// e.g. "Q4_K_M".
        public var quantization: String
        public var contextLength: UInt32
        public var capabilities: Capabilities
        public init(tag: String, family: String, parameterSize: String, quantization: String,
                    contextLength: UInt32, capabilities: Capabilities) {
            self.tag = tag; self.family = family; self.parameterSize = parameterSize
            self.quantization = quantization; self.contextLength = contextLength; self.capabilities = capabilities
        }
    }

    /// "Here are my models", Ed25519-signed by the host key over `signedBytes()`.
    public struct Advert: Equatable, Sendable, BodyCodable {
        public var hostKey: Bytes32
        /// Strictly increasing per host: a receiver keeps the highest and refuses older or equal.
        public var sequence: UInt64
        /// The host's clock (Unix ms). Freshness is NOT judged by it (see `Receive.heldMs`).
        public var timestampMs: UInt64
        public var models: [ModelInfo]
        public var signature: Bytes64
        public init(hostKey: Bytes32, sequence: UInt64, timestampMs: UInt64, models: [ModelInfo], signature: Bytes64 = .zero) {
            self.hostKey = hostKey; self.sequence = sequence; self.timestampMs = timestampMs
            self.models = models; self.signature = signature
        }

        static let domain = Array("homebase-advert-v1".utf8)

        /// The exact bytes the host key signs: domain, 0x00, the body without the signature.
        public func signedBytes() throws(WireError) -> [UInt8] {
            var w = ByteWriter(domain: Self.domain)
            try writeUnsigned(to: &w)
            return w.bytes
        }

        private func writeUnsigned(to w: inout ByteWriter) throws(WireError) {
            w.fixed(hostKey); w.u64(sequence); w.u64(timestampMs)
            try w.count(models.count, "models")
            for m in models {
                try w.string(2, m.tag, "model tag"); try w.string(2, m.family, "model family")
                try w.string(2, m.parameterSize, "parameter size"); try w.string(2, m.quantization, "quantization")
                w.u32(m.contextLength); w.u8(m.capabilities.rawValue)
            }
        }

        func write(to w: inout ByteWriter) throws(WireError) {
            try writeUnsigned(to: &w)
            w.fixed(signature)
        }

        static func read(_ r: inout ByteReader) throws(WireError) -> Advert {
            let key: Bytes32 = try r.fixed("host key")
            let sequence = try r.u64("sequence"), timestamp = try r.u64("timestamp")
            let n = try r.count(minItemSize: 13, "models")
            var models: [ModelInfo] = []
            models.reserveCapacity(n)
            for _ in 0..<n {
                models.append(ModelInfo(tag: try r.string(2, "model tag"), family: try r.string(2, "model family"),
                                        parameterSize: try r.string(2, "parameter size"),
                                        quantization: try r.string(2, "quantization"),
                                        contextLength: try r.u32("context length"),
                                        capabilities: Capabilities(rawValue: try r.u8("capabilities"))))
            }
            return Advert(hostKey: key, sequence: sequence, timestampMs: timestamp, models: models,
                          signature: try r.fixed("signature"))
        }
    }
}
