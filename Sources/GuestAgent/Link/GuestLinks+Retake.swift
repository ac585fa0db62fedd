/// A guest command that had to link beside `guest serve` (`join`, `pair`, a synced setting)
/// replaced serve's link; when it exits it tells serve (SIGUSR1), which takes the link back at
/// once instead of after `--retake-after`.
extension GuestLinks {
    /// Starts again every link replaced by another guest command; returns their relays.
    @discardableResult
    public func retakeNow() -> [String] { retakeReplaced(after: .zero) }
}
