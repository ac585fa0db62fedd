import PeerLink
import Sealing
import Wire

extension Courier {
    /// Sends an `embed-request` live (split into parts when large) and registers its reply
    /// stream, as `sendRequest` does: `embed-result` or `error` from `host` for its request id
    /// goes to the returned stream only, and ends it. The stream is already finished when the
    /// outcome says the request surely did not arrive (everything but `.sent` and `.failed(.timeout)`).
    /// Confirmed like a request, so the host's `peer-gone` ends the wait at once too.
    public func sendEmbedRequest(_ request: AppMessage.EmbedRequest, to host: DeviceRecord) async -> (LiveOutcome, ReplyStream) {
        await sendFlattened(.embedRequest(request), requestID: request.requestID, to: host)
    }
}
