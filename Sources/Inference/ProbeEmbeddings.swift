extension ProbeModels {
    /// llama-server makes embeddings only when started with `--embeddings`, and its `/props`
    /// does not say so: one tiny `POST /v1/embeddings` does (200 with vectors; 501 otherwise).
    /// Any failure reads as "no": the model stays a chat model only.
    func llamaMakesEmbeddings() async -> Bool {
        guard let a = try? await http.call(config.apiRoot + "/embeddings", method: "POST",
                                           json: ["input": "probe"], step: .models) else { return false }
        return a.status == 200 && a.object?.objects("data")?.isEmpty == false
    }
}
