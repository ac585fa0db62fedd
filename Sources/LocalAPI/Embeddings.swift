import Foundation
import Inference

/// One embeddings request as `guest serve` hands it to the guest: the model named and the
/// texts, in order.
public struct EmbeddingRequest: Sendable, Equatable {
    public var model: String
    public var inputs: [String]
    public init(model: String, inputs: [String]) { self.model = model; self.inputs = inputs }
}

/// The vectors of one request (one per input, in order), from the brain that made them.
public struct EmbeddingAnswer: Sendable, Equatable {
    public var model: String
    public var vectors: [[Double]]
    public var promptTokens: Int
    public var brain: BrainKind
    public init(model: String, vectors: [[Double]], promptTokens: Int, brain: BrainKind) {
        self.model = model; self.vectors = vectors; self.promptTokens = promptTokens; self.brain = brain
    }
}

/// Why no vectors came. Never a silent switch to another model: vectors of another model are
/// useless to the client, so "always an answer" here means always a clear one.
public enum EmbeddingFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The route cannot make embeddings of this model (answered 501).
    case unavailable(String)
    /// No brain here makes vectors of the model named (answered 404, naming what is available).
    case unknownModel(String)
    /// The engine that makes them failed (answered 502).
    case failed(String)

    public var description: String {
        switch self {
        case .unavailable(let m), .unknownModel(let m), .failed(let m): m
        }
    }
}

/// Makes the vectors of a request, or says why not.
public typealias EmbeddingRouter = @Sendable (EmbeddingRequest) async -> Result<EmbeddingAnswer, EmbeddingFailure>

/// `POST /v1/embeddings` {"model", "input": "..." | ["...", ...], "encoding_format": "float"|"base64"},
/// `POST /api/embed` {"model", "input": "..." | [...]} and the older `POST /api/embeddings`
/// {"model", "prompt"}. Token arrays and `dimensions` are refused: the engine embeds text at its
/// model's own size.
enum EmbeddingsReader {
    /// At most this many inputs per request (OpenAI's own limit).
    static let maxInputs = 2048

    static func read(_ body: [UInt8], field: String = "input") throws(LocalAPIError) -> (request: EmbeddingRequest, base64: Bool) {
        let o = try JSONReading.object(body)
        guard let model = o["model"] as? String, !model.isEmpty else { throw .badRequest("model is required") }
        if let d = o["dimensions"], !(d is NSNull) { throw .badRequest("dimensions: the vectors have the model's own size here") }
        let inputs: [String]
        switch o[field] {
        case let s as String: inputs = [s]
        case let l as [String] where !l.isEmpty: inputs = l
        case nil: throw .badRequest("\(field) is required")
        default: throw .badRequest("\(field): a string or a non-empty list of strings (token arrays are not accepted)")
        }
        guard inputs.count <= maxInputs else { throw .badRequest("\(field): at most \(maxInputs) inputs per request") }
        let format = o["encoding_format"] as? String ?? "float"
        guard format == "float" || format == "base64" else { throw .badRequest("encoding_format: float or base64") }
        return (EmbeddingRequest(model: model, inputs: inputs), format == "base64")
    }
}

/// The three answer shapes.
enum EmbeddingsWriter {
    /// `{"object":"list","data":[{"object":"embedding","index","embedding"}],"model","usage","homebase"}`;
    /// base64: little-endian float32s, as OpenAI sends them.
    static func openAI(_ a: EmbeddingAnswer, base64: Bool, homebase: [String: String]) -> [UInt8] {
        JSONReading.bytes(["object": "list", "model": a.model, "homebase": homebase,
                           "usage": ["prompt_tokens": a.promptTokens, "total_tokens": a.promptTokens] as JSONObject,
                           "data": a.vectors.enumerated().map { i, v -> JSONObject in
                               ["object": "embedding", "index": i, "embedding": base64 ? packed(v) as Any : v as Any]
                           }])
    }

    /// `/api/embed`: `{"model","embeddings":[[...]],"prompt_eval_count","homebase"}`.
    static func ollama(_ a: EmbeddingAnswer, homebase: [String: String]) -> [UInt8] {
        JSONReading.bytes(["model": a.model, "embeddings": a.vectors, "prompt_eval_count": a.promptTokens,
                           "total_duration": 0, "load_duration": 0, "homebase": homebase])
    }

    /// `/api/embeddings` (the old one): `{"embedding":[...]}`.
    static func ollamaLegacy(_ a: EmbeddingAnswer) -> [UInt8] {
        JSONReading.bytes(["embedding": a.vectors.first ?? []])
    }

    static func packed(_ v: [Double]) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(v.count * 4)
        for x in v { withUnsafeBytes(of: Float(x).bitPattern.littleEndian) { bytes += $0 } }
        return Data(bytes).base64EncodedString()
    }
}
