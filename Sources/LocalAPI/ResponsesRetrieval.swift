import Foundation
import Transport

/// The stored responses read back, as OpenAI's API does (pure: tested without sockets):
///
///   GET    /v1/responses/{id}               the response object as it was completed
///   DELETE /v1/responses/{id}               {"id","object":"response","deleted":true}
///   GET    /v1/responses/{id}/input_items   {"object":"list","data":[items],"first_id","last_id","has_more"}
///                                           (`order` asc|desc, default desc; `limit` 1-100, default 20; `after`)
///
/// Only responses `ResponseMemory` keeps: one made with `store: false`, forgotten (the last
/// `storedResponses`), deleted or from before a restart is 404 in OpenAI's error shape.
enum ResponsesRetrieval {
    /// The answer to `method` on `target` (path and query), nil when the path is not one of these.
    static func answer(_ method: String, _ target: String, memory: ResponseMemory) -> (HTTPStatus, [UInt8])? {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = String(parts[0]), query = parts.count > 1 ? String(parts[1]) : ""
        let prefix = "/v1/responses/"
        guard path.hasPrefix(prefix) else { return nil }
        let rest = path.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
        guard let first = rest.first, !first.isEmpty, rest.count <= 2, rest.count == 1 || rest[1] == "input_items" else { return nil }
        let id = String(first).removingPercentEncoding ?? String(first)
        let items = rest.count == 2
        switch (method, items) {
        case ("GET", false):
            guard let kept = memory.kept(id) else { return notFound(id) }
            return (.ok, kept.response)
        case ("DELETE", false):
            guard memory.remove(id) else { return notFound(id) }
            return (.ok, JSONReading.bytes(["id": id, "object": "response", "deleted": true]))
        case ("GET", true):
            guard let kept = memory.kept(id) else { return notFound(id) }
            return list(kept.inputItems, query: query)
        default:
            return (.methodNotAllowed, OpenAIAnswerEncoder.errorBody("method not allowed", type: "invalid_request_error"))
        }
    }

    static func notFound(_ id: String) -> (HTTPStatus, [UInt8]) {
        let body = JSONReading.bytes(["error": ["message": "Response with id '\(id.prefix(80))' not found (guest serve keeps stored "
                                                + "responses in memory: not store: false ones, nor after a restart)",
                                                "type": "invalid_request_error", "param": NSNull(), "code": NSNull()] as JSONObject])
        return (.notFound, body)
    }

    /// A page of the kept items in OpenAI's list shape.
    static func list(_ json: [UInt8], query: String) -> (HTTPStatus, [UInt8]) {
        var all = (try? JSONSerialization.jsonObject(with: Data(json))) as? [JSONObject] ?? []
        var fields: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1)
            if kv.count == 2 { fields[String(kv[0])] = String(kv[1]).removingPercentEncoding }
        }
        if fields["order"] ?? "desc" == "desc" { all.reverse() }
        if let after = fields["after"], let at = all.firstIndex(where: { $0["id"] as? String == after }) {
            all = Array(all[(at + 1)...])
        }
        let limit = min(max(Int(fields["limit"] ?? "") ?? 20, 1), 100)
        let page = Array(all.prefix(limit))
        return (.ok, JSONReading.bytes(["object": "list", "data": page, "has_more": all.count > page.count,
                                        "first_id": page.first?["id"] ?? NSNull(), "last_id": page.last?["id"] ?? NSNull()]))
    }

    /// A request's `input` as items: a string is one user message; messages get an `id` and
    /// their string content as parts (`input_text`, or `output_text` for the assistant's), as
    /// OpenAI lists them; other items as sent, with an `id` when they have none.
    static func items(_ input: Any?) -> [JSONObject] {
        let raw: [JSONObject] = switch input {
        case let s as String: [["type": "message", "role": "user", "content": s]]
        case let list as [JSONObject]: list
        default: []
        }
        return raw.enumerated().map { n, item in
            var o = item
            let type = o["type"] as? String ?? "message"
            o["type"] = type
            if o["id"] == nil { o["id"] = "\(type == "message" ? "msg" : "item")_in\(n)_" + String(UInt32.random(in: 0...UInt32.max), radix: 36) }
            if type == "message" {
                if let text = o["content"] as? String {
                    let part = (o["role"] as? String) == "assistant" ? "output_text" : "input_text"
                    o["content"] = [["type": part, "text": text] as JSONObject]
                }
                if o["status"] == nil { o["status"] = "completed" }
            }
            return o
        }
    }
}
