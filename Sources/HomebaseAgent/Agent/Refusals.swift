import Courier

extension HostStatus {
    /// Messages the running agent refused since it started, by why (counts only, never who or what).
    public struct Refused: Codable, Sendable, Equatable {
        /// Seen before, or stamped outside the accepted time (replay rules).
        public var replays = 0
        /// Did not open: damaged, or not sealed for this Homebase by the device it names.
        public var openFailures = 0
        /// From a device this Homebase does not serve (not in the roster, no grant in force).
        public var unknownSenders = 0
        /// Parts of long messages over their sender's room for half-received messages.
        public var partsOverBudget = 0
        /// First-contact messages over their sender's rate.
        public var introductionsLimited = 0
        /// Not checked: the replay store failed (kept at the relay for a retry).
        public var replayStoreFailures = 0

        public init() {}

        init(_ s: CourierStats) {
            replays = s.replays; openFailures = s.openFailed; unknownSenders = s.droppedUnknownSender
            partsOverBudget = s.partsOverBudget; introductionsLimited = s.introductionsLimited
            replayStoreFailures = s.replayStoreFailures
        }

        /// One line for `homebase status`, in words a user understands.
        package var line: String {
            let items = [
                (replays, "replayed or out-of-time (a copy of an earlier message, or a clock far off)"),
                (openFailures, "could not be opened (damaged, or not sealed for this Homebase)"),
                (unknownSenders, "from devices this Homebase does not serve (removed, revoked or expired)"),
                (partsOverBudget, "parts of long messages over their sender's share"),
                (introductionsLimited, "first contacts over their sender's rate"),
                (replayStoreFailures, "left at the relay for later: the replay store could not check them"),
            ].filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
            return "messages refused since start: " + (items.isEmpty ? "none" : items.joined(separator: "; "))
        }
    }
}
