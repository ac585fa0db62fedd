import Foundation
import Testing

/// `guest devices` with two Homebases in the account, real processes on a real relay: the
/// second workstation (joined with `homebase pair CODE`) shows as a Homebase too, not as a plain
/// device, and the one this guest routes to says "in use".
@Suite(.serialized) struct DevicesHomebasesEndToEndTests {
    @Test func aSecondWorkstationIsListedAsAHomebase() throws {
        let s = try PairScene.withRunningHomebase()
        defer { s.stop() }
        let second = ["--data-dir", s.procs.work + "/second", "--config", s.procs.work + "/second.conf"]
        let code = try s.homebaseCode()
        let joined = try s.run(s.bin.path("homebase"), second + ["pair", code, "--name", "second", "--wait", "30s"])
        #expect(joined.status == 0, "\(joined.err)")
        let laptopCode = try s.homebaseCode()
        try s.guest("laptop", ["pair", laptopCode, "--name", "laptop", "--wait", "30s"])
        // The second Homebase runs (after the laptop joined: its pulse reaches it).
        try s.procs.start(s.bin.path("homebase"), second + ["run", "--reload-interval", "100ms", "--advert-pulse", "1s",
                                                          "--default-runtime", "http://127.0.0.1:1"], log: "second.log")
        var listed = ""
        try s.procs.waitUntil(60, "the second Homebase listed as one") {
            listed = try s.guest("laptop", ["devices", "--relay-wait", "3s"])
            return listed.contains("second  (Homebase)")
        }
        #expect(listed.contains("e2e-homebase  (Homebase, in use)"), "\(listed)")
        #expect(listed.contains("laptop  (this device)"), "\(listed)")
        let json = try s.guest("laptop", ["devices", "--json", "--relay-wait", "3s"])
        #expect(json.contains("\"inUse\" : true") && json.contains("\"homebase\" : true"), "\(json)")
    }
}
