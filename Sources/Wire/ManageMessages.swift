// Model management messages: a device of the host's own account asks the Homebase to list,
// pull, delete, load or unload a model on its runtimes (SPEC.md "Managing the host's models").
// Never a grantee: the host answers them `error` 0x14 with code 10 `not_owner`.
//
// manage-request  (0x52): request id 16 | action u8 | model str16 (<= 1024) | runtime str16 (<= 1024)
//                         actions: 1 list, 2 pull, 3 delete, 4 load, 5 unload (others: read as
//                         sent, answered `unsupported`); runtime: a runtime URL, empty = the host picks
// manage-progress (0x53): request id 16 | completed u64 | total u64 (0: unknown) | status str16 (<= 1024)
// manage-result   (0x54): request id 16 | text str16 (<= 1024) | runtime count u16 (<= 64) | runtimes
//   runtime: url str16 (<= 1024) | kind u8 (1 ollama, 2 llama-server, 3 openai-compatible, 0 other)
//            | abilities u8 (bit 0 pull, 1 delete, 2 load and unload) | model count u16 (<= 4096) | models
//   model:   name str16 (<= 1024) | size bytes u64 (0: unknown) | flags u8 (bit 0 loaded, 1 advertised)
// Reserved bits of `abilities` and `flags` are kept as received (they re-encode exactly).
import RelayWire

extension Limits {
    /// Runtimes in one `manage-result`.
    public static let maxManageRuntimes = 64
    /// Models of one runtime in one `manage-result`.
    public static let maxManageModels = 4096
    /// A model name, a runtime URL, a status or result text.
    public static let maxManageText = 1024
}

extension AppMessage.ErrorCode {
    /// A management request from a device that is not of the host's own account (a grantee).
    public static let notOwner = Self(rawValue: 10)
}

extension AppMessage {
    public struct ManageAction: RawRepresentable, Hashable, Sendable {
        public var rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let list = Self(rawValue: 1), pull = Self(rawValue: 2), delete = Self(rawValue: 3)
        public static let load = Self(rawValue: 4), unload = Self(rawValue: 5)
        /// Stops the pull of `model` under way on the host (its partial file removed).
        public static let cancel = Self(rawValue: 6)
        public var name: String {
            switch self {
            case .list: "list"
            case .pull: "pull"
            case .delete: "delete"
            case .load: "load"
            case .unload: "unload"
            case .cancel: "cancel"
            default: "action \(rawValue)"
            }
        }
    }

    /// Asks the host to act on its models.
    public struct ManageRequest: Equatable, Sendable, BodyCodable {
        public var requestID: Bytes16
        public var action: ManageAction
        public var model: String
        public var runtime: String
        public init(requestID: Bytes16, action: ManageAction, model: String = "", runtime: String = "") {
            self.requestID = requestID; self.action = action; self.model = model; self.runtime = runtime
        }

        func write(to w: inout ByteWriter) throws(WireError) {
            w.fixed(requestID); w.u8(action.rawValue)
            try w.string(2, model, limit: Limits.maxManageText, "model")
            try w.string(2, runtime, limit: Limits.maxManageText, "runtime")
        }

        static func read(_ r: inout ByteReader) throws(WireError) -> ManageRequest {
            ManageRequest(requestID: try r.fixed("request id"), action: ManageAction(rawValue: try r.u8("action")),
                          model: try r.string(2, limit: Limits.maxManageText, "model"),
                          runtime: try r.string(2, limit: Limits.maxManageText, "runtime"))
        }
    }

    /// How far a pull is (any number of them, before its `manage-result` or `error`).
    public struct ManageProgress: Equatable, Sendable, BodyCodable {
        public var requestID: Bytes16
        public var completed: UInt64
        /// 0 when the runtime does not say.
        public var total: UInt64
        public var status: String
        public init(requestID: Bytes16, completed: UInt64, total: UInt64, status: String) {
            self.requestID = requestID; self.completed = completed; self.total = total; self.status = status
        }

        func write(to w: inout ByteWriter) throws(WireError) {
            w.fixed(requestID); w.u64(completed); w.u64(total)
            try w.string(2, status, limit: Limits.maxManageText, "status")
        }

        static func read(_ r: inout ByteReader) throws(WireError) -> ManageProgress {
            ManageProgress(requestID: try r.fixed("request id"), completed: try r.u64("completed"), total: try r.u64("total"),
                           status: try r.string(2, limit: Limits.maxManageText, "status"))
        }
    }

    /// One model a runtime holds.
    public struct HostModel: Equatable, Sendable {
        public var name: String
        public var sizeBytes: UInt64
        public var flags: UInt8
        public var loaded: Bool { flags & 1 != 0 }
        public var advertised: Bool { flags & 2 != 0 }
        public init(name: String, sizeBytes: UInt64, loaded: Bool, advertised: Bool) {
            self.init(name: name, sizeBytes: sizeBytes, flags: (loaded ? 1 : 0) | (advertised ? 2 : 0))
        }
        public init(name: String, sizeBytes: UInt64, flags: UInt8) {
            self.name = name; self.sizeBytes = sizeBytes; self.flags = flags
        }
    }

    /// One runtime of the host and its models.
    public struct HostRuntime: Equatable, Sendable {
        public static let ollama: UInt8 = 1, llamaServer: UInt8 = 2, openAICompatible: UInt8 = 3
        public static let canPull: UInt8 = 1, canDelete: UInt8 = 2, canLoad: UInt8 = 4
        public var url: String
        public var kind: UInt8
        public var abilities: UInt8
        public var models: [HostModel]
        public init(url: String, kind: UInt8, abilities: UInt8, models: [HostModel]) {
            self.url = url; self.kind = kind; self.abilities = abilities; self.models = models
        }
        public var kindName: String {
            switch kind {
            case Self.ollama: "ollama"
            case Self.llamaServer: "llama-server"
            case Self.openAICompatible: "openai-compatible"
            default: "other"
            }
        }
    }

    /// The outcome of a management request: what was done, and the runtimes after it.
    public struct ManageResult: Equatable, Sendable, BodyCodable {
        public var requestID: Bytes16
        public var text: String
        public var runtimes: [HostRuntime]
        public init(requestID: Bytes16, text: String, runtimes: [HostRuntime]) {
            self.requestID = requestID; self.text = text; self.runtimes = runtimes
        }

        func write(to w: inout ByteWriter) throws(WireError) {
            w.fixed(requestID); try w.string(2, text, limit: Limits.maxManageText, "result text")
            guard runtimes.count <= Limits.maxManageRuntimes else {
                throw .tooLarge(field: "runtimes", length: runtimes.count, limit: Limits.maxManageRuntimes)
            }
            w.u16(UInt16(runtimes.count))
            for rt in runtimes {
                try w.string(2, rt.url, limit: Limits.maxManageText, "runtime url"); w.u8(rt.kind); w.u8(rt.abilities)
                guard rt.models.count <= Limits.maxManageModels else {
                    throw .tooLarge(field: "runtime models", length: rt.models.count, limit: Limits.maxManageModels)
                }
                w.u16(UInt16(rt.models.count))
                for m in rt.models {
                    try w.string(2, m.name, limit: Limits.maxManageText, "model name"); w.u64(m.sizeBytes); w.u8(m.flags)
                }
            }
        }

        static func read(_ r: inout ByteReader) throws(WireError) -> ManageResult {
            let id: Bytes16 = try r.fixed("request id")
            let text = try r.string(2, limit: Limits.maxManageText, "result text")
            let n = try r.count(minItemSize: 6, "runtimes")
            guard n <= Limits.maxManageRuntimes else { throw .tooLarge(field: "runtimes", length: n, limit: Limits.maxManageRuntimes) }
            var runtimes: [HostRuntime] = []
            for _ in 0..<n {
                let url = try r.string(2, limit: Limits.maxManageText, "runtime url")
                let kind = try r.u8("runtime kind"), abilities = try r.u8("runtime abilities")
                let k = try r.count(minItemSize: 11, "runtime models")
                guard k <= Limits.maxManageModels else {
                    throw .tooLarge(field: "runtime models", length: k, limit: Limits.maxManageModels)
                }
                var models: [HostModel] = []
                for _ in 0..<k {
                    models.append(HostModel(name: try r.string(2, limit: Limits.maxManageText, "model name"),
                                            sizeBytes: try r.u64("model size"), flags: try r.u8("model flags")))
                }
                runtimes.append(HostRuntime(url: url, kind: kind, abilities: abilities, models: models))
            }
            return ManageResult(requestID: id, text: text, runtimes: runtimes)
        }
    }
}
