import Courier
import Sealing
import Signing
import Synchronization

/// Who may talk to this host: the roster's devices and every grantee (a revoked grantee too,
/// so that it hears `revoked` instead of silence). Swapped whole on each reload.
final class HostDirectory: DeviceDirectory {
    private let records = Mutex<[PublicKey: DeviceRecord]>([:])

    func record(for key: PublicKey) -> DeviceRecord? { records.withLock { $0[key] } }

    func replace(_ all: [PublicKey: DeviceRecord]) { records.withLock { $0 = all } }
}
