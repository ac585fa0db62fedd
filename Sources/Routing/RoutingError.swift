import Storage

/// Every failure of the Routing module. Only the stores and `settings set` throw: the router
/// itself never does (a missing or unreadable fact routes on-device); its refusal of a request
/// no brain can take (`noBrainCanSee`, `noBrainCanUseTools`) is a value in the decision, which
/// the caller throws or shows.
///
/// Messages never carry an API key, a prompt, or a setting's rejected value (a person may
/// paste a key into the wrong setting).
public enum RoutingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `settings get|set` with a name that is not a setting.
    /// The name is not echoed: a key pasted in the wrong place must not reach a log.
    case unknownSetting
    /// `settings set` with a value the setting does not take; `expected` says what it takes.
    case invalidSettingValue(name: String, expected: String)
    /// An advert whose Ed25519 signature does not verify against the host key it must come from.
    case badSignature
    /// An advert signed by another key than the one expected (not the account's host).
    case wrongHost(expected: String, got: String)
    /// An advert whose sequence number is not above the last accepted one (a replay or reorder).
    case staleSequence(received: UInt64, lastAccepted: UInt64)
    /// An advert that cannot be re-encoded for its signature check (a field over its limit).
    case malformedAdvert(String)
    /// No joined-Homebase record for this host key.
    case unknownHomebase(hostKey: String)
    /// A joined-Homebase state change that is not allowed (e.g. joining a revoked host).
    case invalidTransition(hostKey: String, from: String, to: String)
    /// A joined-Homebase record with a wrong field (key length, empty relay URL, bad tag).
    case invalidRecord(String)
    /// The SQLite store failed.
    case storage(StorageError)
    /// The request holds an image and no brain the user chose can see it (the router's refusal,
    /// carried in `RouteDecision.refusal`); `detail` says why each cannot and what to do.
    case noBrainCanSee(detail: String)
    /// The request carries tools and no brain the user chose can use them.
    case noBrainCanUseTools(detail: String)
    /// The request is over the relay's limits (an image over 10 MiB, ...) and no brain the user
    /// chose that is not behind the relay can take it.
    case tooLarge(detail: String)

    public var description: String {
        switch self {
        case .unknownSetting:
            return "unknown setting (known: \(SettingName.allCases.map(\.rawValue).joined(separator: ", ")))"
        case let .invalidSettingValue(name, expected):
            return "invalid value for \(name): expected \(expected)"
        case .badSignature:
            return "advert refused: its signature does not verify against the host key"
        case let .wrongHost(expected, got):
            return "advert refused: signed by host \(got), expected \(expected)"
        case let .staleSequence(received, last):
            return "advert refused: sequence \(received) is not above the last accepted \(last)"
        case let .malformedAdvert(detail):
            return "advert refused: \(detail)"
        case let .unknownHomebase(key):
            return "no joined Homebase with host key \(key)"
        case let .invalidTransition(key, from, to):
            return "joined Homebase \(key): cannot go from \(from) to \(to)"
        case let .invalidRecord(detail):
            return "invalid joined-Homebase record: \(detail)"
        case let .storage(error):
            return error.description
        case let .noBrainCanSee(detail):
            return "no brain that can see the image is available: \(detail)"
        case let .noBrainCanUseTools(detail):
            return "no brain that can use tools is available: \(detail)"
        case let .tooLarge(detail):
            return "the request is too large for the chosen brain: \(detail)"
        }
    }
}

/// Runs a store operation, wrapping a `StorageError` as `.storage`.
@discardableResult
func storing<R>(_ body: () throws -> R) throws(RoutingError) -> R {
    do {
        return try body()
    } catch let error as RoutingError {
        throw error
    } catch let error as StorageError {
        throw .storage(error)
    } catch {
        throw .invalidRecord("\(error)")
    }
}
