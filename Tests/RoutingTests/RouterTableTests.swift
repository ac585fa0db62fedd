import Inference
import Routing
import Signing
import Testing
import Wire

/// Every combination of radio × dropdown × selection × keys × local endpoint × own advert ×
/// joined record × role × local preference (374,400 cases), checked against `TableCase.expected`
/// and against invariants that hold whatever the expected function says.
@Suite struct RouterTableTests {
    @Test(arguments: Radio.allCases)
    func everyCombination(radio: Radio) {
        var checked = 0, failures = 0
        for dropdown in Dropdown.allCases { for selection in Selection.allCases { for keys in KeysOnFile.allCases {
            for endpoint in Endpoint.allCases { for own in OwnAdvert.allCases { for joined in JoinedCase.all {
                for onHomebase in [false, true] { for pref in [false, true] {
                    let c = TableCase(radio: radio, dropdown: dropdown, selection: selection, keys: keys,
                                      endpoint: endpoint, own: own, joined: joined, onHomebase: onHomebase,
                                      localPreference: pref)
                    checked += 1
                    if !check(c) {
                        failures += 1
                        if failures > 20 { return }  // enough to diagnose; do not flood the log
                    }
                }}
            }}}
        }}}
        #expect(checked == 5 * 5 * 4 * 3 * 4 * 13 * 2 * 2)
    }

    /// Checks one case; records an issue and returns false on any mismatch.
    func check(_ c: TableCase) -> Bool {
        let facts = Self.facts(c)
        let decision = facts.router().resolve()
        let (route, shape) = c.expected
        var ok = true
        func fail(_ what: String) {
            ok = false
            Issue.record("\(what) — \(c) — got \(decision)")
        }
        let family = Self.family(decision.route)
        if family != route { fail("route \(decision.route), expected \(route)") }
        if Self.shape(decision.route) != shape { fail("shape \(decision.route), expected \(String(describing: shape))") }
        if decision.reason.isEmpty { fail("empty reason") }
        if family == .onDevice && decision.localModel != c.expectedLocalModel { fail("local model") }
        if family == .onDevice && decision.route != .onDevice(decision.localModel) { fail("on-device route carries another model") }
        if family == .external && decision.model != TableFixture.tag { fail("external model must be the selected tag") }
        if !facts.factory.builds.isEmpty { fail("resolve() built a provider") }

        // Invariants, independent of `expected`: never a cloud route the user did not choose.
        if decision.route.brain == .openAI {
            let chosen = (c.radio == .external && c.dropdown == .openai) || c.radio == .legacyOpenAI || c.radio == .unset
            if !(chosen && c.openAIKey) { fail("OpenAI not chosen or no key") }
        }
        if decision.route.brain == .anthropic && !(c.radio == .external && c.dropdown == .claude && c.anthropicKey) {
            fail("Claude not chosen or no key")
        }
        // Every missing prerequisite → on-device.
        switch decision.route {
        case .joinedHomebase:
            if !(c.joined.state == .joined && c.joined.fresh && c.joined.hasModels) { fail("joined prerequisites") }
        case .ownHomebase:
            if c.onHomebase || c.own != .fresh { fail("own Homebase prerequisites") }
        case .localEndpoint:
            if c.endpoint != .servesTag { fail("local endpoint prerequisites") }
        case .onDevice, .cloud:
            break
        }
        // What a request carries never moves it toward a cloud the user did not choose (#23):
        // the table's adverts and endpoint claim no tools or vision, so a request with tools stays
        // with a chosen cloud or goes on-device, and one with an image stays with a chosen cloud
        // or is refused (the built-in on-device model cannot see).
        let tools = facts.router().decide(RequestNeeds(tools: true))
        let cloud = family == .openAI || family == .anthropic
        if tools.refusal != nil || Self.family(tools.route) != (cloud ? family : .onDevice) { fail("tools: \(tools)") }
        let image = facts.router().decide(RequestNeeds(images: true))
        if cloud ? (image.route != decision.route || image.refusal != nil) : image.refusal == nil { fail("image: \(image)") }
        // The provider follows the decision.
        let provider = facts.router().provider(model: "caller-model")
        if provider.decision.route != decision.route { fail("provider route \(provider.decision.route)") }
        if provider.brain != Self.brain(decision) { fail("provider brain \(provider.brain)") }
        return ok
    }

    static func family(_ route: Route) -> Family {
        switch route {
        case .onDevice: .onDevice
        case .joinedHomebase, .localEndpoint, .ownHomebase: .external
        case .cloud(.openAI, _): .openAI
        case .cloud(.anthropic, _): .anthropic
        }
    }

    static func shape(_ route: Route) -> ExpectedShape? {
        switch route {
        case .joinedHomebase(let record, let tag): record.hostKey == TableFixture.joinedKey && tag == TableFixture.tag ? .joined : nil
        case .localEndpoint(let endpoint, let tag): endpoint.url == TableFixture.endpointURL && tag == TableFixture.tag ? .local : nil
        case .ownHomebase(_, let tag): tag == TableFixture.tag ? .own : nil
        case .onDevice, .cloud: nil
        }
    }

    static func brain(_ d: RouteDecision) -> BrainKind {
        switch d.route {
        case .onDevice: .onDevice
        case .cloud(.openAI, _): .openAI
        case .cloud(.anthropic, _): .anthropic
        case .joinedHomebase: .joinedHomebase
        case .localEndpoint: .localEndpoint
        case .ownHomebase: .ownHomebase
        }
    }

    /// The facts of one case, as raw stored strings and fake sources.
    static func facts(_ c: TableCase) -> FakeFacts {
        var f = FakeFacts(clock: FakeClock(TableFixture.now))
        let now = TableFixture.now
        f.settings.settings[.modelSource] = switch c.radio {
        case .unset: nil
        case .onDevice: "on-device"
        case .community: "community"
        case .external: "external"
        case .legacyOpenAI: "openai"
        case .garbage: "cloud-please"
        }
        f.settings.settings[.externalRuntime] = switch c.dropdown {
        case .unset: nil
        case .ollama: "ollama"
        case .openai: "openai"
        case .claude: "claude"
        case .garbage: "gemini"
        }
        if c.selection != .none { f.settings.settings[.ollamaModel] = TableFixture.tag }
        f.settings.settings[.ollamaHost] = switch c.selection {
        case .none, .tagOnly: nil
        case .ownTag: "own"
        case .hostTag: TableFixture.joinedKey.hex
        case .corruptHostTag: String(TableFixture.joinedKey.hex.dropLast())  // 63 hex digits
        }
        f.settings.settings[.openAIModel] = "gpt-test"
        if c.localPreference { f.settings.settings[.localModel] = TableFixture.preferredModel }
        f.keys.present = switch c.keys {
        case .none: []
        case .openai: [.openAI]
        case .anthropic: [.anthropic]
        case .both: [.openAI, .anthropic]
        }
        f.endpoint.endpoint = switch c.endpoint {
        case .none: nil
        case .servesTag: LocalEndpoint(url: TableFixture.endpointURL, models: ["other:1b", TableFixture.tag])
        case .lacksTag: LocalEndpoint(url: TableFixture.endpointURL, models: ["other:1b"])
        }
        let ownKey = Bytes32.repeating(7)
        func advert(age: Int64, tags: [String]) -> ReceivedAdvert {
            ReceivedAdvert(advert: AppMessage.Advert(hostKey: ownKey, sequence: 1, timestampMs: UInt64(now),
                                                     models: tags.map { model($0) }), receiptMs: now - age)
        }
        f.own.advert = switch c.own {
        case .absent: nil
        case .fresh: advert(age: 2 * minute, tags: [TableFixture.tag])
        case .stale: advert(age: 14 * minute, tags: [TableFixture.tag])
        case .empty: advert(age: 2 * minute, tags: [])
        }
        if c.joined.state != .absent {
            let state: JoinedHomebase.State = switch c.joined.state {
            case .invited, .absent: .invited
            case .joined: .joined
            case .revoked: .revoked
            }
            f.joined.records[TableFixture.joinedKey] = JoinedHomebase(
                hostKey: TableFixture.joinedKey, hpkeKey: [UInt8](repeating: 9, count: 32), relayURL: "wss://relay.friend.example",
                state: state, models: c.joined.hasModels ? ["mistral:7b"] : [],
                lastHeardMs: now - (c.joined.fresh ? 3 * hour : 25 * hour))
        }
        f.homebaseKey = c.onHomebase ? TableFixture.homebaseKey : nil
        return f
    }
}
