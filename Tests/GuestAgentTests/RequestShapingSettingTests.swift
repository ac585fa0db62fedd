import Courier
import Foundation
import Routing
import Testing
@testable import GuestAgent

/// `request.shaping` (#22): stored by `guest settings`, read by the links, shown by `guest status`.
struct RequestShapingSettingTests {
    @Test func unsetPadsAndTheSettingReachesTheStatus() throws {
        let dir = try temporaryDirectory("guest-tests")
        let context = try GuestContext(GuestConfiguration(paths: GuestPaths(dataDirectory: dir), environment: [:]))
        #expect(context.requestShaping == .padded)
        #expect(GuestStatus.gather(context).requestShaping.hasPrefix("padded ("))
        #expect(try context.settings.set(.requestShaping, " Cadence ") == "cadence")
        #expect(context.requestShaping == .cadence)
        #expect(GuestStatus.gather(context).requestShaping.hasPrefix("cadence (every frame 4145 bytes"))
        try context.settings.set(.requestShaping, "off")
        #expect(context.requestShaping == .off)
        // A bad value is refused with what is expected, and the stored one stays.
        #expect(throws: RoutingError.invalidSettingValue(name: "request.shaping", expected: SettingName.requestShaping.expected)) {
            try context.settings.set(.requestShaping, "random")
        }
        #expect(context.requestShaping == .off)
        #expect(SettingName.requestShaping.unsetMeans == "padded")
    }
}
