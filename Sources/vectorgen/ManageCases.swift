// Vectors for `manage-request` (0x52), `manage-progress` (0x53), `manage-result` (0x54); layouts
// in Sources/Wire/ManageMessages.swift, SPEC.md "Managing the host's models". Fields written by
// hand from the inputs, like WireCases.swift.
import Basics
import Wire

private func h64(_ v: UInt64) -> String { hexString((0..<8).map { UInt8(truncatingIfNeeded: v >> (56 - 8 * $0)) }) }
private func hs(_ s: String) -> String { hexString(Array(s.utf8)) }

func manageVectorCases() -> [VectorCase] {
    let rid = Bytes16.repeating(0x6D)
    let pull = AppMessage.manageRequest(.init(requestID: rid, action: .pull, model: "tiny-org/tiny/tiny.gguf",
                                              runtime: "http://127.0.0.1:8080"))
    let progress = AppMessage.manageProgress(.init(requestID: rid, completed: 524_288, total: 1_337_900, status: "downloading"))
    let runtimes = [
        AppMessage.HostRuntime(url: "http://127.0.0.1:8080", kind: AppMessage.HostRuntime.llamaServer, abilities: 7, models: [
            .init(name: "tiny", sizeBytes: 1_337_900, loaded: true, advertised: true),
            .init(name: "other", sizeBytes: 0, flags: 0x80),
        ]),
        AppMessage.HostRuntime(url: "http://127.0.0.1:11434", kind: AppMessage.HostRuntime.ollama, abilities: 7, models: []),
    ]
    let result = AppMessage.manageResult(.init(requestID: rid, text: "pulled tiny (1.3 MB)", runtimes: runtimes))
    var resultFields: [(String, String)] = [("type", "54"), ("request-id", rid.hex), ("text", hs("pulled tiny (1.3 MB)"))]
    for (i, rt) in runtimes.enumerated() {
        resultFields += [("runtime.\(i).url", hs(rt.url)), ("runtime.\(i).kind", hexString([rt.kind])),
                         ("runtime.\(i).abilities", hexString([rt.abilities]))]
        for (j, m) in rt.models.enumerated() {
            resultFields += [("runtime.\(i).model.\(j).name", hs(m.name)), ("runtime.\(i).model.\(j).size", h64(m.sizeBytes)),
                             ("runtime.\(i).model.\(j).flags", hexString([m.flags]))]
        }
    }
    let notOwner = AppMessage.error(.init(requestID: rid, code: .notOwner,
                                          message: "model management is for the owner's own devices; this device joined under a share grant"))
    return [
        VectorCase(name: "msg-manage-request", kind: "app-message", expect: "success",
                   comment: "pull a GGUF from the hub onto one llama-server runtime",
                   fields: [("type", "52"), ("request-id", rid.hex), ("action", "02"), ("model", hs("tiny-org/tiny/tiny.gguf")),
                            ("runtime", hs("http://127.0.0.1:8080"))],
                   payload: try! pull.encode()),
        VectorCase(name: "msg-manage-request-list", kind: "app-message", expect: "success",
                   comment: "list: model and runtime empty",
                   fields: [("type", "52"), ("request-id", rid.hex), ("action", "01"), ("model", ""), ("runtime", "")],
                   payload: try! AppMessage.manageRequest(.init(requestID: rid, action: .list)).encode()),
        VectorCase(name: "msg-manage-request-cancel", kind: "app-message", expect: "success",
                   comment: "cancel the pull of a model under way (action 6; runtime empty)",
                   fields: [("type", "52"), ("request-id", rid.hex), ("action", "06"), ("model", hs("tiny-org/tiny/tiny.gguf")),
                            ("runtime", "")],
                   payload: try! AppMessage.manageRequest(.init(requestID: rid, action: .cancel, model: "tiny-org/tiny/tiny.gguf")).encode()),
        VectorCase(name: "msg-manage-progress", kind: "app-message", expect: "success",
                   comment: "half a megabyte of a pull done",
                   fields: [("type", "53"), ("request-id", rid.hex), ("completed", h64(524_288)), ("total", h64(1_337_900)),
                            ("status", hs("downloading"))],
                   payload: try! progress.encode()),
        VectorCase(name: "msg-manage-result", kind: "app-message", expect: "success",
                   comment: "two runtimes; a model with a reserved flag bit (kept) and one runtime with no model",
                   fields: resultFields, payload: try! result.encode()),
        VectorCase(name: "msg-error-not-owner", kind: "app-message", expect: "success",
                   comment: "a grantee's management request refused (code 10)",
                   fields: [("type", "14"), ("request-id", rid.hex), ("code", "0a"),
                            ("message", hs("model management is for the owner's own devices; this device joined under a share grant"))],
                   payload: try! notOwner.encode()),
        VectorCase(name: "msg-manage-result-too-many-runtimes", kind: "app-message", expect: "oversize",
                   comment: "65 runtimes announced (the limit is 64)",
                   payload: [0x54] + rid.bytes + [0, 0] + [0, 65] + [UInt8](repeating: 0, count: 65 * 6)),
        VectorCase(name: "msg-manage-progress-truncated", kind: "app-message", expect: "truncated",
                   comment: "the status length says 4 bytes, 2 follow",
                   payload: [0x53] + rid.bytes + [UInt8](repeating: 0, count: 16) + [0, 4, 0x61, 0x62]),
    ]
}
