import Courier
import Sealing
import Signing
import Synchronization

/// Who this guest talks to through the relay: its account's devices (`GuestDirectory`) plus
/// the Homebases of other accounts it joined (their records came with the invites).
public final class JoinedDirectory: DeviceDirectory {
    public let account: GuestDirectory
    private let joined: Mutex<[PublicKey: DeviceRecord]>

    public init(account: GuestDirectory, joined: [DeviceRecord]) {
        self.account = account
        self.joined = Mutex(Dictionary(joined.map { ($0.signingKey, $0) }, uniquingKeysWith: { a, _ in a }))
    }

    public func record(for key: PublicKey) -> DeviceRecord? {
        account.record(for: key) ?? joined.withLock { $0[key] }
    }

    /// A Homebase joined while the link is open (`guest join`).
    public func add(_ record: DeviceRecord) { joined.withLock { $0[record.signingKey] = record } }
}
