import CloudKeys
import Foundation
import GuestAgent
import LocalAPI
import ModelStore
import Routing

/// What the page at `/` may change, each through the code its command uses: `guest settings`
/// (`SettingsStore.set(named:)`, its validation), `guest keys` (`KeyVerbs.run`: masked output,
/// the zero-token test) and `guest models` (`ModelCommands`). A key sent here is never answered back.
///
///   GET  settings            every setting, its value and what it takes; the key rings, masked
///   POST settings            {"name": N, "value": V}  (value null: unset)
///   POST keys/add            {"provider": P, "key": K}
///   POST keys/test           {"provider": P, "position": N}
///   GET  models              the shortlist (marked offline when the catalog cannot be read) and the store
///   POST models/pull         {"target": T}: progress lines {"received", "total"}, then the reply
///   POST models/cancel, models/delete   {"id": ID}
struct PageActions: Sendable {
    let context: GuestContext
    let links: GuestLinks?

    func act(_ method: String, _ name: String, _ body: [UInt8], _ progress: @escaping @Sendable ([UInt8]) -> Void) async -> PageReply {
        let input = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:]
        func text(_ key: String) -> String? { input[key] as? String }
        do {
            switch (method, name) {
            case ("GET", "settings"): return try await settings()
            case ("POST", "settings"):
                guard let n = text("name") else { return Self.refuse("say which setting: {\"name\": ..., \"value\": ...}") }
                return try await set(n, input["value"] as? String)
            case ("POST", "keys/add"):
                guard let p = text("provider"), let key = text("key") else { return Self.refuse("send {\"provider\": ..., \"key\": ...}") }
                return await keys(["add", p, "-"], secret: Array(key.utf8))
            case ("POST", "keys/test"):
                guard let p = text("provider") else { return Self.refuse("send {\"provider\": ..., \"position\": N}") }
                return await keys(["test", p, String((input["position"] as? Int) ?? 1)])
            case ("GET", "models"): return try await models()
            case ("POST", "models/pull"):
                guard let t = text("target") else { return Self.refuse("send {\"target\": NAME or OWNER/NAME[:QUANT]}") }
                let out = try await context.modelCommands().pull(t) { p in
                    progress(Self.json(["received": p.received, "total": Self.null(p.total)]))
                }
                return Self.done(out.text)
            case ("POST", "models/cancel"), ("POST", "models/delete"):
                guard let id = text("id") else { return Self.refuse("send {\"id\": MODEL ID}") }
                let commands = context.modelCommands()
                return Self.done(name.hasSuffix("cancel") ? try await commands.cancel(id).text : try await commands.delete(id).text)
            default:
                return PageReply(status: 404, body: Self.json(["ok": false, "error": "no action \(method) \(name.prefix(40))"]))
            }
        } catch let e as RoutingError {
            switch e {
            case .unknownSetting, .invalidSettingValue: return Self.refuse(e.description)
            default: return PageReply(status: 500, body: Self.json(["ok": false, "error": e.description]))
            }
        } catch {
            return PageReply(status: 500, body: Self.json(["ok": false, "error": "\(error)"]))
        }
    }

    func settings() async throws -> PageReply {
        let store = context.settings
        let rows: [[String: Any]] = try SettingName.allCases.map { n in
            ["name": n.rawValue, "value": Self.null(try store.get(n)), "unsetMeans": Self.null(n.unsetMeans), "expected": n.expected]
        }
        let rings = Collected()
        _ = await KeyVerbs.run(arguments: ["list"], dataDir: context.paths.dataDirectory, output: { rings.append($0) })
        return PageReply(body: Self.json(["ok": true, "settings": rows, "keys": rings.value]))
    }

    /// `guest settings set|unset`, and a model choice mailed to the siblings as the command does.
    func set(_ name: String, _ value: String?) async throws -> PageReply {
        guard let value else {
            guard let n = SettingName(rawValue: name.lowercased()) else { throw RoutingError.unknownSetting }
            try context.settings.unset(n)
            return Self.done("\(name) unset")
        }
        let stored = try context.settings.set(named: name, value)
        if let kind = SettingName(rawValue: name.lowercased()).flatMap(ModelChoiceSync.Kind.init(setting:)) {
            _ = await links?.account?.share(kind, stored, context: context)
        }
        return Self.done("\(name) = \(stored)")
    }

    /// `guest keys ARGS`, its words as they are (keys masked); exit 2 (bad input) is a 400.
    func keys(_ arguments: [String], secret: [UInt8]? = nil) async -> PageReply {
        let config = context.configuration
        let out = Collected()
        let tester = KeyTester(openAIBaseURL: config.cloudURLs.openAI, anthropicBaseURL: config.cloudURLs.anthropic)
        let status = await KeyVerbs.run(arguments: arguments, dataDir: config.paths.dataDirectory,
                                           output: { out.append($0) }, readSecret: { secret }, tester: tester)
        return PageReply(status: status == 2 ? 400 : 200, body: Self.json(["ok": status == 0, "text": out.value]))
    }

    func models() async throws -> PageReply {
        let commands = context.modelCommands()
        let browse = try await commands.browse()
        let shortlist = commands.shortlist.map {
            ["name": $0.name, "summary": $0.summary, "id": ModelRecord.id(repo: $0.repo, quant: $0.quant)]
        }
        let stored = try commands.list().models.map { ["id": $0.id, "state": "\($0.state)"] }
        return PageReply(body: Self.json(["ok": true, "offline": browse.offline, "shortlist": shortlist, "models": stored]))
    }

    static func null<T>(_ v: T?) -> Any { v.map { $0 as Any } ?? NSNull() }
    static func done(_ text: String) -> PageReply { PageReply(body: json(["ok": true, "text": text])) }
    static func refuse(_ why: String) -> PageReply { PageReply(status: 400, body: json(["ok": false, "error": why])) }
    static func json(_ value: [String: Any]) -> [UInt8] {
        Array((try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys])) ?? Data("{}".utf8))
    }
}
