import Foundation

/// The model lists both APIs answer with.
enum ModelLists {
    /// `{"object":"list","data":[{"id","object":"model","created":0,"owned_by":"homebase"}]}`
    static func openAI(_ names: [String]) -> [UInt8] {
        JSONReading.bytes(["object": "list", "data": names.map { n in
            ["id": n, "object": "model", "created": 0, "owned_by": "homebase"] as JSONObject
        }])
    }

    /// `{"models":[{"name","model","modified_at","size":0,"digest":"","details":{...}}]}`. Sizes and
    /// digests are not known for routed brains: zero and empty, as Ollama's own remote models say.
    static func ollama(_ names: [String]) -> [UInt8] {
        let now = OllamaAnswerEncoder.timestamp()
        return JSONReading.bytes(["models": names.map { n in
            ["name": n, "model": n, "modified_at": now, "size": 0, "digest": "",
             "details": ["format": "", "family": "", "parameter_size": "", "quantization_level": ""] as JSONObject] as JSONObject
        }])
    }
}
