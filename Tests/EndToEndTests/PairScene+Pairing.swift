import Foundation
import Testing

/// The pairing cases' common moves on a `PairScene`.
extension PairScene {
    /// A scene without an engine whose Homebase is initialised and connected: where most
    /// pairing cases start. A failed step stops what started.
    static func withRunningHomebase() throws -> PairScene {
        let s = try PairScene(engine: false)
        do {
            _ = try s.initHost()
            try s.startHost()
            return s
        } catch {
            s.stop()
            throw error
        }
    }

    /// A fresh code from `homebase pair --no-wait` (the Homebase must be running).
    func homebaseCode() throws -> String {
        try code(try homebase(["pair", "--relay", relay, "--no-wait"]))
    }

    /// Pairs `name` with a code from `homebase pair` (the Homebase must be running).
    func pairFromHomebase(_ name: String) throws {
        let out = try guest(name, ["pair", try homebaseCode(), "--name", name, "--wait", "30s"])
        #expect(out.contains("confirmation: "), "\(out)")
    }

    /// "phone" pairs with `code`, which the laptop's `guest pair` (`asking`, printing to
    /// `laptop-pair.log`) asked the Homebase for: the laptop then exits 0 naming the phone, with
    /// the phone's confirmation. Returns that confirmation.
    @discardableResult
    func phoneJoins(askedFor code: String, by asking: Process) throws -> String {
        let joined = try guest("phone", ["pair", code, "--name", "phone", "--wait", "30s"])
        let confirmation = String(try field(joined, "confirmation: ").prefix(9))
        try procs.waitUntil(60, "the laptop to see the phone join") { !asking.isRunning }
        let laptop = procs.read("laptop-pair.log")
        #expect(asking.terminationStatus == 0, "\(laptop)")
        #expect(laptop.contains("paired \"phone\""), "\(laptop)")
        #expect(try field(laptop, "confirmation: ").hasPrefix(confirmation), "\(laptop)\n\(joined)")
        return confirmation
    }
}
