import Foundation

/// A wished model as `guest status` and `guest models list` show it: downloading (with the
/// progress the store recorded), stopped (its fetcher died: the next guest start resumes it),
/// or failed (why, and how to retry).
public struct BackgroundDownload: Sendable, Equatable, Codable {
    public enum Phase: String, Sendable, Codable { case downloading, stopped, failed }

    public var id: String
    public var phase: Phase
    /// "42%" or "1.2 MB" when the store knows; nil before the first bytes.
    public var progress: String?
    /// ISO 8601, when the wish was recorded.
    public var since: String
    public var selectWhenReady: Bool
    public var log: String
    public var failure: String?
    /// The command that retries a failed download.
    public var retry: String?

    /// One line for people.
    public var line: String {
        let select = selectWhenReady ? "; selected when ready" : ""
        switch phase {
        case .downloading:
            return "\(id): downloading in the background since \(since)\(progress.map { ", \($0)" } ?? "")\(select); log: \(log)"
        case .stopped:
            return "\(id): background download stopped\(progress.map { " at \($0)" } ?? "")\(select); the next guest chat, "
                + "serve or status resumes it; log: \(log)"
        case .failed:
            return "\(id): background download failed: \(failure ?? "unknown"); retry: \(retry ?? "")\(select); log: \(log)"
        }
    }
}

extension ModelStore {
    /// Every wish, as it stands now.
    public func backgroundDownloads() -> [BackgroundDownload] {
        let stamp = ISO8601DateFormatter()
        return ((try? wanted()) ?? []).map { w in
            let phase: BackgroundDownload.Phase = w.failure != nil ? .failed
                : FetchLock.isHeld(fetchLockPath(w.id)) ? .downloading : .stopped
            var progress: String?
            if case let .downloading(p)? = try? state(w.id), p.received > 0 {  // recorded every `progressStep` bytes
                progress = p.fraction.map { "\(Int(($0 * 100).rounded(.down)))% of \(ProgressFormatter.bytes(p.total ?? 0))" }
                    ?? ProgressFormatter.bytes(p.received)
            }
            return BackgroundDownload(id: w.id, phase: phase, progress: progress,
                                      since: stamp.string(from: Date(timeIntervalSince1970: TimeInterval(w.since))),
                                      selectWhenReady: w.selectWhenReady, log: fetchLogPath, failure: w.failure,
                                      retry: w.failure == nil ? nil : "guest models pull \(w.id)")
        }
    }
}
