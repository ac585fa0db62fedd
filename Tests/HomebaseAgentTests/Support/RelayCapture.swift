import Courier
import Foundation
import PeerLink
import Testing
import Wire
@testable import HomebaseAgent

/// One exchange between a real Homebase agent and a guest device through a real relay, with
/// bench/sidechannel/capture.py (a loopback proxy recording each WebSocket message's size and
/// time, never its content) between the relay and both devices: what the relay sees.
enum RelayCapture {
    struct Frame: Decodable { let c: Int; let d: String; let op: Int; let n: Int; let t: Double }

    /// One answer through the capture: the guest connection's binary frames down (`down`) and
    /// up (`guestUp`), the host's up (`up`), as WebSocket message sizes.
    static func run(_ level: ReplyShaping, requestShaping: RequestShaping = .off,
                    request ask: AppMessage.Request = request("scripted")) async throws
        -> (answer: Answer, down: [Int], up: [Int], guestUp: [Int]) {
        let proxyPort = try freePort()
        let proxyURL = "ws://127.0.0.1:\(proxyPort)/v1/connect"
        let trace = try temporaryDirectory("homebase") + "/frames.jsonl"
        let f = try await HostFixture(runtime: (try ScriptedEngine.url("ok"), ["scripted"]), sibling: false,
                                      relayConfig: { $0.origin = "ws://127.0.0.1:\(proxyPort)" }) { c in
            c.link = try! PeerLink.Configuration(relayURL: proxyURL)
            c.link.backoff = .init(initial: .milliseconds(20), maximum: .milliseconds(200))
            c.replyShaping = level
            c.cadenceInterval = .milliseconds(5)
            c.cadenceMinDuration = .milliseconds(100)  // a floor of 20 ticks: not a power of two
            c.shapingBoundary = .milliseconds(5)
        }
        let proxy = Process()
        // No inherited stdout: a proxy left behind (a crashed test) held swift test's pipe and
        // the whole run waited for it.
        proxy.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        proxy.arguments = ["python3", packageRoot.appendingPathComponent("bench/sidechannel/capture.py").path,
                           "\(proxyPort)", "\(f.relay.port)", trace]
        proxy.standardOutput = FileHandle.nullDevice
        proxy.standardError = FileHandle.nullDevice
        try proxy.run()
        defer { proxy.terminate() }  // (not waitUntilExit: it never returned here)
        let guest = try GuestSide(relayURL: proxyURL, host: f.host, requestShaping: requestShaping)
        let store = try f.files.openStore()
        _ = try store.addDevice(guest.identity.record, accountKey: f.accountKey, nowMs: nowMs())
        store.close()
        try f.agent.reload()
        f.agent.start()
        // The host's link first: it is the capture's connection 1 (a dial the proxy never
        // accepted numbers none), the guest's comes after.
        try await eventually("host link connected") { f.agent.courier.link.state.isConnected }
        try await guest.start()
        let hostConnection = 1
        let (_, answer) = await guest.ask(ask, to: f.host)
        func frames() -> [Frame] {
            ((try? String(contentsOfFile: trace, encoding: .utf8)) ?? "").split(separator: "\n")
                .compactMap { try? JSONDecoder().decode(Frame.self, from: Data($0.utf8)) }.filter { $0.op == 2 }
        }
        // The capture writes a message after forwarding it: wait until it logged every chunk.
        try await eventually("the capture logged the answer") {
            let down = frames().filter { $0.c != hostConnection && $0.d == "down" }
            return Dictionary(grouping: down, by: \.n).values.map(\.count).max() ?? 0 >= answer.chunks
        }
        let all = frames()
        guest.stop()
        await f.agent.stop()  // (the fixture's own guest never started: not `f.stop()`)
        f.relay.stop()
        return (answer, all.filter { $0.c != hostConnection && $0.d == "down" }.map(\.n),
                all.filter { $0.c == hostConnection && $0.d == "up" }.map(\.n),
                all.filter { $0.c != hostConnection && $0.d == "up" }.map(\.n))
    }
}
