import Foundation
@testable import HomebaseAgent
@testable import homebase
import Sealing
import Testing
@testable import Transport

/// `homebase status --serve` answers `/metrics` with the store's usage (#21: "the same figures
/// on /metrics"), from a real SQLite store.
@Suite struct StatusMetricsTests {
    @Test func metricsCarryTheStoresUsage() throws {
        let files = HostFiles(dataDir: try temporaryDirectory("metrics"))
        let store = try files.openStore()
        let friend = try DeviceIdentity.generate(name: "f", now: 1).signingKey.publicKey
        try store.recordUsage(requester: friend, own: false, model: "tiny", day: "2026-12-02", tokensIn: 7, tokensOut: 3)
        store.close()
        let request = HTTPRequest(method: "GET", target: "/metrics", version: "HTTP/1.1",
                                  headers: HTTPHeaders([("Host", "127.0.0.1:1")]), body: [])
        let response = StatusPage.answer(request, files)
        let body = String(decoding: response.body, as: UTF8.self)
        #expect(response.status.code == 200, "\(body)")
        #expect(body.contains("homebase_usage_tokens_in_total{device=\"\(friend.hex.prefix(16))\""))
        #expect(body.contains("model=\"tiny\"} 7\n"))
    }
}
