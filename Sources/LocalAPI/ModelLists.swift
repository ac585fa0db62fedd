import Foundation
import Inference

/// One entry of the model lists: a name a client may send, and the brain that answers it
/// (nil when unknown). A string literal is a name alone.
public struct ListedModel: Sendable, Equatable, ExpressibleByStringLiteral {
    public var name: String
    public var brain: BrainKind?
    /// What `/api/show` says of it; nil: nothing is known beyond the name.
    public var details: ModelDetails?

    public init(name: String, brain: BrainKind? = nil, details: ModelDetails? = nil) {
        self.name = name; self.brain = brain; self.details = details
    }
    public init(stringLiteral name: String) { self.init(name: name) }
}

/// The model lists both APIs answer with. Both shapes allow extra fields: each entry carries
/// `homebase_brain` (`on-device`, `homebase`, `joined-homebase`, `local-endpoint`, ...) when known.
enum ModelLists {
    /// `{"object":"list","data":[{"id","object":"model","created":0,"owned_by":"homebase"}]}`
    static func openAI(_ models: [ListedModel]) -> [UInt8] {
        JSONReading.bytes(["object": "list", "data": models.map { m in
            var o: JSONObject = ["id": m.name, "object": "model", "created": 0, "owned_by": "homebase"]
            if let b = m.brain { o["homebase_brain"] = b.rawValue }
            return o
        }])
    }

    /// `{"models":[{"name","model","modified_at","size":0,"digest","details":{...}}]}`. Sizes are not
    /// known for routed brains: zero, as Ollama's own remote models say. The digest is `digest(of:)`.
    static func ollama(_ models: [ListedModel]) -> [UInt8] {
        let now = OllamaAnswer.timestamp()
        return JSONReading.bytes(["models": models.map { m in
            var o: JSONObject = ["name": m.name, "model": m.name, "modified_at": now, "size": 0, "digest": digest(of: m.name),
                                 "details": detailsObject(m.details)]
            if let b = m.brain { o["homebase_brain"] = b.rawValue }
            return o
        }])
    }

    /// 64 hex digits, stable and distinct per name: a digest of the name, not of weights (there
    /// are none here). Clients key models by digest (llm-ollama folds names of one digest into
    /// one model and caches capabilities by it), so an empty or shared one merges them all.
    /// FNV-1a 64 over the name, four times with different seeds.
    static func digest(of name: String) -> String {
        (0..<4).map { seed -> String in
            var h: UInt64 = 0xcbf2_9ce4_8422_2325 ^ UInt64(seed)
            for b in Array(name.utf8) + [UInt8(seed)] { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
            let hex = String(h, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }

    /// Ollama's `details` object.
    static func detailsObject(_ d: ModelDetails?) -> JSONObject {
        let family = d?.family ?? ""
        return ["parent_model": "", "format": "gguf", "family": family, "families": family.isEmpty ? [String]() : [family],
                "parameter_size": d?.parameterSize ?? "", "quantization_level": d?.quantization ?? ""]
    }
}
