import Courier
import Sealing
import Wire

// Sending to a device that does not know this Homebase yet (the pairing answer).
// PLACEHOLDER until the `share` branch's `Courier.introduce` is merged: see the report.
extension HomebaseAgent {
    func sendIntroduction(_ message: AppMessage, to device: DeviceRecord) async {
        log("pairing: cannot answer \(device.signingKey.hex.prefix(16))…: introductions are not built in yet")
    }
}
