import Foundation
import Routing
import Signing

/// The guest's cooldowns, in `DATA-DIR/cooldowns.json`: a file, not memory, because each
/// `guest chat` is its own process and the next one should not pay the same wait again;
/// `guest serve` reads the same file at every request, so its requests share it too. Each entry
/// expires (`length`, default 60 s): then the next request is the probe. Small (one entry per
/// host), rewritten whole through a temporary file and a rename.
public final class CooldownFile: CooldownSource {
    public let path: String
    public let length: Duration
    private let file: JSONListFile<Cooldown>

    public init(path: String, length: Duration = .seconds(60)) {
        self.path = path; self.length = length; file = JSONListFile(path: path)
    }

    public func cooldown(of host: PublicKey, nowMs: Int64) -> Cooldown? {
        read().first { $0.host == host.hex && $0.untilMs > nowMs }
    }

    /// Every cooldown in force at `nowMs` (for `status`).
    public func current(nowMs: Int64) -> [Cooldown] { read().filter { $0.untilMs > nowMs } }

    /// `host` failed in a way that says it is gone or silent (`BrainFailure.coolsDown`): cool it
    /// down from now. The file keeps the failure's words, for `status` and the route's reason.
    public func record(_ host: PublicKey, because failure: BrainFailure, nowMs: Int64) {
        let because = failure.description
        let until = nowMs + Int64(length.components.seconds) * 1000 + Int64(length.components.attoseconds / 1_000_000_000_000_000)
        update { list in
            list.removeAll { $0.host == host.hex || $0.untilMs <= nowMs }
            list.append(Cooldown(host: host.hex, sinceMs: nowMs, untilMs: until, because: because))
        }
    }

    /// `host` answered: it is heard from again.
    public func clear(_ host: PublicKey) {
        guard read().contains(where: { $0.host == host.hex }) else { return }
        update { $0.removeAll { $0.host == host.hex } }
    }

    private func read() -> [Cooldown] { file.read() }

    private func update(_ change: (inout [Cooldown]) -> Void) { file.update(change) }
}
