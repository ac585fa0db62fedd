import PeerLink
import Sealing
import Wire

extension Courier {
    /// Sends a `manage-request` live and registers its reply stream, as `sendEmbedRequest`
    /// does: `manage-progress` from `host` for its request id goes to the stream, and its
    /// `manage-result` or `error` ends it.
    public func sendManageRequest(_ request: AppMessage.ManageRequest, to host: DeviceRecord) async -> (LiveOutcome, ReplyStream) {
        await sendFlattened(.manageRequest(request), requestID: request.requestID, to: host)
    }
}
