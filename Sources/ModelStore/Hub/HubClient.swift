import Foundation

/// The hub's JSON API and file URLs (Hugging Face's shapes).
struct HubClient: Sendable {
    let config: HubConfig
    let http: HTTPClient

    init(config: HubConfig) {
        self.config = config
        http = HTTPClient(options: config.http)
    }

    /// `host[:port]` of the base URL: the only host that ever sees the token.
    var hubHost: String { URL(string: config.baseURL)?.hostAndPort ?? "" }

    func request(_ url: String, json: Bool) -> HTTPRequest {
        var r = HTTPRequest(url: url, token: config.token, tokenHost: hubHost, acceptCompressed: json)
        if json { r.headers.append((name: "Accept", value: "application/json")) }
        return r
    }

    /// Every GGUF repo of one organisation, following `Link: <...>; rel="next"`.
    func listModels(author: String) async throws -> [HubModel] {
        let query = [
            "author=\(escape(author))", "filter=gguf", "expand%5B%5D=gguf", "expand%5B%5D=pipeline_tag",
            "expand%5B%5D=siblings", "sort=downloads", "direction=-1", "limit=\(config.pageSize)",
        ].joined(separator: "&")
        var next: String? = "\(config.baseURL)/api/models?\(query)"
        var models: [HubModel] = []
        var pages = 0
        while let url = next, pages < config.maxPages {
            let response = try await getOK(url, json: true)
            models += try decode([HubModel].self, response)
            next = LinkHeader.next(response.headers["link"]).flatMap { URL(string: $0, relativeTo: URL(string: url))?.absoluteString }
            pages += 1
        }
        return models
    }

    /// The files of a repo at `main`, subfolders included (shards of big quants live in folders).
    func tree(repo: String) async throws -> [HubFile] {
        var next: String? = "\(config.baseURL)/api/models/\(repo)/tree/main?recursive=true"
        var files: [HubFile] = []
        var pages = 0
        while let url = next, pages < config.maxPages {
            let response = try await getOK(url, json: true)
            files += try decode([HubFile].self, response).filter { $0.type == "file" }
            next = LinkHeader.next(response.headers["link"]).flatMap { URL(string: $0, relativeTo: URL(string: url))?.absoluteString }
            pages += 1
        }
        return files
    }

    /// Where a file downloads from (the hub redirects LFS files to its CDN).
    func resolveURL(repo: String, file: String) -> String {
        let path = file.split(separator: "/").map { escape(String($0)) }.joined(separator: "/")
        return "\(config.baseURL)/\(repo)/resolve/main/\(path)"
    }

    private func getOK(_ url: String, json: Bool) async throws -> HTTPResponse {
        let response = try await http.get(request(url, json: json))
        guard response.status == 200 else {
            throw ModelStoreError.httpStatus(url: HTTPClient.display(URL(string: url)), status: response.status)
        }
        return response
    }

    private func decode<T: Decodable>(_ type: T.Type, _ response: HTTPResponse) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: response.body)
        } catch {
            throw ModelStoreError.badResponse(url: HTTPClient.display(URL(string: response.url)), detail: "\(error)")
        }
    }

    private func escape(_ s: String) -> String {
        s.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?&=#+"))) ?? s
    }
}
