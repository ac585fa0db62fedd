import Foundation

/// The answers of the probes clients send at start-up (`/api/show`, `/api/ps`,
/// `/v1/models/{id}`), built from the model list alone: nothing here asks a brain or the
/// relay, so they answer at once, also while the Homebase is gone.
enum OllamaProbes {
    /// `POST /api/show {"model"}` (or the older `"name"`):
    ///   {"modelfile":"","parameters":"","template":"","details":{...},
    ///    "model_info":{"general.architecture","<family>.context_length"},"capabilities":[...],
    ///    "modified_at","homebase_brain"}
    /// nil when `name` is not listed (the server answers 404 as Ollama does).
    static func show(_ body: [UInt8], models: [ListedModel]) throws(LocalAPIError) -> [UInt8]? {
        let o = try JSONReading.object(body)
        guard let name = (o["model"] as? String) ?? (o["name"] as? String), !name.isEmpty else {
            throw .badRequest("model: Field required")
        }
        guard let m = find(name, in: models) else { return nil }
        let d = m.details ?? ModelDetails()
        var info: JSONObject = [:]
        let arch = d.family.isEmpty ? "unknown" : d.family
        info["general.architecture"] = arch
        info["general.basename"] = m.name
        if let ctx = d.contextLength { info["\(arch).context_length"] = ctx }
        var out: JSONObject = ["modelfile": "", "parameters": "", "template": "", "license": "",
                               "details": ModelLists.detailsObject(m.details), "model_info": info,
                               "capabilities": d.capabilities, "modified_at": OllamaAnswer.timestamp()]
        if let b = m.brain { out["homebase_brain"] = b.rawValue }
        return JSONReading.bytes(out)
    }

    /// `GET /api/ps`: the models a brain answers with now. Nothing is loaded here in Ollama's
    /// sense (the brains keep their own), so sizes are 0 and `expires_at` is a day ahead.
    static func ps(_ models: [ListedModel]) -> [UInt8] {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let expires = f.string(from: Date().addingTimeInterval(86_400))
        return JSONReading.bytes(["models": models.map { m in
            var o: JSONObject = ["name": m.name, "model": m.name, "size": 0, "digest": ModelLists.digest(of: m.name), "size_vram": 0,
                                 "details": ModelLists.detailsObject(m.details), "expires_at": expires]
            if let ctx = m.details?.contextLength { o["context_length"] = ctx }
            if let b = m.brain { o["homebase_brain"] = b.rawValue }
            return o
        }])
    }

    /// `GET /v1/models/{id}`; nil when not listed.
    static func openAIModel(_ id: String, models: [ListedModel]) -> [UInt8]? {
        guard let m = find(id, in: models) else { return nil }
        var o: JSONObject = ["id": m.name, "object": "model", "created": 0, "owned_by": "homebase"]
        if let b = m.brain { o["homebase_brain"] = b.rawValue }
        return JSONReading.bytes(o)
    }

    /// By exact name, or Ollama's implied `:latest`.
    static func find(_ name: String, in models: [ListedModel]) -> ListedModel? {
        models.first { $0.name == name }
            ?? models.first { $0.name + ":latest" == name || $0.name == name + ":latest" }
    }
}
