import Foundation

/// A one-line progress bar for the CLI: bar, percent, bytes, speed and ETA.
///
/// `[##########----------]  50%  1.2 GB / 2.4 GB  12.5 MB/s  ETA 1m36s`
/// Speed is smoothed (exponential, `smoothing` weight for the newest sample) so the ETA does
/// not jump with every chunk. Pure: the caller passes the clock.
public struct ProgressFormatter: Sendable {
    public var width: Int
    public var smoothing: Double
    private var last: (time: Double, bytes: Int64)?
    private var rate: Double?

    public init(width: Int = 20, smoothing: Double = 0.3) {
        self.width = width
        self.smoothing = smoothing
    }

    /// The line for `progress` at `time` (seconds, any monotonic origin).
    public mutating func line(_ progress: DownloadProgress, at time: Double) -> String {
        if let last, time > last.time {
            let sample = Double(progress.received - last.bytes) / (time - last.time)
            rate = rate.map { smoothing * sample + (1 - smoothing) * $0 } ?? sample
        }
        if last == nil || time > last!.time { last = (time, progress.received) }
        var parts: [String] = []
        if let f = progress.fraction {
            let filled = Int((f * Double(width)).rounded(.down))
            parts.append("[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "]")
            parts.append(String(format: "%3d%%", Int((f * 100).rounded(.down))))
            parts.append("\(Self.bytes(progress.received)) / \(Self.bytes(progress.total ?? 0))")
        } else {
            parts.append(Self.bytes(progress.received))
        }
        if let rate, rate > 0 {
            parts.append("\(Self.bytes(Int64(rate)))/s")
            if let total = progress.total, total >= progress.received {
                parts.append("ETA " + Self.duration(Double(total - progress.received) / rate))
            }
        }
        return parts.joined(separator: "  ")
    }

    /// Decimal units, as disk sizes are sold: `473 KB`, `1.2 GB`.
    public static func bytes(_ n: Int64) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var v = Double(n)
        var i = 0
        while v >= 1000 && i < units.count - 1 {
            v /= 1000
            i += 1
        }
        if i == 0 { return "\(n) B" }
        return (v < 10 ? String(format: "%.1f", v) : String(format: "%.0f", v)) + " " + units[i]
    }

    /// `45s`, `2m05s`, `1h02m`.
    public static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "?" }
        let s = Int(seconds.rounded(.up))
        if s < 60 { return "\(s)s" }
        if s < 3600 { return String(format: "%dm%02ds", s / 60, s % 60) }
        return String(format: "%dh%02dm", s / 3600, (s % 3600) / 60)
    }
}
