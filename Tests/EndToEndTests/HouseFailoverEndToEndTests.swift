import Foundation
import Testing

/// #21 point 3, a failing runtime: of two llama-servers on one model, the first starts answering
/// 503 (its tap told to fail). The request that meets it is answered on the laptop's own device;
/// the Homebase marks that runtime failed, so the next requests go to the other one (before,
/// only an unreachable engine was skipped: a 5xx one kept getting every other tie). Once the
/// engine is well and verified again (`homebase runtime add`), it serves again.
@Suite(.serialized) struct HouseFailoverEndToEndTests {
    @Test func aRuntimeAnswering5xxIsSkippedUntilItVerifiesAgain() throws {
        var h = try HouseScene(engines: 2)
        defer { h.s.stop() }
        try h.startHost()
        try h.pairLaptop()
        try h.s.procs.waitUntil(60, "the laptop to hold the Homebase's advert") {
            (try h.s.guestRun("laptop", ["status", "--relay-wait", "3s"])).out.contains("tiny")
        }
        func ask(_ i: Int) throws -> String {
            let r = try h.s.guestRun("laptop", ["chat", "--max-tokens", "8"] + h.chat + ["failover question \(i)"])
            return try AnswerLine(r.out).brain
        }
        #expect(try ask(0) == "homebase")
        let before = (h.tapped(0).count, h.tapped(1).count)
        #expect(before == (1, 0), "the first runtime answers a lone request: \(before)")

        #expect(FileManager.default.createFile(atPath: h.failFile(0), contents: Data()))
        var brains: [String] = []
        for i in 1...3 { brains.append(try ask(i)) }
        #expect(brains.first == "on-device", "the 503 is answered on-device: \(brains)")
        #expect(brains.dropFirst().allSatisfy { $0 == "homebase" }, "\(brains)\n\(h.s.procs.read("homebase.log").suffix(3000))")
        #expect(h.tapped(0).count == 1 && h.tapped(1).count == 2, "\(h.tapped(0).count) + \(h.tapped(1).count)")
        #expect(try h.s.homebase(["status"]).contains("failed"), "status names the failed runtime")

        // Well again and verified: it takes requests again (the earlier runtime first on a tie).
        try FileManager.default.removeItem(atPath: h.failFile(0))
        try h.s.procs.waitUntil(60, "homebase runtime add of the mended runtime") {
            (try? h.s.run(h.s.bin.path("homebase"), h.s.hostArgs + ["runtime", "add", h.url[0]]))?.status == 0
        }
        try h.s.procs.waitUntil(60, "the mended runtime to serve again") {
            _ = try ask(9)
            return h.tapped(0).count > 1
        }
    }
}
