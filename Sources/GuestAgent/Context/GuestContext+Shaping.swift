import Courier
import Routing

extension GuestContext {
    /// `request.shaping` (SPEC 7, "Request shaping"): unset, unreadable or a value this version
    /// does not know pads (`padded`), so a damaged setting never shows more than the default.
    public var requestShaping: RequestShaping {
        RequestShaping(rawValue: ((try? settings.routingSettings()) ?? RoutingSettings()).requestShaping) ?? .padded
    }
}
