// Embedding messages: a guest asks a host for the vectors of texts from one named model; the
// host answers `embed-result`, or the inference `error` (0x14) with its codes. Either may be
// larger than one frame and then travels as `part`s, like a request.
//
// embed-request (0x50): request id 16 | model tag str16 | input count u16 (1...maxEmbedInputs)
//                       | inputs: str32 each (at most maxEmbedInputBytes UTF-8 bytes, may be empty)
// embed-result  (0x51): request id 16 | model tag str16 | prompt tokens u32 | vector count u16
//                       | dimensions u32 (1...maxEmbedDimensions) | vectors: count × dimensions
//                       IEEE-754 binary32 big-endian, vector by vector, in input order; every
//                       value finite; count × dimensions × 4 <= maxEmbedResultBytes
//
// The whole encoded request is bound by `Limits.maxRequestBytes` (what a reassembler holds).
import RelayWire

extension Limits {
    /// Most texts in one `embed-request` (OpenAI's own limit per request).
    public static let maxEmbedInputs = 2048
    /// Largest text of one input: 256 KiB (about 64k tokens; embedding models take 512 to 32k).
    public static let maxEmbedInputBytes = 256 << 10
    /// Largest vector: 65,536 values (models make 384 to 4,096).
    public static let maxEmbedDimensions = 65_536
    /// The vectors of one `embed-result`: the request bound (16 MiB, 4 M floats).
    public static let maxEmbedResultBytes = maxRequestBytes
}

extension AppMessage {
    /// The vectors of `inputs` from `model`.
    public struct EmbedRequest: Equatable, Sendable, BodyCodable {
        public var requestID: Bytes16
        public var model: String
        public var inputs: [String]
        public init(requestID: Bytes16, model: String, inputs: [String]) {
            self.requestID = requestID; self.model = model; self.inputs = inputs
        }

        func write(to w: inout ByteWriter) throws(WireError) {
            try Self.checkCount(inputs.count)
            w.fixed(requestID); try w.string(2, model, "model")
            w.u16(UInt16(inputs.count))
            for s in inputs { try w.string(4, s, limit: Limits.maxEmbedInputBytes, "embedding input") }
            guard w.bytes.count < Limits.maxRequestBytes else {
                throw .tooLarge(field: "embed-request", length: w.bytes.count + 1, limit: Limits.maxRequestBytes)
            }
        }

        static func read(_ r: inout ByteReader) throws(WireError) -> EmbedRequest {
            let id: Bytes16 = try r.fixed("request id")
            let model = try r.string(2, "model")
            let n = try r.count(minItemSize: 4, "embedding inputs")
            try checkCount(n)
            var inputs: [String] = []
            inputs.reserveCapacity(n)
            for _ in 0..<n { inputs.append(try r.string(4, limit: Limits.maxEmbedInputBytes, "embedding input")) }
            return EmbedRequest(requestID: id, model: model, inputs: inputs)
        }

        static func checkCount(_ n: Int) throws(WireError) {
            guard n >= 1 else { throw .invalidValue(field: "embedding input count", value: n) }
            guard n <= Limits.maxEmbedInputs else {
                throw .tooLarge(field: "embedding inputs", length: n, limit: Limits.maxEmbedInputs)
            }
        }
    }

    /// The vectors of an `embed-request`, one per input, in order, all of one size.
    public struct EmbedResult: Equatable, Sendable, BodyCodable {
        public var requestID: Bytes16
        /// The model that made them, as the host names it (the one asked for).
        public var model: String
        public var promptTokens: UInt32
        public var vectors: [[Float]]
        public init(requestID: Bytes16, model: String, promptTokens: UInt32, vectors: [[Float]]) {
            self.requestID = requestID; self.model = model; self.promptTokens = promptTokens; self.vectors = vectors
        }

        func write(to w: inout ByteWriter) throws(WireError) {
            let dimensions = vectors.first?.count ?? 0
            try Self.checkShape(count: vectors.count, dimensions: dimensions)
            w.fixed(requestID); try w.string(2, model, "model"); w.u32(promptTokens)
            w.u16(UInt16(vectors.count)); w.u32(UInt32(dimensions))
            for v in vectors {
                guard v.count == dimensions else {
                    throw .invalidValue(field: "embedding vector length (all vectors have one size)", value: v.count)
                }
                for x in v {
                    guard x.isFinite else { throw .invalidValue(field: "embedding value (not finite)", value: 0) }
                    w.u32(x.bitPattern)
                }
            }
        }

        static func read(_ r: inout ByteReader) throws(WireError) -> EmbedResult {
            let id: Bytes16 = try r.fixed("request id")
            let model = try r.string(2, "model")
            let tokens = try r.u32("prompt tokens")
            let count = Int(try r.u16("vector count")), dimensions = Int(try r.u32("dimensions"))
            try checkShape(count: count, dimensions: dimensions)
            // Exact: the floats fill the rest of the body (checked before allocating).
            let want = count * dimensions * 4
            guard r.remaining >= want else { throw .truncated(field: "embedding vectors") }
            guard r.remaining == want else { throw .trailingBytes(count: r.remaining - want) }
            var vectors: [[Float]] = []
            vectors.reserveCapacity(count)
            for _ in 0..<count {
                var v: [Float] = []
                v.reserveCapacity(dimensions)
                for _ in 0..<dimensions {
                    let x = Float(bitPattern: try r.u32("embedding value"))
                    guard x.isFinite else { throw .invalidValue(field: "embedding value (not finite)", value: 0) }
                    v.append(x)
                }
                vectors.append(v)
            }
            return EmbedResult(requestID: id, model: model, promptTokens: tokens, vectors: vectors)
        }

        static func checkShape(count: Int, dimensions: Int) throws(WireError) {
            guard count >= 1 else { throw .invalidValue(field: "embedding vector count", value: count) }
            guard count <= Limits.maxEmbedInputs else {
                throw .tooLarge(field: "embedding vectors", length: count, limit: Limits.maxEmbedInputs)
            }
            guard dimensions >= 1 else { throw .invalidValue(field: "embedding dimensions", value: dimensions) }
            guard dimensions <= Limits.maxEmbedDimensions else {
                throw .tooLarge(field: "embedding dimensions", length: dimensions, limit: Limits.maxEmbedDimensions)
            }
            guard count * dimensions * 4 <= Limits.maxEmbedResultBytes else {
                throw .tooLarge(field: "embedding vectors (bytes)", length: count * dimensions * 4, limit: Limits.maxEmbedResultBytes)
            }
        }
    }
}
