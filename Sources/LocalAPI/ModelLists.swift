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

    /// `{"models":[{"name","model","modified_at","size":0,"digest":"","details":{...}}]}`. Sizes and
    /// digests are not known for routed brains: zero and empty, as Ollama's own remote models say.
    static func ollama(_ models: [ListedModel]) -> [UInt8] {
        let now = OllamaAnswerEncoder.timestamp()
        return JSONReading.bytes(["models": models.map { m in
            var o: JSONObject = ["name": m.name, "model": m.name, "modified_at": now, "size": 0, "digest": "",
                                 "details": detailsObject(m.details)]
            if let b = m.brain { o["homebase_brain"] = b.rawValue }
            return o
        }])
    }

    /// Ollama's `details` object.
    static func detailsObject(_ d: ModelDetails?) -> JSONObject {
        let family = d?.family ?? ""
        return ["parent_model": "", "format": "gguf", "family": family, "families": family.isEmpty ? [String]() : [family],
                "parameter_size": d?.parameterSize ?? "", "quantization_level": d?.quantization ?? ""]
    }
}
