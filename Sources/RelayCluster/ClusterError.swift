import CNats

/// Every failure of the RelayCluster module: the libnats call that failed and its status text
/// (never payloads, passwords or keys).
public enum ClusterError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A libnats call returned a status other than NATS_OK.
    case nats(operation: String, status: String, detail: String)
    /// A JetStream API call was answered with an error (jsErrCode, and the server's text).
    case jetStream(operation: String, code: Int, status: String)
    /// The answer of a JetStream call could not be used (e.g. a missing field).
    case unexpected(String)
    /// A fetch came back empty while the consumer still holds this many messages (an election,
    /// or a fetch answered to a subscription that timed out): not empty, fetch again later.
    case mailRemains(Int)

    public var description: String {
        switch self {
        case let .nats(op, status, detail): "NATS \(op): \(status)\(detail.isEmpty ? "" : " (\(detail))")"
        case let .jetStream(op, code, status): "JetStream \(op): \(status) (error code \(code))"
        case let .unexpected(why): "NATS: \(why)"
        case let .mailRemains(n): "NATS: a fetch came back empty with \(n) messages still held by the consumer"
        }
    }

    /// Timed out or refused for lack of a quorum: the caller refuses the mail instead of failing the device.
    public var isTimeout: Bool {
        if case let .nats(_, status, _) = self { return status == String(cString: natsStatus_GetText(NATS_TIMEOUT)) }
        return false
    }

    static func check(_ s: natsStatus, _ operation: String) throws(ClusterError) {
        guard s != NATS_OK else { return }
        throw .nats(operation: operation, status: String(cString: natsStatus_GetText(s)), detail: lastError())
    }

    static func checkJS(_ s: natsStatus, _ code: jsErrCode, _ operation: String) throws(ClusterError) {
        guard s != NATS_OK else { return }
        if code.rawValue != 0 { throw .jetStream(operation: operation, code: Int(code.rawValue), status: lastError()) }
        throw .nats(operation: operation, status: String(cString: natsStatus_GetText(s)), detail: lastError())
    }

    /// libnats' per-thread text of the last error (it names the server's answer, not our data).
    private static func lastError() -> String {
        var st = NATS_OK
        guard let p = nats_GetLastError(&st) else { return "" }
        return String(cString: p)
    }
}
