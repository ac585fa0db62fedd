import Foundation
@testable import Routing
import Testing

@Suite struct FreshnessTests {
    @Test func durationsReadForPeople() {
        #expect(formatDuration(850) == "850 ms")
        #expect(formatDuration(42_000) == "42 s")
        #expect(formatDuration(14 * minute + 59_000) == "14 min")
        #expect(formatDuration(10 * minute) == "10 min")
        #expect(formatDuration(24 * hour) == "24 h")
    }

    @Test func gateBoundaries() {
        let limit = 10 * minute
        #expect(Freshness(receiptMs: 0, nowMs: limit - 1, limitMs: limit, toleranceMs: 0).isFresh)
        #expect(!Freshness(receiptMs: 0, nowMs: limit, limitMs: limit, toleranceMs: 0).isFresh)  // "younger than"
        #expect(Freshness(receiptMs: 100, nowMs: 0, limitMs: limit, toleranceMs: 100) == .fresh(ageMs: 0))
        #expect(Freshness(receiptMs: 101, nowMs: 0, limitMs: limit, toleranceMs: 100) == .fromTheFuture(aheadMs: 101))
    }

    @Test func receiptTimeSubtractsHeldAndSaturates() {
        #expect(receiptTime(nowMs: 10_000, heldMs: 4_000) == 6_000)
        #expect(receiptTime(nowMs: 0, heldMs: .max) == -Int64.max)
    }

    @Test func loopbackEndpoints() {
        for url in ["http://127.0.0.1:11434", "http://localhost:8080/v1", "https://[::1]:443", "http://127.1.2.3",
                    "HTTP://LOCALHOST"] {
            #expect(LocalEndpoint(url: url, models: []).isLoopback, "\(url)")
        }
        for url in ["http://192.168.1.2:11434", "http://127.0.0.1.evil.example", "http://user@127.0.0.1",
                    "ftp://127.0.0.1", "127.0.0.1:11434", "http://[::2]", "http://localhost.example", "http://1270.0.0.1"] {
            #expect(!LocalEndpoint(url: url, models: []).isLoopback, "\(url)")
        }
    }
}

/// resolve() cannot reach a network: the module's sources import nothing that could.
@Suite struct NoNetworkTests {
    @Test func routingImportsNoNetworkingModule() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources/Routing").standardized
        let files = try FileManager.default.contentsOfDirectory(atPath: sources.path).filter { $0.hasSuffix(".swift") }
        #expect(files.contains("Router.swift"))
        var imports = Set<String>()
        for file in files {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") where line.hasPrefix("import ") || line.contains(" import ") {
                imports.insert(String(line.split(separator: " ").last!))
            }
        }
        #expect(imports.isSubset(of: ["Basics", "Glibc", "Inference", "Signing", "Storage", "Wire"]), "\(imports.sorted())")
    }
}
