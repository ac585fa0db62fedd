import Courier
import Inference
import Routing
import Signing

/// The Homebases as this guest reaches them over the relay (the relay side of the two Homebase
/// routes): the Couriers, host directory, ledger and watchdog limits `GuestLinks.open` links
/// into the guest's one factory (`GuestBrains.linkRelay`), which builds `.ownHomebase` and
/// `.joinedHomebase` (and their embedders) from them. Never fails: a host it cannot reach fails
/// in its stream, and the caller falls back on-device.
public struct RelayedHomebases: Sendable {
    let courier: Courier
    let directory: (any DeviceDirectory)?
    let joinedCourier: (@Sendable (JoinedHomebase) -> Courier?)?
    public let ledger: any ConversationLedger
    public let limits: WatchdogLimits
    let log: (@Sendable (String) -> Void)?

    /// - Parameters:
    ///   - courier: the link to this account's relay.
    ///   - directory: host records (default: the Courier's directory).
    ///   - joinedCourier: the link to the relay a joined Homebase lives on (its invite named
    ///     it); nil, or a nil answer, uses `courier`.
    ///   - ledger: what each host is believed to hold; shared by every provider built here.
    public init(courier: Courier, directory: (any DeviceDirectory)? = nil,
                joinedCourier: (@Sendable (JoinedHomebase) -> Courier?)? = nil,
                ledger: any ConversationLedger = InMemoryConversationLedger(),
                limits: WatchdogLimits = WatchdogLimits(), log: (@Sendable (String) -> Void)? = nil) {
        self.courier = courier; self.directory = directory; self.joinedCourier = joinedCourier
        self.ledger = ledger; self.limits = limits; self.log = log
    }

    /// Our own account's Homebase: the host named by the advert.
    public func ownHomebase(advert: ReceivedAdvert) -> any ChatProvider {
        return HomebaseProvider(kind: .own, hostKey: advert.advert.hostKey, courier: courier,
                                directory: directory, ledger: ledger, limits: limits, log: log)
    }

    /// Another account's Homebase this device joined.
    public func joinedHomebase(record: JoinedHomebase) -> any ChatProvider {
        HomebaseProvider(kind: .joined, hostKey: record.hostKey, courier: joinedCourier?(record) ?? courier,
                         directory: directory, ledger: ledger, limits: limits, log: log)
    }
}
