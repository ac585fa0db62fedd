import Courier
import Inference
import Wire

extension HomebaseAgent {
    /// Said after a pull or delete a router did not pick up (a llama-server older than its `?reload=1`).
    static let noRescan = "; this llama-server did not rescan its models folder: restart it, then homebase runtime add URL"

    /// What a grantee's CLI prints when it asks to manage models (SPEC: `not_owner`).
    static let notOwnerMessage = "model management is for the owner's own devices; this device joined under a share grant"

    /// Answers one `manage-request` (SPEC.md "Managing the host's models"): siblings only; the
    /// action on the chosen runtime with progress; then verification again, the new advert to
    /// the siblings, and the `manage-result` listing the runtimes after the change.
    func serveManage(_ d: Delivery, _ r: AppMessage.ManageRequest) async {
        let sender = d.sender.signingKey
        func fail(_ code: AppMessage.ErrorCode, _ message: String) async {
            _ = await courier.send(.error(.init(requestID: r.requestID, code: code, message: message)), to: d.sender)
            count("manage-" + code.name)
        }
        guard state.withLock({ $0.membership.siblings[sender] != nil }) else { return await fail(.notOwner, Self.notOwnerMessage) }
        let runtimes = state.withLock { $0.offer.runtimes }.map {
            ManagedRuntime(url: $0.url, kind: $0.kind, folder: configuration.modelsFolder, hubURL: configuration.hubURL,
                           timeouts: configuration.manageTimeouts)
        }
        var text = "\(runtimes.count) runtime(s)"
        if r.action != .list {
            let wanted = r.model
            guard !wanted.isEmpty, wanted.utf8.count <= Limits.maxManageText else {
                return await fail(.badRequest, "a \(r.action.name) names a model")
            }
            guard [.pull, .delete, .load, .unload, .cancel].contains(r.action) else {
                return await fail(.unsupported, "this Homebase does not know \(r.action.name): upgrade homebase")
            }
            if r.action == .cancel {
                guard let done = await cancelPull(wanted) else {
                    return await fail(.modelUnavailable, "no pull of \(wanted.prefix(200)) is under way here")
                }
                text = done
            } else {
                switch await choose(r, among: runtimes) {
                case .success(let chosen):
                    if let f = await act(r, on: chosen, to: d.sender, text: &text) { return await fail(f.code, f.message) }
                case .failure(let f): return await fail(f.code, f.message)
                }
            }
            log("manage: \(text)")
        }
        let advertised = Set(state.withLock { $0.offer.catalog.models.map(\.tag) })
        var listing: [AppMessage.HostRuntime] = []
        for rt in runtimes.prefix(Limits.maxManageRuntimes) {
            var l = await rt.listing(advertised: advertised)
            l.models = Array(l.models.prefix(Limits.maxManageModels))
            listing.append(l)
        }
        let outcome = await courier.send(.manageResult(.init(requestID: r.requestID, text: String(text.prefix(Limits.maxManageText)),
                                                              runtimes: listing)), to: d.sender)
        count(outcome == .sent ? "manage-" + r.action.name : "manage-undelivered")
    }
}
