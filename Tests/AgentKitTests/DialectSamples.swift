import AgentKit

/// Samples for every family: calls between text, braces and markers inside strings, near-miss
/// markers, non-ASCII text. Malformed calls too: they must come out the same at every split.
let dialectSamples: [DialectSample] = [
    DialectSample(
        label: "hermes, two calls amid text",
        family: .hermes,
        text: "Let me check İstanbul ☕️.\n<tool_call>\n{\"name\": \"current_time\", \"arguments\": {\"timezone\": \"Europe/Istanbul\"}}\n</tool_call>\nThen <b>bold</b>, a lone < and <tool_cal.<tool_call>{\"name\":\"list_dir\",\"arguments\":{}}</tool_call>",
        expected: [.text("Let me check İstanbul ☕️.\n"),
                   call("c1", "current_time", #"{"timezone":"Europe/Istanbul"}"#),
                   .text("\nThen <b>bold</b>, a lone < and <tool_cal."),
                   call("c2", "list_dir", "{}")]),
    DialectSample(
        label: "hermes, malformed JSON inside the tag",
        family: .hermes,
        text: "ok <tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": }}</tool_call> after",
        expected: [.text("ok "),
                   .malformed(reason: "the call is not valid JSON", name: "read_file",
                              raw: "{\"name\": \"read_file\", \"arguments\": {\"path\": }}"),
                   .text(" after")]),
    DialectSample(
        label: "llama3, bare JSON call",
        family: .llama3,
        text: "  {\"name\": \"current_time\", \"parameters\": {\"timezone\": \"Asia/Tokyo\"}}",
        expected: [call("c1", "current_time", #"{"timezone":"Asia/Tokyo"}"#)]),
    DialectSample(
        label: "llama3, python tag, two calls, braces in strings",
        family: .llama3,
        text: "<|python_tag|>{\"name\": \"a\", \"parameters\": {\"x\": \"}{\\\"]\"}}; {\"name\": \"b\", \"parameters\": {}}",
        expected: [call("c1", "a", #"{"x":"}{\"]"}"#), call("c2", "b", "{}")]),
    DialectSample(
        label: "llama3, prose with JSON and pipes stays text",
        family: .llama3,
        text: "The <| pipes |> and {\"name\": \"x\", \"parameters\": {}} here are text.",
        expected: [.text("The <| pipes |> and {\"name\": \"x\", \"parameters\": {}} here are text.")]),
    DialectSample(
        label: "llama3, JSON answer that is not a call stays text",
        family: .llama3,
        text: "{\"answer\": 42} is the result",
        expected: [.text("{\"answer\": 42} is the result")]),
    DialectSample(
        label: "mistral, list of two calls amid text",
        family: .mistral,
        text: "Sure. [TOOL_CALLS] [{\"name\": \"a\", \"arguments\": {\"k\": [1, 2]}}, {\"name\": \"b\", \"arguments\": \"{\\\"q\\\": true}\"}] done [TOOL",
        expected: [.text("Sure. "), call("c1", "a", #"{"k":[1,2]}"#), call("c2", "b", #"{"q":true}"#),
                   .text(" done [TOOL")]),
    DialectSample(
        label: "mistral, marker followed by prose",
        family: .mistral,
        text: "[TOOL_CALLS] sorry",
        expected: [.malformed(reason: "the call is not JSON", name: nil, raw: "sorry")]),
    DialectSample(
        label: "generic, bare call then a tagged one",
        family: .generic,
        text: "{\"function\": {\"name\": \"a\", \"arguments\": \"{\\\"x\\\": 1}\"}}\nthen <tool_call>{\"name\": \"b\"}</tool_call>[TOOL_CALLS][{\"name\": \"c\", \"arguments\": {}}]",
        expected: [call("c1", "a", #"{"x":1}"#), .text("\nthen "), call("c2", "b", "{}"), call("c3", "c", "{}")]),
    DialectSample(
        label: "generic, unfinished bare call",
        family: .generic,
        text: "{\"name\": \"a\", \"arguments\": {\"x\": ",
        expected: [.malformed(reason: "the call's JSON is incomplete", name: "a",
                              raw: "{\"name\": \"a\", \"arguments\": {\"x\": ")]),
]
