import Foundation
import Inference

/// Writes an answer in OpenAI Responses shapes: a pure encoder (but for `memory`, where a
/// finished response is kept when `store` is true), tested without sockets.
///
/// Streamed (`text/event-stream`, `event: TYPE` + `data: {"type", ..., "sequence_number"}`):
///   response.created, response.in_progress          {"response": {... "status":"in_progress","output":[]}}
///   per message:       response.output_item.added, response.content_part.added,
///                      response.output_text.delta*, response.output_text.done,
///                      response.content_part.done, response.output_item.done
///   per function call: response.output_item.added {"item":{"type":"function_call","call_id","name","arguments":""}},
///                      response.function_call_arguments.delta*, response.function_call_arguments.done,
///                      response.output_item.done
///   per reasoning:     response.output_item.added, response.reasoning_text.delta*,
///                      response.reasoning_text.done, response.output_item.done
///   response.completed {"response": {... "status":"completed"|"incomplete","output",[...],"usage","homebase"}}
/// A failure after the head: an `error` event {"type":"error","code":"server_error","message"}
/// and no response.completed. Keep-alives: response.created/in_progress first, then SSE comments.
struct ResponsesEncoder: Sendable {
    let model: String
    let request: ResponsesRequest
    /// What the answer continues (history and input, no instructions), kept with the answer.
    let conversation: [ChatMessage]
    let memory: ResponseMemory
    var homebase: [String: String]
    let id = "resp_" + String(UInt64.random(in: 0..<UInt64.max), radix: 36)
    let created = Int(Date().timeIntervalSince1970)
    private var sequence = 0
    private var started = false
    /// One output item; `text` is a message's text, a reasoning's text or a call's arguments.
    private struct Item: Sendable {
        enum Kind: Sendable { case message, reasoning, call, custom }
        var kind: Kind
        var id: String
        var callID = ""
        var name = ""
        var text = ""
        var done = false

        var json: JSONObject {
            let status = done ? "completed" : "in_progress"
            switch kind {
            case .message:
                let content: [JSONObject] = done ? [ResponsesEncoder.textPart(text)] : []
                return ["type": "message", "id": id, "status": status, "role": "assistant", "content": content]
            case .reasoning:
                let content: [JSONObject] = done ? [["type": "reasoning_text", "text": text]] : []
                return ["type": "reasoning", "id": id, "summary": [JSONObject](), "content": content]
            case .call:
                let args = done ? text : ""
                return ["type": "function_call", "id": id, "call_id": callID, "name": name, "arguments": args, "status": status]
            case .custom:
                let input = done ? text : ""
                return ["type": "custom_tool_call", "id": id, "call_id": callID, "name": name, "input": input, "status": status]
            }
        }
    }
    private var output: [Item] = []
    private enum Open: Sendable { case none, message, reasoning, call(delta: Int), custom }
    private var open = Open.none
    private var openItem = Item(kind: .message, id: "")
    private var openText: String {
        get { openItem.text }
        set { openItem.text = newValue }
    }
    /// Function calls streamed by pieces (the brain's index and the call's id), in order.
    private var streamed: [(index: Int, id: String?)] = []
    private var held: [Int: (id: String?, name: String?, args: String)] = [:]
    private var itemCount = 0
    // The answer, for the memory.
    private var text = ""
    private var calls: [ToolCall] = []

    init(request: ResponsesRequest, conversation: [ChatMessage], memory: ResponseMemory, homebase: [String: String]) {
        self.model = request.api.chat.model; self.request = request; self.conversation = conversation
        self.memory = memory; self.homebase = homebase
    }

    static let contentType = "text/event-stream"

    mutating func stream(_ event: ChatEvent) -> [UInt8] {
        var out = begin()
        switch event {
        case .text(let t):
            if case .message = open {} else {
                out += close()
                out += start(Item(kind: .message, id: nextID("msg")), as: .message)
                out += emit("response.content_part.added", ["item_id": openItem.id, "output_index": output.count,
                                                             "content_index": 0, "part": Self.textPart("")])
            }
            openText += t
            text += t
            out += emit("response.output_text.delta", ["item_id": openItem.id, "output_index": output.count,
                                                        "content_index": 0, "delta": t, "logprobs": [Any]()])
        case .reasoning(let t):
            if case .reasoning = open {} else {
                out += close()
                out += start(Item(kind: .reasoning, id: nextID("rs")), as: .reasoning)
            }
            openText += t
            out += emit("response.reasoning_text.delta", ["item_id": openItem.id, "output_index": output.count,
                                                           "content_index": 0, "delta": t])
        case .toolCallDelta(let d):
            if case .call(let i) = open, i == d.index {
                openText += d.arguments
                if !d.arguments.isEmpty {
                    out += emit("response.function_call_arguments.delta", ["item_id": openItem.id, "output_index": output.count,
                                                                           "delta": d.arguments])
                }
                break
            }
            var h = held[d.index] ?? (nil, nil, "")
            h.id = h.id ?? d.id; h.name = h.name ?? d.name; h.args += d.arguments
            // A freeform call is written whole: its pieces are JSON around the raw input.
            guard let name = h.name, !request.customTools.contains(name), !streamed.contains(where: { $0.index == d.index }) else {
                held[d.index] = h
                break
            }
            held[d.index] = nil
            streamed.append((d.index, h.id))
            out += close()
            out += openCall(callID: h.id ?? nextID("call"), name: name, delta: d.index)
            if !h.args.isEmpty {
                openText = h.args
                out += emit("response.function_call_arguments.delta", ["item_id": openItem.id, "output_index": output.count,
                                                                       "delta": h.args])
            }
        case .toolCall(let c):
            calls.append(c)
            held = held.filter { $0.value.id != c.id && !($0.value.id == nil && $0.value.name == c.name) }
            if request.customTools.contains(c.name) {
                out += close()
                out += start(Item(kind: .custom, id: nextID("ctc"), callID: c.id, name: c.name), as: .custom)
                openText = ResponsesReader.customInput(c.argumentsJSON)
                out += emit("response.custom_tool_call_input.delta", ["item_id": openItem.id, "output_index": output.count,
                                                                      "delta": openText])
                out += close()
                break
            }
            if let at = streamed.firstIndex(where: { $0.id == c.id }) ?? (streamed.isEmpty ? nil : 0) {
                let i = streamed.remove(at: at).index
                if case .call(let o) = open, o == i { openText = c.argumentsJSON; out += close() }
                break
            }
            out += close()
            out += openCall(callID: c.id, name: c.name, delta: -1)
            openText = c.argumentsJSON
            out += emit("response.function_call_arguments.delta", ["item_id": openItem.id, "output_index": output.count,
                                                                   "delta": c.argumentsJSON])
            out += close()
        case .logprobs:
            break  // not written in this API's shape (yet)
        case .done(let reason, let usage):
            out += close()
            var r = response(status: reason == "length" ? "incomplete" : "completed", usage: usage)
            r["homebase"] = said
            keep(r)
            out += emit("response.completed", ["response": r])
        }
        return out
    }

    mutating func keepAlive() -> [UInt8] { begin() + Array(": keep-alive\n\n".utf8) }

    func streamError(_ message: String) -> [UInt8] {
        Self.sse("error", ["type": "error", "code": "server_error", "message": message, "param": NSNull(),
                           "sequence_number": sequence])
    }

    /// Non-streamed: the same items as streamed (their event bytes are not needed).
    mutating func collect(_ event: ChatEvent) {
        switch event {
        case .text, .reasoning, .toolCall: _ = stream(event)
        case .toolCallDelta, .logprobs, .done: break
        }
    }

    func whole(finishReason: String, usage: Usage?) -> [UInt8] {
        var me = self
        _ = me.close()
        var r = me.response(status: finishReason == "length" ? "incomplete" : "completed", usage: usage)
        r["homebase"] = said
        me.keep(r)
        return JSONReading.bytes(r)
    }

    static func errorBody(_ message: String) -> [UInt8] { OpenAIAnswerEncoder.errorBody(message, type: "server_error") }

    /// The `homebase` object, with the tools that were not offered to the model.
    private var said: [String: String] {
        var h = homebase
        if !request.ignoredTools.isEmpty { h["ignored_tools"] = request.ignoredTools.joined(separator: ",") }
        return h
    }

    /// The response object (`status` in_progress while streaming).
    private func response(status: String, usage: Usage?) -> JSONObject {
        var r: JSONObject = [
            "id": id, "object": "response", "created_at": created, "status": status, "model": model,
            "output": output.map(\.json), "parallel_tool_calls": true, "error": NSNull(),
            "incomplete_details": status == "incomplete" ? ["reason": "max_output_tokens"] as JSONObject : NSNull(),
            "instructions": request.instructions ?? NSNull(), "metadata": JSONObject(),
            "previous_response_id": request.previousResponseID ?? NSNull(), "store": request.store,
            "tools": request.toolsEcho.compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? JSONObject },
            "tool_choice": (try? JSONSerialization.jsonObject(with: Data(request.toolChoiceEcho.utf8), options: .fragmentsAllowed)) ?? "auto",
            "temperature": request.api.chat.temperature ?? NSNull(), "top_p": request.api.chat.options.topP ?? NSNull(),
            "max_output_tokens": request.api.chat.maxTokens ?? NSNull(), "truncation": "disabled",
            "text": ["format": ["type": "text"] as JSONObject] as JSONObject, "usage": NSNull(),
        ]
        if status != "in_progress" { r["completed_at"] = Int(Date().timeIntervalSince1970) }
        if let usage {
            r["usage"] = ["input_tokens": usage.promptTokens, "output_tokens": usage.completionTokens,
                          "total_tokens": usage.promptTokens + usage.completionTokens,
                          "input_tokens_details": ["cached_tokens": 0] as JSONObject,
                          "output_tokens_details": ["reasoning_tokens": 0] as JSONObject] as JSONObject
        }
        return r
    }

    /// Keeps the conversation and this answer for a later `previous_response_id`, with the
    /// response object and the input items for `GET /v1/responses/{id}`.
    private func keep(_ response: JSONObject) {
        guard request.store else { return }
        memory.keep(id, conversation + [ChatMessage(role: .assistant, content: text, toolCalls: calls)],
                    response: JSONReading.bytes(response), inputItems: request.inputItems)
    }

    private mutating func begin() -> [UInt8] {
        guard !started else { return [] }
        started = true
        let r = response(status: "in_progress", usage: nil)
        return emit("response.created", ["response": r]) + emit("response.in_progress", ["response": r])
    }

    private mutating func openCall(callID: String, name: String, delta: Int) -> [UInt8] {
        start(Item(kind: .call, id: nextID("fc"), callID: callID, name: name), as: .call(delta: delta))
    }

    /// Makes `item` the open one (the caller closed the last): its `output_item.added`.
    private mutating func start(_ item: Item, as state: Open) -> [UInt8] {
        openItem = item
        open = state
        return emit("response.output_item.added", ["output_index": output.count, "item": item.json])
    }

    /// Ends the open item: its `done` events, and the item into `output`.
    private mutating func close() -> [UInt8] {
        var out: [UInt8] = []
        let index = output.count
        let itemID = openItem.id
        switch open {
        case .none: return []
        case .message:
            out += emit("response.output_text.done", ["item_id": itemID, "output_index": index, "content_index": 0,
                                                       "text": openText, "logprobs": [Any]()])
            out += emit("response.content_part.done", ["item_id": itemID, "output_index": index, "content_index": 0,
                                                        "part": Self.textPart(openText)])
        case .reasoning:
            out += emit("response.reasoning_text.done", ["item_id": itemID, "output_index": index, "content_index": 0,
                                                          "text": openText])
        case .call:
            out += emit("response.function_call_arguments.done", ["item_id": itemID, "output_index": index,
                                                                   "arguments": openText, "name": openItem.name])
        case .custom:
            out += emit("response.custom_tool_call_input.done", ["item_id": itemID, "output_index": index, "input": openText])
        }
        openItem.done = true
        out += emit("response.output_item.done", ["output_index": index, "item": openItem.json])
        output.append(openItem)
        open = .none
        return out
    }

    fileprivate static func textPart(_ t: String) -> JSONObject {
        ["type": "output_text", "text": t, "annotations": [Any](), "logprobs": [Any]()]
    }

    private mutating func nextID(_ prefix: String) -> String {
        itemCount += 1
        return "\(prefix)_\(id.dropFirst(5))_\(itemCount)"
    }

    private mutating func emit(_ type: String, _ fields: JSONObject) -> [UInt8] {
        var o = fields
        o["type"] = type
        o["sequence_number"] = sequence
        sequence += 1
        return Self.sse(type, o)
    }

    static func sse(_ event: String, _ data: JSONObject) -> [UInt8] {
        Array("event: \(event)\ndata: ".utf8) + JSONReading.bytes(data) + [10, 10]
    }
}
