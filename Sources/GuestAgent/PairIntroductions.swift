import Courier
import Pairing
import PeerLink
import Wire

// The pairing request goes out as an introduction (the Homebase does not know this device).
// PLACEHOLDER until the `share` branch's `Courier.introduce` is merged: see the report.
extension PairJoin {
    func introduce(_ message: AppMessage, courier: Courier, to code: PairingCode) async -> LiveOutcome {
        .failed(.stopped)
    }
}
