import Foundation
import Routing
import Signing
import Wire

/// The away marks of hosts that said they went to sleep, in `DATA-DIR/away.json` (one entry
/// per host, the newest; at most `limit` hosts): read by the router for its reason's words
/// (`status`, `status --explain`), written by the mail handler. Rewritten whole through a
/// temporary file and a rename (`JSONListFile`), like `CooldownFile`.
public final class AwayFile: AwaySource {
    public let path: String
    let limit = 64
    private let file: JSONListFile<AwayMark>

    public init(path: String) { self.path = path; file = JSONListFile(path: path) }

    public func away(of host: PublicKey) -> AwayMark? { read().first { $0.host == host.hex } }

    /// Verifies `message` by `sender` (it must name itself and be signed by its key) and keeps it.
    public func accept(_ message: AppMessage.Away, from sender: PublicKey, nowMs: Int64) -> Bool {
        guard message.hostKey.bytes == sender.bytes,
              sender.isValidSignature(message.signature.bytes, for: message.signedBytes()) else { return false }
        let mark = AwayMark(host: sender.hex, advertSequence: message.advertSequence,
                            sinceMs: Int64(clamping: message.sinceMs), receivedMs: nowMs)
        update { list in
            list.removeAll { $0.host == mark.host }
            list.append(mark)
            if list.count > limit { list.removeFirst(list.count - limit) }
        }
        return true
    }

    private func read() -> [AwayMark] { file.read() }

    private func update(_ change: (inout [AwayMark]) -> Void) { file.update(change) }
}
