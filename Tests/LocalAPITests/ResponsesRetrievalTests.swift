import Foundation
import Inference
import Testing
@testable import LocalAPI

/// `GET|DELETE /v1/responses/{id}` and `.../input_items` from the kept responses, without sockets
/// (ServeDoorsEndToEndTests drives them with the official openai client).
@Suite struct ResponsesRetrievalTests {
    /// A whole response made through the encoder, as the server makes it; its id.
    static func made(_ body: String, _ memory: ResponseMemory) throws -> (id: String, whole: [UInt8]) {
        let r = try ResponsesReader.read(Array(body.utf8))
        var enc = ResponsesEncoder(request: r, conversation: r.input, memory: memory, homebase: ["brain": "homebase"])
        enc.collect(.text("Hello there"))
        let bytes = enc.whole(finishReason: "stop", usage: Usage(promptTokens: 3, completionTokens: 2))
        return (try #require(object(bytes)["id"] as? String), bytes)
    }

    /// JSON with sorted keys (a dictionary's order is not stable from one write to the next).
    static func canonical(_ bytes: [UInt8]) -> String {
        guard let o = try? JSONSerialization.jsonObject(with: Data(bytes)),
              let d = try? JSONSerialization.data(withJSONObject: o, options: [.sortedKeys]) else { return "" }
        return String(decoding: d, as: UTF8.self)
    }

    @Test func aStoredResponseIsRetrievedAsCompletedThenDeleted() throws {
        let memory = ResponseMemory()
        let (id, whole) = try Self.made(#"{"model":"m","input":"Hi","instructions":"Be brief."}"#, memory)
        let (status, body) = try #require(ResponsesRetrieval.answer("GET", "/v1/responses/\(id)", memory: memory))
        #expect(status.code == 200)
        let got = object(body)
        #expect(got["id"] as? String == id && got["status"] as? String == "completed" && got["object"] as? String == "response")
        #expect(Self.canonical(body) == Self.canonical(whole), "the retrieved object is the one answered")
        #expect((got["homebase"] as? [String: String])?["brain"] == "homebase")

        let (deleted, answer) = try #require(ResponsesRetrieval.answer("DELETE", "/v1/responses/\(id)", memory: memory))
        #expect(deleted.code == 200 && object(answer)["deleted"] as? Bool == true)
        let (gone, error) = try #require(ResponsesRetrieval.answer("GET", "/v1/responses/\(id)", memory: memory))
        #expect(gone.code == 404)
        let e = try #require(object(error)["error"] as? [String: Any])
        #expect(e["type"] as? String == "invalid_request_error" && (e["message"] as? String)?.contains(id) == true)
        #expect(ResponsesRetrieval.answer("DELETE", "/v1/responses/\(id)", memory: memory)?.0.code == 404)
        #expect(memory.conversation(id) == nil, "a deleted response is no previous_response_id either")
    }

    @Test func storeFalseIsNotFound() throws {
        let memory = ResponseMemory()
        let (id, _) = try Self.made(#"{"model":"m","input":"Hi","store":false}"#, memory)
        #expect(ResponsesRetrieval.answer("GET", "/v1/responses/\(id)", memory: memory)?.0.code == 404)
        #expect(ResponsesRetrieval.answer("GET", "/v1/responses/\(id)/input_items", memory: memory)?.0.code == 404)
    }

    @Test func inputItemsAreListedNewestFirstByDefaultWithIDs() throws {
        let memory = ResponseMemory()
        let body = #"{"model":"m","input":[{"role":"developer","content":"rules"},"#
            + #"{"type":"message","role":"user","content":[{"type":"input_text","text":"look"}]},"#
            + #"{"type":"function_call_output","call_id":"c1","output":"one"}]}"#
        let (id, _) = try Self.made(body, memory)
        let desc = object(try #require(ResponsesRetrieval.answer("GET", "/v1/responses/\(id)/input_items", memory: memory)).1)
        let data = try #require(desc["data"] as? [[String: Any]])
        #expect(data.map { $0["type"] as? String } == ["function_call_output", "message", "message"])
        #expect(data.allSatisfy { ($0["id"] as? String)?.isEmpty == false })
        #expect(((data[2]["content"] as? [[String: Any]])?.first?["text"] as? String) == "rules")
        #expect(desc["object"] as? String == "list" && desc["has_more"] as? Bool == false)
        #expect(desc["first_id"] as? String == data[0]["id"] as? String)

        let asc = object(try #require(ResponsesRetrieval.answer("GET", "/v1/responses/\(id)/input_items?order=asc&limit=1",
                                                                memory: memory)).1)
        let first = try #require(asc["data"] as? [[String: Any]])
        #expect(first.count == 1 && first[0]["role"] as? String == "developer" && asc["has_more"] as? Bool == true)
        let text = object(try #require(ResponsesRetrieval.answer("GET", "/v1/responses/" + (try Self.made(#"{"model":"m","input":"Hi"}"#, memory).id)
                                                                 + "/input_items", memory: memory)).1)
        let one = try #require(text["data"] as? [[String: Any]])
        #expect(one.count == 1 && one[0]["role"] as? String == "user")
        #expect(((one[0]["content"] as? [[String: Any]])?.first?["type"] as? String) == "input_text")
    }

    @Test func otherPathsAndMethods() {
        let memory = ResponseMemory()
        #expect(ResponsesRetrieval.answer("GET", "/v1/responses/x/other", memory: memory) == nil)
        #expect(ResponsesRetrieval.answer("GET", "/v1/responses/", memory: memory) == nil)
        #expect(ResponsesRetrieval.answer("POST", "/v1/responses/x", memory: memory)?.0.code == 405)
        #expect(ResponsesRetrieval.answer("GET", "/v1/responses/nope?x=1", memory: memory)?.0.code == 404)
    }
}
