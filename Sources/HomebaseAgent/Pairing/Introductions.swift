import Courier
import Sealing
import Wire

// Sending to a device that does not know this Homebase yet (the pairing answer): an
// introduction, live (the new device waits for it connected).
extension HomebaseAgent {
    func sendIntroduction(_ message: AppMessage, to device: DeviceRecord) async {
        let who = "\(device.signingKey.short)"
        do {
            let outcome = try await courier.introduce(message, toSigningKey: device.signingKey, hpkeKey: device.hpkeKey,
                                                      deliveryClass: .live)
            if outcome != .sent { log("pairing answer to \(who): \(outcome)") }
        } catch {
            log("pairing answer to \(who): \(error)")
        }
    }
}
