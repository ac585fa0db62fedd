import Routing
import Storage
import TestKit
import Testing

@Suite struct SettingsStoreTests {
    let dir: TempDir
    init() throws { dir = try TempDir("homebase-routing") }

    func store() throws -> SettingsStore {
        SettingsStore(database: try RoutingSchema.open(path: dir.path("routing.db")))
    }

    @Test func setStoresTheCanonicalFormAndPersists() throws {
        defer { dir.cleanup() }
        let s = try store()
        #expect(try s.get(.modelSource) == nil)
        #expect(try s.set(named: "model.source", "  External ") == "external")
        #expect(try s.set(.modelSource, "onDevice") == "on-device")
        #expect(try s.set(named: "EXTERNAL.RUNTIME", "Claude") == "claude")
        let key = String(repeating: "aB", count: 32)
        #expect(try s.set(.ollamaHost, key) == key.lowercased())
        #expect(try s.set(.ollamaHost, "OWN") == "own")
        #expect(try s.set(.ollamaModel, "llama3.1:8b-instruct-q4_K_M") == "llama3.1:8b-instruct-q4_K_M")
        let reopened = try store()
        #expect(try reopened.get(named: "model.source") == "on-device")
        #expect(try reopened.routingSettings() == RoutingSettings([
            .modelSource: "on-device", .externalRuntime: "claude", .ollamaHost: "own",
            .ollamaModel: "llama3.1:8b-instruct-q4_K_M",
        ]))
        try reopened.unset(.ollamaHost)
        #expect(try reopened.get(.ollamaHost) == nil)
    }

    /// `engine.warm` (#24): on unless set off; only on and off are taken.
    @Test func engineWarmIsOnUnlessSetOff() throws {
        defer { dir.cleanup() }
        let s = try store()
        #expect(try s.routingSettings().warmFloor)
        #expect(SettingName.engineWarm.unsetMeans == "on")
        #expect(try s.set(named: "engine.warm", " OFF ") == "off")
        #expect(try !s.routingSettings().warmFloor)
        #expect(routingError { try s.set(.engineWarm, "sometimes") } == .invalidSettingValue(name: "engine.warm", expected: SettingName.engineWarm.expected))
        #expect(try s.set(.engineWarm, "on") == "on")
        #expect(try s.routingSettings().warmFloor)
    }

    @Test(arguments: [
        (SettingName.modelSource, "openai"),  // legacy: read, never written anew
        (.modelSource, ""),
        (.externalRuntime, "gemini"),
        (.ollamaHost, String(repeating: "a", count: 63)),
        (.ollamaHost, String(repeating: "g", count: 64)),
        (.ollamaModel, "two words"),
        (.localModel, ""),
        (.openAIModel, String(repeating: "m", count: 257)),
    ])
    func invalidInputIsRefusedWithoutEchoingIt(name: SettingName, value: String) throws {
        defer { dir.cleanup() }
        let s = try store()
        let error = routingError { try s.set(name, value) }
        #expect(error == .invalidSettingValue(name: name.rawValue, expected: name.expected))
        if let error, value.count > 3 { #expect(!error.description.contains(value)) }
        #expect(try s.get(name) == nil)
    }

    @Test func unknownNamesAreRefusedWithoutEchoingThem() throws {
        defer { dir.cleanup() }
        let s = try store()
        let pasted = "sk-proj-notarealkey0123456789"
        let error = routingError { try s.set(named: pasted, "x") }
        #expect(error == .unknownSetting)
        #expect(error.map { !$0.description.contains(pasted) } == true)
        #expect(routingError { _ = try s.get(named: "model") } == .unknownSetting)
    }

    @Test func rawValuesAreStoredAsTheyAreAndUnknownRowsIgnored() throws {
        defer { dir.cleanup() }
        let db = try RoutingSchema.open(path: dir.path("routing.db"))
        let s = SettingsStore(database: db)
        try s.setRaw(.modelSource, "openai")
        try s.setRaw(.ollamaHost, "not-a-key")
        try db.execute("INSERT INTO settings(name, value) VALUES ('future.setting', 'x')")
        #expect(try s.routingSettings() == RoutingSettings([.modelSource: "openai", .ollamaHost: "not-a-key"]))
    }

    @Test func anotherApplicationsDatabaseIsRefused() throws {
        defer { dir.cleanup() }
        let path = dir.path("other.db")
        _ = try Database(path: path, schema: Schema(applicationID: 0x4F54_4852, migrations: ["CREATE TABLE t(x);"]))
        guard case .storage(.foreignDatabase)? = routingError({ _ = try RoutingSchema.open(path: path) }) else {
            Issue.record("a foreign database was opened"); return
        }
    }
}
