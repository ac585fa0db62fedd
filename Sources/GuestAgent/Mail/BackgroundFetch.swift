import Foundation
import ModelStore
import OnDeviceEngine

/// Downloads a wished model outside the process that wished it: the wish is a row of the model
/// store (`ModelStore.want`), the download runs in a detached `guest models fetch-wanted ID`
/// (its own session, output to `model-downloads.log`), which holds the model's `FetchLock`,
/// selects the model once ready (unless a newer choice replaced the wish) and clears the row.
/// A one-shot `guest chat` that received a sibling's choice can exit at once: the download goes on.
///
/// Every later guest start (`resume()`) restarts a wish that is neither ready nor being fetched
/// (its fetcher was killed, the machine rebooted); a failed one waits for `guest models pull ID`.
public struct BackgroundFetch: Sendable {
    /// The guest executable the fetcher runs: `$HOMEBASE_GUEST_BINARY` (tests running in-process),
    /// else this process when it is the guest.
    public static let binaryVariable = "HOMEBASE_GUEST_BINARY"

    let context: GuestContext
    var store: ModelStore { context.modelStore }

    public init(_ context: GuestContext) { self.context = context }

    /// Records the wish for `id` and starts its download unless one runs already.
    public func want(_ id: String, select: Bool) {
        do {
            try store.want(id, select: select)
        } catch {
            return context.log.write("model choice: cannot record the wish for \(id): \(error)")
        }
        start(id)
    }

    /// Restarts every wish that is not failed, not ready and not being fetched; fulfils one that
    /// became ready meanwhile (a fetcher killed between the download and the selection).
    public func resume() {
        for w in (try? store.wanted()) ?? [] where w.failure == nil {
            if (try? store.state(w.id)) == .ready {
                if (try? store.fulfilWish(w.id)) == true { context.log.write("model choice: \(w.id) is ready: selected") }
                continue
            }
            start(w.id)
        }
    }

    /// Spawns the fetcher for `id` unless its lock is held. Two starts racing both spawn; the
    /// second fetcher finds the lock taken and leaves at once.
    func start(_ id: String) {
        guard !FetchLock.isHeld(store.fetchLockPath(id)) else { return }
        guard let binary = Self.binary(context.configuration.environment) else {
            return context.log.write("model choice: no guest executable to download \(id) in the background")
        }
        var arguments = ["models", "fetch-wanted", id, "--data-dir", context.paths.dataDirectory]
        if let engine = context.configuration.llamaServer { arguments += ["--llama-server", engine] }
        do {
            let child = try ChildProcess.spawn(binary, arguments, logPath: store.fetchLogPath,
                                               environment: context.configuration.environment, newSession: true)
            context.log.write("model choice: downloading \(id) in the background (pid \(child.pid), log \(store.fetchLogPath))")
            Self.reapWhenDone(child)
        } catch {
            context.log.write("model choice: cannot start the download of \(id): \(error)")
        }
    }

    /// A long-lived parent (`guest serve`) must not keep a zombie: poll until the child exits.
    /// A short-lived one exits first, and the child is re-parented.
    static func reapWhenDone(_ child: ChildProcess, every poll: Duration = .seconds(1)) {
        Task.detached {
            while child.isRunning { try? await Task.sleep(for: poll) }
        }
    }

    static func binary(_ environment: [String: String]) -> String? {
        if let path = environment[binaryVariable], !path.isEmpty { return path }
        guard let me = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"),
              (me as NSString).lastPathComponent == "guest" else { return nil }
        return me
    }
}
