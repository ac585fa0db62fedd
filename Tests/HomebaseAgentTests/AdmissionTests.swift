import Inference
import Sealing
import Signing
import Testing
import Wire
@testable import HomebaseAgent

/// The admission decision without sockets: who, well-formedness, model, conversation.
struct AdmissionTests {
    let sibling = try! DeviceIdentity.generate(name: "laptop", now: 1)
    let friend = try! DeviceIdentity.generate(name: "friend", now: 1)
    var catalog: ModelCatalog {
        ModelCatalog(runtimes: [StoredRuntime(url: "http://e", kind: .ollama, version: nil, available: true,
                                              models: [RuntimeModel(tag: "m"), RuntimeModel(tag: "n")],
                                              addedMs: 0, verifiedMs: 0, checkedMs: 0, lastError: nil)])
    }

    func decide(_ r: AppMessage.Request, from who: DeviceIdentity, grants: [GrantRecord] = []) -> AppMessage.ErrorCode? {
        var replica = ConversationMemory(capacity: 4), cache = ConversationMemory(capacity: 4)
        let view = AdmissionView(siblings: [sibling.signingKey.publicKey],
                                 grants: Dictionary(grouping: grants, by: { $0.grantee.signingKey }), catalog: catalog, nowMs: 1000)
        switch Admission.decide(r, from: who.signingKey.publicKey, view: view, replica: &replica, cache: &cache) {
        case .serve(let plan):
            #expect(plan.runtimeURL == "http://e")
            return nil
        case .refuse(let e):
            #expect(e.requestID == r.requestID)
            return e.code
        }
    }

    func grant(_ models: [String], revoked: Bool = false, expiresMs: Int64 = 0) -> GrantRecord {
        GrantRecord(grantID: .random(), grantee: friend.record, models: models, expiresMs: expiresMs, revoked: revoked, createdMs: 0)
    }

    @Test func siblingsAndGranteesAreTold() {
        #expect(decide(request("m"), from: sibling) == nil)
        #expect(decide(request("m"), from: sibling, grants: []) == nil)
        #expect(decide(request("m"), from: friend) == .revoked)
        #expect(decide(request("m"), from: friend, grants: [grant(["m"], revoked: true)]) == .revoked)
        #expect(decide(request("m"), from: friend, grants: [grant(["m"], expiresMs: 999)]) == .revoked)
        #expect(decide(request("m"), from: friend, grants: [grant(["n"]), grant(["m"], revoked: true)]) == .modelUnavailable)
        #expect(decide(request("m"), from: friend, grants: [grant(["n"]), grant(["m"])]) == nil)
    }

    @Test func malformedThenModelThenConversation() {
        #expect(decide(request("m", messages: []), from: sibling) == .badRequest)
        #expect(decide(request("", messages: [.init(role: .user, content: "x")]), from: sibling) == .badRequest)
        #expect(decide(request("m", prefix: .repeating(1), inline: true), from: sibling) == .badRequest)
        #expect(decide(request("gone"), from: sibling) == .modelUnavailable)
        #expect(decide(request("m", prefix: .repeating(1)), from: sibling) == .diverged)
        #expect(decide(request("m", prefix: .repeating(1)), from: friend, grants: [grant(["m"])]) == .cacheMiss)
        #expect(decide(request("m", prefix: .repeating(1), messages: [.init(role: .user, content: "x")], inline: false),
                       from: friend, grants: [grant(["m"])]) == .cacheMiss)
    }

    @Test func engineFailuresMapToCodes() {
        #expect(Admission.code(for: .unreachable("x")) == .hostError)
        #expect(Admission.code(for: .http(status: 500, message: "")) == .hostError)
        #expect(Admission.code(for: .http(status: 400, message: "")) == .badRequest)
        #expect(Admission.code(for: .inBand("x")) == .hostError)
        #expect(Admission.code(for: .modelUnavailable("x")) == .modelUnavailable)
    }

    @Test func aGrantsRateIsASlidingMinute() {
        var w = RateWindow()
        let got = [w.admit(nowMs: 0, perMinute: 2), w.admit(nowMs: 10, perMinute: 2), w.admit(nowMs: 20, perMinute: 2),
                   w.admit(nowMs: 60_001, perMinute: 2),  // the first left the window
                   w.admit(nowMs: 60_005, perMinute: 2), w.admit(nowMs: 60_005, perMinute: 0)]  // 0: no limit
        #expect(got == [true, true, false, true, false, true])
    }
}
