import CommandLineKit
import Basics
import Foundation
import GuestAgent

/// Flags every `guest` command takes (the kit adds `--help`), before or after the command.
extension Flag {
    static let global: [Flag] = [
        Flag("--data-dir", "DIR", "data directory (default $XDG_DATA_HOME/homebase/guest)"),
        Flag("--llama-server", "PATH", "llama-server binary (default: config, PATH, then $HOMEBASE_ENGINE_DIR/bin)"),
        Flag("--model-path", "FILE", "a GGUF file served as the built-in on-device model"),
    ]
}

/// A command about to run (the kit's call): its parsed arguments and the guest configuration
/// they give.
typealias Invocation = CommandCall

extension CommandCall {
    /// Flags over the config file (`$XDG_CONFIG_HOME/homebase/guest.json`) over the defaults.
    var configuration: GuestConfiguration {
        get throws {
            let file = try ConfigFile.load(environment: environment)
            let dataDir = arguments.value("--data-dir") ?? file.dataDir
                ?? GuestPaths.defaultDataDirectory(environment: environment)
            let urls = CloudURLs.resolve(environment: environment, openAI: file.openAIBaseURL,
                                         anthropic: file.anthropicBaseURL)
            return GuestConfiguration(paths: GuestPaths(dataDirectory: dataDir),
                                      llamaServer: arguments.value("--llama-server") ?? file.llamaServer,
                                      modelPath: arguments.value("--model-path") ?? file.modelPath,
                                      environment: environment, cloudURLs: urls)
        }
    }

    /// Opens the context, runs `body`, and always stops the engine afterwards.
    func withContext(_ body: (GuestContext) async throws -> Int32) async throws -> Int32 {
        let context = try GuestContext(try configuration)
        let signals = ShutdownSignals.install(context)
        defer { signals.forEach { $0.cancel() } }
        do {
            let status = try await body(context)
            await context.shutdown()
            return status
        } catch {
            await context.shutdown()
            throw error
        }
    }
}

/// `$XDG_CONFIG_HOME/homebase/guest.json` (XDG_CONFIG_HOME defaults to `~/.config`):
/// `{"data_dir": "...", "llama_server": "...", "model_path": "...", "openai_base_url": "...",
/// "anthropic_base_url": "..."}`, every key optional. `HOMEBASE_OPENAI_BASE_URL` and
/// `HOMEBASE_ANTHROPIC_BASE_URL` override the two URLs.
struct ConfigFile: Decodable {
    var dataDir: String?
    var llamaServer: String?
    var modelPath: String?
    var openAIBaseURL: String?
    var anthropicBaseURL: String?

    enum CodingKeys: String, CodingKey {
        case dataDir = "data_dir", llamaServer = "llama_server", modelPath = "model_path"
        case openAIBaseURL = "openai_base_url", anthropicBaseURL = "anthropic_base_url"
    }

    static func path(environment: [String: String]) -> String {
        XDGBase.configHome(environment: environment) + "/homebase/guest.json"
    }

    static func load(environment: [String: String]) throws -> ConfigFile {
        let path = path(environment: environment)
        guard let data = FileManager.default.contents(atPath: path) else { return ConfigFile() }
        do { return try JSONDecoder().decode(ConfigFile.self, from: data) }
        catch { throw GuestError.badFile(path: path, detail: "not a JSON object of data_dir, llama_server, model_path, openai_base_url, anthropic_base_url strings") }
    }
}
