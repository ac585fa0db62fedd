import Routing
import Sealing
import Signing
import Wire

// A sibling chose a model: applied here when it wins (last writer by sequence, then origin key),
// never sent on. A local model this device lacks is handed to `localModelChoice`, which starts
// its download while the current model keeps answering.
extension GuestMail {
    func modelChoice(_ c: AppMessage.ModelChoice, from sender: DeviceRecord) -> Outcome {
        guard directory.inRoster(sender.signingKey) else { return .refused("model choice: \(shortKey(sender.signingKey)) is not in the roster") }
        guard c.originDevice.bytes == sender.signingKey.bytes else { return .refused("model choice: relayed by another device than its origin") }
        guard case let (kind, value)? = ModelChoiceSync.parse(c.modelID) else { return .refused("model choice: unknown kind") }
        if let setting = kind.setting, (try? setting.validate(value)) != value {
            return .refused("model choice \(c.sequence): not a valid \(setting.rawValue)")
        }
        do {
            guard case let (kind, value)? = try ModelChoiceSync(database: database).accept(c) else {
                return .refused("model choice \(c.sequence) from \(shortKey(sender.signingKey)): not newer, or more than \(ModelChoiceSync.maxJump) above the highest seen")
            }
            if let setting = kind.setting {
                try SettingsStore(database: database).setRaw(setting, value)
            } else {
                localModelChoice?(value)
            }
            return .stored("model choice \(c.sequence) from \(shortKey(sender.signingKey)): \(kind.rawValue) applied")
        } catch {
            return .kept("model choice \(c.sequence): cannot be stored")
        }
    }
}
