import Foundation
import ModelStore
import Synchronization

extension BackgroundFetch {
    /// The fetcher itself (`guest models fetch-wanted ID`, started by `start`): takes the model's
    /// lock or leaves (someone fetches it already), downloads the wished model through the
    /// store (resuming its `.part` files), then selects it when still wished and clears the wish.
    /// Lines go to stdout (the fetch log); the outcome also to `guest.log`. Returns the exit code.
    public func fetch(_ id: String, say: @escaping @Sendable (String) -> Void) async -> Int32 {
        let stamp: @Sendable () -> String = { ISO8601DateFormatter().string(from: Date()) }
        let lock: FetchLock?
        do { lock = try FetchLock.acquire(store.fetchLockPath(id)) } catch {
            say("\(stamp()) \(id): \(error)")
            return 1
        }
        guard let lock else {
            say("\(stamp()) \(id): already being downloaded by another process")
            return 0
        }
        defer { withExtendedLifetime(lock) {} }
        guard let wish = (try? store.wanted(id)) ?? nil else {
            say("\(stamp()) \(id): not wanted (any more): nothing to do")
            return 0
        }
        say("\(stamp()) \(id): downloading (pid \(getpid()))")
        let decile = DecileGate()
        do {
            let record = try await store.pull(repo: wish.repo, quant: wish.quant) { p in
                if let line = decile.pass(p) { say("\(stamp()) \(id): \(line)") }
            }
            guard record.id == id else {
                try? store.dropWish(id)
                say("\(stamp()) \(id): the hub has it as \(record.id): not selected")
                return 1
            }
            let selected = try store.fulfilWish(id)
            let outcome = selected ? "\(id) downloaded and selected" : "\(id) downloaded (a newer choice replaced it: not selected)"
            say("\(stamp()) \(outcome)")
            context.log.write("model choice: \(outcome)")
            return 0
        } catch {
            if (try? store.state(id)) == .absent {  // cancelled by the person (`guest models cancel`)
                try? store.dropWish(id)
                say("\(stamp()) \(id): cancelled")
                context.log.write("model choice: download of \(id) cancelled")
                return 1
            }
            try? store.recordWishFailure(id, "\(error)")
            say("\(stamp()) \(id): failed: \(error); retry: guest models pull \(id)")
            context.log.write("model choice: download of \(id) failed: \(error); retry: guest models pull \(id)")
            return 1
        }
    }
}

/// Lets one progress line through per tenth of the download (the log stays short).
final class DecileGate: Sendable {
    private let last = Mutex(-1)

    func pass(_ p: DownloadProgress) -> String? {
        guard let f = p.fraction else { return nil }
        let d = Int(f * 10)
        return last.withLock { last in
            guard d > last else { return nil }
            last = d
            return "\(d * 10)% of \(ProgressFormatter.bytes(p.total ?? 0))"
        }
    }
}
