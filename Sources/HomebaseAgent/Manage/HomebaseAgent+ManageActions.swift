import Courier
import Sealing
import Wire

extension HomebaseAgent {
    /// The runtime a management request acts on: the one it names, else for a pull the first
    /// that can pull, else the first holding the model.
    func choose(_ r: AppMessage.ManageRequest, among runtimes: [ManagedRuntime]) async -> Result<ManagedRuntime, ManagedRuntime.Failure> {
        if !r.runtime.isEmpty {
            guard let c = runtimes.first(where: { $0.url == r.runtime }) else {
                return .failure(.init(code: .badRequest, message: "no runtime \(r.runtime.prefix(200)) here (guest host models lists them)"))
            }
            return .success(c)
        }
        if r.action == .pull {
            for c in runtimes where await c.listing(advertised: []).abilities & AppMessage.HostRuntime.canPull != 0 { return .success(c) }
            return .failure(.init(code: .unsupported, message: "no runtime here can pull models (an Ollama, or llama-server in router mode)"))
        }
        for c in runtimes where await c.listing(advertised: []).models.contains(where: { $0.name == c.canonical(r.model) }) { return .success(c) }
        return .failure(.init(code: .modelUnavailable, message: "no runtime here holds \(r.model.prefix(200))"))
    }

    /// Does a pull, delete, load or unload on `chosen`; `text` says what was done. After a pull or
    /// delete: the router rescans, every runtime is verified again and the new advert goes out
    /// (not after load or unload: they change no model list, and the probe's trial would load it).
    func act(_ r: AppMessage.ManageRequest, on chosen: ManagedRuntime, to: DeviceRecord, text: inout String) async -> ManagedRuntime.Failure? {
        let courier = self.courier, id = r.requestID, wanted = r.model
        do throws(ManagedRuntime.Failure) {
            switch r.action {
            case .pull:
                let name = try await pull(wanted, on: chosen) { done, total, status in
                    _ = await courier.send(.manageProgress(.init(requestID: id, completed: done, total: total, status: status)), to: to)
                }
                text = "pulled \(name) onto \(chosen.url)"
                if await !chosen.rescan(name, present: true) { text += Self.noRescan }
            case .delete:
                try await chosen.delete(wanted)
                text = "deleted \(chosen.canonical(wanted)) from \(chosen.url)"
                if await !chosen.rescan(wanted, present: false) { text += Self.noRescan }
            default:
                try await chosen.setLoaded(wanted, r.action == .load)
                text = "\(r.action.name)ed \(chosen.canonical(wanted)) on \(chosen.url)"
                return nil
            }
        } catch {
            return error
        }
        await reverify()
        return nil
    }

    /// Pulls `model` on `runtime` as a task a cancel can stop (SPEC: one pull per model at a time).
    func pull(_ model: String, on runtime: ManagedRuntime, progress: @escaping ManagedRuntime.Progress) async throws(ManagedRuntime.Failure) -> String {
        // Keyed by the runtime's name for it: `llama3.2` and `llama3.2:latest` are one Ollama pull.
        let key = runtime.canonical(model)
        let task = state.withLock { s -> Task<Result<String, ManagedRuntime.Failure>, Never>? in
            guard s.serving.pulls[key] == nil else { return nil }
            let t = Task { () -> Result<String, ManagedRuntime.Failure> in
                do throws(ManagedRuntime.Failure) { return .success(try await runtime.pull(model, progress: progress)) } catch {
                    return .failure(error)
                }
            }
            s.serving.pulls[key] = t
            return t
        }
        guard let task else { throw .init(code: .busy, message: "a pull of \(model.prefix(200)) is already under way here") }
        // The request's own `cancel` (its id) stops the pull too.
        let result = await withTaskCancellationHandler { await task.value } onCancel: { task.cancel() }
        state.withLock { _ = $0.serving.pulls.removeValue(forKey: key) }
        switch result {
        case .success(let name): return name
        case .failure where task.isCancelled:
            runtime.removePartial(model)
            throw .init(code: .hostError, message: "the pull of \(model.prefix(200)) was cancelled"
                        + (runtime.kind == .ollama ? "" : "; its partial file is removed"))
        case .failure(let f): throw f
        }
    }

    /// Stops the pull of `model` and waits for it to end (the partial file gone); nil: none under way.
    func cancelPull(_ model: String) async -> String? {
        guard let task = state.withLock({ $0.serving.pulls[model] ?? $0.serving.pulls[ManagedRuntime.ollamaName(model)] }) else { return nil }
        task.cancel()
        if case .success = await task.value { return "the pull of \(model) had finished before the cancel" }
        log("manage: pull of a model cancelled")
        return "cancelled the pull of \(model)"
    }
}
