import Basics
import Courier
import Foundation
import ModelStore
import Routing
import OnDeviceEngine

/// What `guest status` shows: the route the next request would take and why, and the facts
/// behind it. Keys are present/absent only, never their bytes.
public struct GuestStatus: Sendable, Equatable, Codable {
    public var route: String
    /// The external shape when the route is `external` ("own Homebase", ...).
    public var shape: String?
    public var reason: String
    /// The brain the next answer comes from: a route may still land on the floor.
    public var brain: String
    /// Age of the own Homebase's last advert in seconds, nil when none was received.
    public var ownAdvertAgeSeconds: Int64?
    /// The `ollama.host` setting: `own` or a joined host key.
    public var host: String
    public var keys: [String: String]
    /// "ready: PATH" or why no local model can run.
    public var localModel: String
    /// The `llama-server` binary, nil when not found.
    public var llamaServer: String?
    public var localEndpoint: String?
    /// The last fallback line of `guest.log`.
    public var lastFallback: String?
    /// The relay link, the own Homebase's key and last advert.
    public var relay: RelayStatus
    /// Models downloading in the background (a sibling chose them), stopped or failed.
    public var downloads: [BackgroundDownload] = []
    /// Where a request that carries tools would go, and why (`Router.decide(for:)`).
    public var tools: String = ""
    /// Where a request with an image would go, and why.
    public var images: String = ""
    /// The on-device engine: warm (its pid) or cold, and whether the warm floor (`engine.warm`) is on.
    public var engine: String = ""
    /// How the frames of requests to a Homebase are padded (`request.shaping`, SPEC 7).
    public var requestShaping: String = ""
    /// The router's freshness windows in seconds (own advert 10 min, joined host 24 h): the page's bars.
    public var ownAdvertLimitSeconds: Int64 = 600
    public var joinedLimitSeconds: Int64 = 86_400
    /// Joined Homebases (other accounts'), with how long ago each was last heard.
    public var joined: [JoinedStatus] = []

    /// One joined Homebase: its host key (hex), state, models, seconds since last heard (nil: never).
    public struct JoinedStatus: Sendable, Equatable, Codable {
        public var hostKey: String
        public var state: String
        public var models: [String]
        public var heardAgeSeconds: Int64?
    }

    /// True when the next answer would be the floor notice.
    public var isFloor: Bool { brain == "none" }

    /// `link`: the command's open relay link, nil when none was opened.
    public static func gather(_ context: GuestContext, links: GuestLinks? = nil) -> GuestStatus {
        let decision = context.router.resolve()
        let resolution = context.factory.resolver.resolve(decision.localModel)
        let onDeviceBrain: String
        let local: String
        switch resolution {
        case .model(let target): (onDeviceBrain, local) = ("on-device", "ready: \(target.path)")
        case .none(let why): (onDeviceBrain, local) = ("none", why)
        }
        let now = SystemWallClock().nowMs()
        let advert = (try? AccountAdverts(account: context.account, database: context.routingDatabase).latestOwnAdvert()) ?? nil
        var keys: [String: String] = [:]
        for cloud in Cloud.allCases { keys[cloud.rawValue] = (try? context.keys.hasKey(cloud)) == true ? "present" : "absent" }
        let settings = (try? context.settings.routingSettings()) ?? RoutingSettings()
        return GuestStatus(
            route: decision.route.name, shape: decision.route.target, reason: decision.reason,
            brain: decision.route.brain == .onDevice ? onDeviceBrain : decision.route.name,
            ownAdvertAgeSeconds: advert.map { max(0, now - $0.receiptMs) / 1000 },
            host: settings[.ollamaHost] ?? "own", keys: keys, localModel: local,
            llamaServer: try? context.factory.supervisor.configuration.locator.locate(),
            localEndpoint: ((try? context.runtime.verifiedEndpoint()) ?? nil)?.url,
            lastFallback: context.log.lastLine(containing: "fallback:"), relay: .gather(context, links),
            downloads: context.modelStore.backgroundDownloads(),
            tools: Self.words(context.router.decide(RequestNeeds(tools: true))),
            images: Self.words(context.router.decide(RequestNeeds(images: true))),
            engine: engineWords(EngineFile.live(context.paths.engineState), warmFloor: settings.warmFloor),
            requestShaping: context.requestShaping.summary + " (request.shaping)",
            ownAdvertLimitSeconds: context.configuration.freshness.ownAdvertMaxAgeMs / 1000,
            joinedLimitSeconds: context.configuration.freshness.joinedMaxSilenceMs / 1000,
            joined: ((try? context.joined.all()) ?? []).map {
                JoinedStatus(hostKey: hexString($0.hostKey.bytes), state: $0.state.rawValue, models: $0.models,
                             heardAgeSeconds: $0.lastHeardMs.map { max(0, now - $0) / 1000 })
            })
    }

    /// "warm: llama-server pid 4242 on builtin (...)" or "cold: ...", then the warm floor's setting.
    static func engineWords(_ state: EngineFile.State?, warmFloor: Bool) -> String {
        let floor = warmFloor ? "warm floor on (engine.warm; off: started on first use)"
            : "warm floor off (engine.warm; on: started beside Homebase requests, kept by guest serve)"
        guard let state else { return "cold, starts on first use; \(floor)" }
        return "warm: llama-server pid \(state.pid) on \(state.model) (started by \(state.warm ? "the warm floor" : "a request")); \(floor)"
    }

    /// "own Homebase: <reason>", "refused: <why>".
    static func words(_ d: RouteDecision) -> String {
        if let refusal = d.refusal { return "refused: \(refusal)" }
        return "\(d.route.target ?? d.route.name): \(d.reason)"
    }

    /// A short paragraph for a newcomer (`status --explain`).
    public var explanation: String {
        var s = "Every request goes to one brain, chosen fresh each time from your settings and what this "
            + "machine knows right now. "
        switch route {
        case "on-device":
            s += isFloor
                ? "Right now it would answer on this device, but no local model is installed (\(localModel)), so you "
                    + "would get a short notice instead of an answer. Install one with `guest models pull <name>`. "
                : "Right now it answers on this device, with llama-server on a local model: nothing leaves the machine. "
        case "external":
            s += "Right now it goes to \(shape ?? "an external runtime"); if that fails, this device answers instead, "
                + "continuing where the answer stopped. "
        default:
            s += "Right now it goes to \(route), because you chose it and its key is on file; if that fails, "
                + "this device answers instead (never another cloud). "
        }
        s += "Why: \(reason)."
        func goes(_ words: String) -> String { words.hasPrefix("refused: ") ? "is \(words)" : "goes to \(words)" }
        if !tools.isEmpty {
            s += " A request with tools (the model chooses a call, this device runs it) \(goes(tools))."
        }
        if !images.isEmpty { s += " A request with an image \(goes(images))." }
        return s
    }
}
