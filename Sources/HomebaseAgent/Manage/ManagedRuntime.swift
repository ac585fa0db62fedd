import Foundation
import Inference
import Wire

/// What management can do on one runtime, by its kind (SPEC.md "Managing the host's models"):
/// Ollama through its own API; llama-server through the host's models folder (pull, delete)
/// and its router endpoints (load, unload). Failures are answered, never thrown: `Failure`
/// carries the wire code and our own words (never the engine's text, which may echo input).
struct ManagedRuntime: Sendable {
    struct Failure: Error, Sendable { var code: AppMessage.ErrorCode; var message: String }
    typealias Progress = @Sendable (_ completed: UInt64, _ total: UInt64, _ status: String) async -> Void

    let url: String
    let kind: RuntimeKind
    /// The folder the Homebase owns for llama-server's GGUF files (nil: no pulls there).
    let folder: String?
    let hubURL: String
    let timeouts: HTTPTimeouts
    /// How often a router's model state is read while it loads or unloads.
    var pollInterval: Duration = .milliseconds(50)

    /// What can be done here; a llama-server pulls, deletes, loads and unloads only in router
    /// mode (`--models-dir`): a server of one model would never serve what was pulled.
    func abilities(router: Bool) -> UInt8 {
        let all = AppMessage.HostRuntime.canPull | AppMessage.HostRuntime.canDelete | AppMessage.HostRuntime.canLoad
        switch kind {
        case .ollama: return all
        case .llamaServer: return !router ? 0 : folder == nil ? AppMessage.HostRuntime.canLoad : all
        default: return 0
        }
    }

    /// llama-server's router mode (`/props` role `router`).
    func isRouter() async -> Bool {
        guard kind == .llamaServer else { return false }
        return ((try? await json("GET", "/props"))?["role"] as? String) == "router"
    }

    var wireKind: UInt8 {
        switch kind {
        case .ollama: AppMessage.HostRuntime.ollama
        case .llamaServer: AppMessage.HostRuntime.llamaServer
        case .openAICompatible, .vllm: AppMessage.HostRuntime.openAICompatible
        }
    }

    private var root: String { url.hasSuffix("/") ? String(url.dropLast()) : url }

    // MARK: listing

    /// The runtime's models with sizes and what is loaded; `advertised` marks those in the advert.
    func listing(advertised: Set<String>) async -> AppMessage.HostRuntime {
        var models: [AppMessage.HostModel] = []
        let router = await isRouter()
        switch kind {
        case .ollama:
            // Ollama gives both `name` and `model`; older servers only `name`.
            let loaded = Set(((try? await json("GET", "/api/ps"))?["models"] as? [[String: Any]] ?? []).compactMap { ($0["name"] ?? $0["model"]) as? String })
            for m in (try? await json("GET", "/api/tags"))?["models"] as? [[String: Any]] ?? [] {
                guard let name = (m["name"] ?? m["model"]) as? String else { continue }
                models.append(.init(name: name, sizeBytes: UInt64((m["size"] as? NSNumber)?.int64Value ?? 0),
                                    loaded: loaded.contains(name), advertised: advertised.contains(name)))
            }
        default:
            // Router mode lists each model with its status; a one-model server lists its one.
            let served = (try? await json("GET", "/v1/models"))?["data"] as? [[String: Any]] ?? []
            var seen = Set<String>()
            for m in served {
                guard let id = m["id"] as? String else { continue }
                let status = (m["status"] as? [String: Any])?["value"] as? String
                seen.insert(id)
                models.append(.init(name: id, sizeBytes: router ? fileSize(id) : 0, loaded: status == nil || status == "loaded",
                                    advertised: advertised.contains(id)))
            }
            for (name, size) in router ? folderFiles() : [] where !seen.contains(name) {
                models.append(.init(name: name, sizeBytes: size, loaded: false, advertised: advertised.contains(name)))
            }
        }
        return .init(url: url, kind: wireKind, abilities: abilities(router: router), models: models)
    }

    /// GGUF files of the models folder: name (the file's stem) and size.
    func folderFiles() -> [(String, UInt64)] {
        guard let folder, let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        return names.sorted().filter { $0.hasSuffix(".gguf") }.map { (String($0.dropLast(5)), fileSize(String($0.dropLast(5)))) }
    }

    private func fileSize(_ name: String) -> UInt64 {
        guard let folder, let a = try? FileManager.default.attributesOfItem(atPath: folder + "/" + name + ".gguf") else { return 0 }
        return (a[.size] as? NSNumber)?.uint64Value ?? 0
    }

    // MARK: actions

    /// Pulls `model`; returns the name it is known by afterwards.
    func pull(_ model: String, progress: Progress) async throws(Failure) -> String {
        switch kind {
        case .ollama: try await ollamaPull(model, progress: progress); return canonical(model)
        case .llamaServer:
            try await requireRouter("pull")
            return try await HubDownload(hubURL: hubURL, folder: try requireFolder(), timeouts: timeouts)
            .fetch(model, progress: progress)
        default: throw unsupported("pull")
        }
    }

    /// After a cancel: the pull's partial file goes too, even one kept from an earlier pull to resume.
    func removePartial(_ model: String) {
        guard kind == .llamaServer, let folder, let part = HubDownload(hubURL: hubURL, folder: folder, timeouts: timeouts).partPath(model)
        else { return }
        try? FileManager.default.removeItem(atPath: part)
    }

    func delete(_ model: String) async throws(Failure) {
        switch kind {
        case .ollama: try await ollamaCall("DELETE", "/api/delete", ["model": model], what: "delete", model)
        case .llamaServer:
            try await requireRouter("delete")
            let path = try requireFolder() + "/" + model + ".gguf"
            guard HubDownload.safeName(model), FileManager.default.fileExists(atPath: path) else {
                throw Failure(code: .modelUnavailable, message: "no model \(model.prefix(80)) in the Homebase's models folder")
            }
            do { try FileManager.default.removeItem(atPath: path) } catch {
                throw Failure(code: .hostError, message: "could not remove \(model.prefix(80)) from the models folder")
            }
        default: throw unsupported("delete")
        }
    }

    func setLoaded(_ model: String, _ load: Bool) async throws(Failure) {
        let verb = load ? "load" : "unload"
        switch kind {
        case .ollama:
            try await ollamaCall("POST", "/api/generate", ["model": model, "keep_alive": load ? -1 : 0], what: verb, model)
        case .llamaServer:
            try await requireRouter(verb)
            // The router answers 400 to loading a loaded model (and unloading an unloaded one): done already.
            let served = (try? await json("GET", "/v1/models"))?["data"] as? [[String: Any]] ?? []
            guard let entry = served.first(where: { $0["id"] as? String == model }) else {
                throw Failure(code: .modelUnavailable, message: "the llama-server at \(url) holds no model \(model.prefix(80))")
            }
            let status = (entry["status"] as? [String: Any])?["value"] as? String
            if (status == "loaded") == load { return }
            _ = try await call("POST", "/models/\(verb)", ["model": model], what: "\(verb) \(model)")
            try await settle(model, loaded: load)
        default: throw unsupported(verb)
        }
    }

    /// After a pull or a delete: llama.cpp's router rescans its models folder on `GET
    /// /v1/models?reload=1` (a running model whose file went is stopped). True when `model` is
    /// then listed (`present`) or gone (not); an older router ignores the parameter and says false.
    func rescan(_ model: String, present: Bool) async -> Bool {
        guard kind == .llamaServer, await isRouter() else { return true }
        let served = (try? await json("GET", "/v1/models?reload=1"))?["data"] as? [[String: Any]] ?? []
        return served.contains { $0["id"] as? String == model } == present
    }

    // MARK: HTTP

    /// The router loads and unloads in the background: wait (polling, bounded by the timeouts'
    /// first-byte limit) until `/v1/models` shows the state asked for, so the result lists it.
    private func settle(_ model: String, loaded: Bool) async throws(Failure) {
        let deadline = ContinuousClock.now + timeouts.firstByte
        while ContinuousClock.now < deadline {
            let served = (try? await json("GET", "/v1/models"))?["data"] as? [[String: Any]] ?? []
            let status = (served.first { $0["id"] as? String == model }?["status"] as? [String: Any])?["value"] as? String
            if status == (loaded ? "loaded" : "unloaded") { return }
            if status == "failed" {  // "unloaded" right after the call may be before the load began
                throw Failure(code: .hostError, message: "the llama-server at \(url) could not \(loaded ? "load" : "unload") \(model.prefix(80))")
            }
            try? await Task.sleep(for: pollInterval)
        }
        throw Failure(code: .hostError, message: "the llama-server at \(url) did not finish within \(timeouts.firstByte)")
    }

    private func requireRouter(_ verb: String) async throws(Failure) {
        guard await isRouter() else {
            throw Failure(code: .unsupported, message: "the llama-server at \(url) serves one model and cannot \(verb) models: "
                          + "start llama-server with --models-dir (router mode) on the Homebase's models folder")
        }
    }

    private func requireFolder() throws(Failure) -> String {
        guard let folder else {
            throw Failure(code: .unsupported, message: "the Homebase has no models folder for llama-server (homebase run --models-dir)")
        }
        return folder
    }

    private func unsupported(_ action: String) -> Failure {
        Failure(code: .unsupported, message: "a \(kind.rawValue) runtime cannot \(action) models from here")
    }

    func call(_ method: String, _ path: String, _ body: [String: Any], what: String) async throws(Failure) -> [UInt8] {
        let r = try await open(method, path, body, what: what)
        do { return try await r.collect(limit: 1 << 20) } catch {
            throw Failure(code: .hostError, message: "the runtime's answer to \(what.prefix(100)) did not arrive whole")
        }
    }

    func open(_ method: String, _ path: String, _ body: [String: Any], what: String) async throws(Failure) -> HTTPStreamResponse {
        let data = (try? JSONSerialization.data(withJSONObject: body)).map { [UInt8]($0) } ?? []
        let r: HTTPStreamResponse
        do {
            r = try await HTTPStreamClient().send(HTTPStreamRequest(method: method, url: root + path,
                                                                   headers: [HTTPHeader("Content-Type", "application/json")],
                                                                   body: data, timeouts: timeouts))
        } catch { throw Failure(code: .hostError, message: "the runtime at \(url) is not reachable") }
        guard r.isSuccess else {
            throw Failure(code: r.status == 404 ? .modelUnavailable : .hostError,
                          message: "the runtime answered HTTP \(r.status) to \(what.prefix(100))")
        }
        return r
    }

    private func json(_ method: String, _ path: String) async throws -> [String: Any]? {
        let r = try await HTTPStreamClient().send(HTTPStreamRequest(method: method, url: root + path, timeouts: timeouts))
        guard r.isSuccess else { return nil }
        return try JSONSerialization.jsonObject(with: Data(try await r.collect())) as? [String: Any]
    }
}
