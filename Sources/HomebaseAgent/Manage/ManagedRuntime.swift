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

    var abilities: UInt8 {
        switch kind {
        case .ollama: AppMessage.HostRuntime.canPull | AppMessage.HostRuntime.canDelete | AppMessage.HostRuntime.canLoad
        case .llamaServer: (folder == nil ? 0 : AppMessage.HostRuntime.canPull | AppMessage.HostRuntime.canDelete)
            | AppMessage.HostRuntime.canLoad
        default: 0
        }
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
        switch kind {
        case .ollama:
            let loaded = Set(((try? await json("GET", "/api/ps"))?["models"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String })
            for m in (try? await json("GET", "/api/tags"))?["models"] as? [[String: Any]] ?? [] {
                guard let name = m["name"] as? String else { continue }
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
                models.append(.init(name: id, sizeBytes: fileSize(id), loaded: status == nil || status == "loaded",
                                    advertised: advertised.contains(id)))
            }
            for (name, size) in folderFiles() where !seen.contains(name) {
                models.append(.init(name: name, sizeBytes: size, loaded: false, advertised: advertised.contains(name)))
            }
        }
        return .init(url: url, kind: wireKind, abilities: abilities, models: models)
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
        case .ollama: try await ollamaPull(model, progress: progress); return model
        case .llamaServer: return try await HubDownload(hubURL: hubURL, folder: try requireFolder(), timeouts: timeouts)
            .fetch(model, progress: progress)
        default: throw unsupported("pull")
        }
    }

    func delete(_ model: String) async throws(Failure) {
        switch kind {
        case .ollama: _ = try await call("DELETE", "/api/delete", ["model": model], what: "delete \(model)")
        case .llamaServer:
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
            _ = try await call("POST", "/api/generate", ["model": model, "keep_alive": load ? -1 : 0], what: "\(verb) \(model)")
        case .llamaServer:
            let props = try? await json("GET", "/props")
            guard props?["role"] as? String == "router" else {
                throw Failure(code: .unsupported, message: "this llama-server serves one model and cannot \(verb) another: "
                              + "start it with --models-dir (router mode) to load and unload models")
            }
            _ = try await call("POST", "/models/\(verb)", ["model": model], what: "\(verb) \(model)")
        default: throw unsupported(verb)
        }
    }

    // MARK: HTTP

    private func requireFolder() throws(Failure) -> String {
        guard let folder else {
            throw Failure(code: .unsupported, message: "the Homebase has no models folder for llama-server (homebase run --models-dir)")
        }
        return folder
    }

    private func unsupported(_ action: String) -> Failure {
        Failure(code: .unsupported, message: "a \(kind.rawValue) runtime cannot \(action) models from here")
    }

    private func ollamaPull(_ model: String, progress: Progress) async throws(Failure) {
        let r = try await open("POST", "/api/pull", ["model": model, "stream": true], what: "pull \(model)")
        var buffer: [UInt8] = []
        do {
            for try await piece in r.body {
                buffer += piece
                while let nl = buffer.firstIndex(of: 0x0A) {
                    let line = Array(buffer[..<nl]); buffer.removeSubrange(...nl)
                    guard let o = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else { continue }
                    if o["error"] != nil { throw Failure(code: .modelUnavailable, message: "Ollama could not pull \(model.prefix(80))") }
                    await progress(UInt64((o["completed"] as? NSNumber)?.int64Value ?? 0),
                                   UInt64((o["total"] as? NSNumber)?.int64Value ?? 0), String((o["status"] as? String ?? "").prefix(200)))
                }
            }
        } catch let f as Failure { throw f } catch {
            throw Failure(code: .hostError, message: "Ollama's pull stream ended early")
        }
    }

    private func call(_ method: String, _ path: String, _ body: [String: Any], what: String) async throws(Failure) -> [UInt8] {
        let r = try await open(method, path, body, what: what)
        do { return try await r.collect(limit: 1 << 20) } catch {
            throw Failure(code: .hostError, message: "the runtime's answer to \(what.prefix(100)) did not arrive whole")
        }
    }

    private func open(_ method: String, _ path: String, _ body: [String: Any], what: String) async throws(Failure) -> HTTPStreamResponse {
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
