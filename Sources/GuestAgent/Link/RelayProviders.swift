import Inference
import RelayRouting
import Routing
import Synchronization

/// The `RelayProviderMaker` a guest is built with: empty until `GuestLinks` open, then
/// RelayRouting's `HomebaseProviderFactory` over their Couriers (a joined Homebase's requests
/// over the link to its own relay). Empty, it fails at once
/// (`UnlinkedRelayProviders`) so the runner answers on-device.
public final class RelayProviderSlot: RelayProviderMaker {
    private let factory = Mutex<HomebaseProviderFactory?>(nil)
    private let unlinked = UnlinkedRelayProviders()

    public init() {}

    /// Installs (or, with nil, removes) the relay-routed factory.
    public func install(_ f: HomebaseProviderFactory?) { factory.withLock { $0 = f } }

    public var isLinked: Bool { factory.withLock { $0 != nil } }

    /// The installed factory (nil while unlinked): embeddings use its Couriers too.
    public var relayFactory: HomebaseProviderFactory? { factory.withLock { $0 } }

    public func ownHomebase(advert: ReceivedAdvert) -> any ChatProvider {
        factory.withLock { $0 }?.ownHomebase(advert: advert) ?? unlinked.ownHomebase(advert: advert)
    }

    public func joinedHomebase(record: JoinedHomebase) -> any ChatProvider {
        factory.withLock { $0 }?.joinedHomebase(record: record) ?? unlinked.joinedHomebase(record: record)
    }
}
