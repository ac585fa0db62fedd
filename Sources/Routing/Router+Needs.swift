import Inference
import Signing
import Wire

// The one place the tools and images decision is made (#23). `resolve()` picks the brain from
// the settings and the facts; `decide(for:)` then checks what the request needs against it:
//
//   | chosen brain      | tools                                   | images                      |
//   |-------------------|-----------------------------------------|-----------------------------|
//   | own Homebase      | the advert's tools bit for the tag      | the advert's vision bit     |
//   | joined Homebase   | its tools bit and a grant with --tools  | its vision bit              |
//   | local endpoint    | what its probe learnt for the tag       | the same                    |
//   | OpenAI / Claude   | yes (the user chose that cloud)         | yes                         |
//   | on-device         | `OnDeviceAbilities`                     | `OnDeviceAbilities`         |
//
// Each row is `Route.lacks` (Route.swift), beside the route it describes.
//
// `tools.remote = off` sends every request with tools on-device (the old rule). A chosen brain
// that cannot take the request gives way to the on-device brain when that one can; never to a
// cloud the user did not choose. When neither can, the decision carries a refusal that says so.

/// What a request needs of its brain beyond text.
public struct RequestNeeds: Sendable, Equatable {
    public var tools: Bool
    public var images: Bool
    /// Decoded bytes of the largest image and of all of them: a relayed brain takes at most
    /// `Limits.maxImageBytes` per image and `Limits.maxRequestBytes` in all.
    public var largestImage: Int
    public var imageBytes: Int

    public init(tools: Bool = false, images: Bool = false, largestImage: Int = 0, imageBytes: Int = 0) {
        self.tools = tools; self.images = images; self.largestImage = largestImage; self.imageBytes = imageBytes
    }
    public init(_ request: ChatRequest) {
        let sizes = request.messages.flatMap(\.images).map(\.bytes.count)
        self.init(tools: request.carriesTools, images: request.carriesImages,
                  largestImage: sizes.max() ?? 0, imageBytes: sizes.reduce(0, +))
    }

    /// Why the request cannot cross the relay, nil when it fits.
    var overRelayLimits: String? {
        if largestImage > Limits.maxImageBytes {
            return "an image of \(largestImage) bytes is over the relay's limit of \(Limits.maxImageBytes >> 20) MiB per image"
        }
        if imageBytes > Limits.maxRequestBytes {
            return "the images (\(imageBytes) bytes) are over the relay's limit of \(Limits.maxRequestBytes >> 20) MiB per request"
        }
        return nil
    }

    var isPlain: Bool { !tools && !images }
}

extension Router {
    /// The decision for this request: the route `resolve()` gives, kept when its brain can take
    /// what the request carries, else on-device when that brain can, else a refusal. Never throws;
    /// reads the facts once, like `resolve()`.
    public func decide(for request: ChatRequest) -> RouteDecision { decide(RequestNeeds(request)) }

    public func decide(_ needs: RequestNeeds) -> RouteDecision {
        let base = resolve()
        guard !needs.isPlain else { return base }
        var chosen = base
        if needs.tools, base.route.brain != .onDevice, !toolsRemoteAllowed {
            chosen = .onDevice(base.localModel, "\(base.reason); tools.remote is off: requests with tools answer on-device")
        }
        let lacks = missing(needs, on: chosen)
        if lacks.isEmpty { return chosen.noting("", then: "; \(needs.words) \(canWords(chosen))") }
        if chosen.route.brain != .onDevice {
            let onDevice = RouteDecision.onDevice(chosen.localModel, "")
            let localLacks = missing(needs, on: onDevice)
            if localLacks.isEmpty {
                return .onDevice(chosen.localModel, "\(chosen.reason); but \(lacks.words): on-device, which can")
            }
            return refusal(chosen, needs, lacks + localLacks.filter { !lacks.contains($0) })
        }
        return refusal(chosen, needs, lacks)
    }

    /// Why the on-device brain cannot take `request` (the fallback's check), nil when it can.
    public func onDeviceLacks(_ request: ChatRequest, _ model: LocalModel) -> String? {
        let lacks = missing(RequestNeeds(request), on: .onDevice(model, ""))
        return lacks.isEmpty ? nil : lacks.words
    }

    /// `tools.remote` as stored: only `off` restores the old rule; unset, `on`, a corrupt value
    /// or unreadable settings allow it (the chosen brain's own capability still decides).
    var toolsRemoteAllowed: Bool {
        let raw = (try? settings.routingSettings())?[.toolsRemote]?.trimmingWhitespace().lowercased()
        return raw != "off"
    }

    /// Each need the decision's brain cannot meet, in words; empty: it can take the request.
    func missing(_ needs: RequestNeeds, on d: RouteDecision) -> [Lack] { d.route.lacks(needs, onDevice: onDevice) }

    /// "…: and the chosen cloud takes them", "…: and own Homebase model x can take them".
    private func canWords(_ d: RouteDecision) -> String { d.route.canTake }

    /// On-device is named as the route (nothing is sent anywhere); `refusal` says why.
    private func refusal(_ chosen: RouteDecision, _ needs: RequestNeeds, _ lacks: [Lack]) -> RouteDecision {
        let why = lacks.words
        let error: RoutingError
        if lacks.contains(where: \.isSize) {
            error = .tooLarge(detail: "\(why). Send a smaller image (protocol/SPEC.md, section 4, \"Limits\"), or choose a "
                + "cloud whose key you hold (guest keys add, then guest settings set model.source external and "
                + "external.runtime openai|claude)")
        } else if lacks.contains(where: \.isImages) {
            error = .noBrainCanSee(detail: "\(why). Choose a Homebase model whose advert has vision "
                + "(guest settings set ollama.model TAG), or a cloud whose key you hold (guest keys add, then "
                + "guest settings set model.source external and external.runtime openai|claude), or send the text alone")
        } else {
            error = .noBrainCanUseTools(detail: "\(why). Choose a model with tool use (guest settings set ollama.model TAG), "
                + "ask the Homebase's owner to share with --tools, or send the request without tools")
        }
        var decision = RouteDecision.onDevice(chosen.localModel, "\(chosen.reason); \(error.description)")
        decision.refusal = error
        return decision
    }
}

/// One need a brain cannot meet, with why.
enum Lack: Equatable {
    /// `size`: the request is over what the relay carries (its limits, not the brain's abilities).
    case tools(String), images(String), size(String)
    var isImages: Bool { if case .images = self { true } else { false } }
    var isSize: Bool { if case .size = self { true } else { false } }
    var text: String { switch self { case .tools(let s), .images(let s), .size(let s): s } }
}

extension [Lack] {
    var words: String { map(\.text).joined(separator: "; ") }
}

extension RequestNeeds {
    /// "request carries tools", "request carries an image", "request carries tools and an image".
    var words: String {
        switch (tools, images) {
        case (true, true): "request carries tools and an image"
        case (true, false): "request carries tools"
        default: "request carries an image"
        }
    }
}

extension RouteDecision {
    /// The same decision with `prefix` before and `suffix` after its reason.
    func noting(_ prefix: String, then suffix: String) -> RouteDecision {
        var copy = self
        copy.reason = prefix + reason + suffix
        return copy
    }
}

/// The provider of a refused request: fails with the refusal, sends nothing anywhere.
struct RefusedProvider: ChatProvider {
    let refusal: RoutingError
    var brain: BrainKind { .floor }
    func stream(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, Error> {
        AsyncThrowingStream { $0.finish(throwing: refusal) }
    }
}
