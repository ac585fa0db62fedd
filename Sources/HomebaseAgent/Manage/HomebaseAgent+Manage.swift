import Courier
import Inference
import Wire

extension HomebaseAgent {
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
        guard state.withLock({ $0.siblings[sender] != nil }) else { return await fail(.notOwner, Self.notOwnerMessage) }
        let runtimes = state.withLock { $0.runtimes }.map {
            ManagedRuntime(url: $0.url, kind: $0.kind, folder: configuration.modelsFolder, hubURL: configuration.hubURL,
                           timeouts: configuration.manageTimeouts)
        }
        var text = "\(runtimes.count) runtime(s)"
        if r.action != .list {
            let wanted = r.model
            guard !wanted.isEmpty, wanted.utf8.count <= Limits.maxManageText else {
                return await fail(.badRequest, "a \(r.action.name) names a model")
            }
            guard [.pull, .delete, .load, .unload].contains(r.action) else {
                return await fail(.unsupported, "this Homebase does not know \(r.action.name): upgrade homebase")
            }
            let chosen: ManagedRuntime
            if !r.runtime.isEmpty {
                guard let c = runtimes.first(where: { $0.url == r.runtime }) else {
                    return await fail(.badRequest, "no runtime \(r.runtime.prefix(200)) here (guest host models lists them)")
                }
                chosen = c
            } else if r.action == .pull {
                var puller: ManagedRuntime?
                for c in runtimes where await c.listing(advertised: []).abilities & AppMessage.HostRuntime.canPull != 0 { puller = c; break }
                guard let puller else {
                    return await fail(.unsupported, "no runtime here can pull models (an Ollama, or llama-server in router mode)")
                }
                chosen = puller
            } else {
                var holder: ManagedRuntime?
                for c in runtimes where await c.listing(advertised: []).models.contains(where: { $0.name == wanted }) { holder = c; break }
                guard let holder else { return await fail(.modelUnavailable, "no runtime here holds \(wanted.prefix(200))") }
                chosen = holder
            }
            let courier = self.courier, to = d.sender, id = r.requestID
            do {
                switch r.action {
                case .pull:
                    let name = try await chosen.pull(wanted) { done, total, status in
                        _ = await courier.send(.manageProgress(.init(requestID: id, completed: done, total: total, status: status)), to: to)
                    }
                    text = "pulled \(name) onto \(chosen.url)"
                case .delete: try await chosen.delete(wanted); text = "deleted \(wanted) from \(chosen.url)"
                default:
                    try await chosen.setLoaded(wanted, r.action == .load)
                    text = "\(r.action.name)ed \(wanted) on \(chosen.url)"
                }
            } catch {
                return await fail(error.code, error.message)
            }
            // Re-verifies every runtime and re-advertises when the models changed. Not after load
            // or unload: they change no model list, and the probe's trial would load it again.
            if r.action == .pull || r.action == .delete { await reverify() }
            log("manage: \(text)")
        }
        let advertised = Set(state.withLock { $0.catalog.models.map(\.tag) })
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
