import Foundation

/// The `homebase` command: `main` returns the exit status (0 ok, 1 failure, 2 usage error).
public enum HomebaseCLI {
    static let usage = """
        usage: homebase [--data-dir DIR] [--config FILE] COMMAND [ARGS]

        commands:
          init [--name NAME]            create this device's identity and the account (first device)
          run [--relay URL] [...]       connect to the relay and serve until SIGTERM/SIGINT
          status [--json] [--serve A]   relay link, runtimes and models, last advert, requests, grants, siblings
                                        (--serve 127.0.0.1:PORT: the same as a read-only page)
          devices add RECORD            add a sibling by the hex record `guest init` printed
          devices list                  list the account's devices
          devices remove KEY            remove a sibling
          pair [--valid 10m] [...]      print a one-time code that adds a new device (guest pair -, then paste it)
          pair - [--name NAME]          join this workstation to an account (the code read from stdin)
          runtime add [URL]             probe an engine and store it if it passes (default http://127.0.0.1:11434)
          runtime list                  list stored runtimes
          runtime remove URL            forget a runtime
          share [--models a,b] [...]    print an invite for another account's device (guest join -, then paste it)
          grants list                   list grants to other accounts' devices and joins awaiting approval
          grants usage [--json]         requests and tokens per grant and own device, by day and model
          grants approve ID             grant a join that waits for approval
          grants revoke ID              revoke a grant (the device is told) or refuse a waiting join

        --data-dir defaults to $XDG_DATA_HOME/homebase/host; --config to $XDG_CONFIG_HOME/homebase/homebase.conf.
        `homebase COMMAND --help` describes a command.
        """

    /// Parsed global context for the commands.
    struct Context {
        var files: HostFiles
        var configPath: String
        var configExplicit: Bool
        var environment: [String: String]
    }

    public static func main(_ arguments: [String], environment: [String: String]) async -> Int32 {
        var words = Array(arguments.dropFirst())
        var dataDir: String?, config: String?
        // Global flags come before the command (and are also accepted after it).
        while let first = words.first, first.hasPrefix("--") {
            if first == "--help" || first == "-h" { out(usage); return 0 }
            guard let (name, value, used) = takeValue(words), name == "data-dir" || name == "config" else {
                return usageError("unknown flag \(first)")
            }
            if name == "data-dir" { dataDir = value } else { config = value }
            words.removeFirst(used)
        }
        guard let command = words.first else { return usageError("no command") }
        words.removeFirst()
        // Also accept the global flags after the command.
        var rest: [String] = []
        var i = 0
        while i < words.count {
            if words[i].hasPrefix("--data-dir") || words[i].hasPrefix("--config"), let (name, value, used) = takeValue(Array(words[i...])) {
                if name == "data-dir" { dataDir = value } else if name == "config" { config = value } else { rest.append(words[i]) }
                i += used
            } else {
                rest.append(words[i]); i += 1
            }
        }
        let context = Context(files: HostFiles(dataDir: dataDir ?? HostFiles.defaultDataDir(environment: environment)),
                              configPath: config ?? Settings.defaultPath(environment: environment),
                              configExplicit: config != nil, environment: environment)
        do {
            switch command {
            case "init": return try Commands.initialize(rest, context)
            case "run": return try await RunCommand.run(rest, context)
            case "status": return try Commands.status(rest, context)
            case "devices": return try Commands.devices(rest, context)
            case "pair": return try await PairCommand.run(rest, context)
            case "runtime": return try await Commands.runtime(rest, context)
            case "share": return try ShareCommand.run(rest, context)
            case "grants": return try GrantsCommand.run(rest, context)
            default: return usageError("unknown command \(command)")
            }
        } catch let e as Flags.UsageError {
            return usageError(e.description)
        } catch {
            err("homebase: \(error)")
            return 1
        }
    }

    /// `--name value` or `--name=value` at the head of `words`: (name, value, words used).
    private static func takeValue(_ words: [String]) -> (String, String, Int)? {
        guard let first = words.first, first.hasPrefix("--") else { return nil }
        let body = first.dropFirst(2)
        if let eq = body.firstIndex(of: "=") { return (String(body[..<eq]), String(body[body.index(after: eq)...]), 1) }
        guard words.count > 1 else { return nil }
        return (String(body), words[1], 2)
    }

    static func usageError(_ message: String) -> Int32 {
        err("homebase: \(message)\n(see homebase --help)")
        return 2
    }
}

/// Writes a line to stdout.
func out(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

/// Writes a line to stderr.
func err(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
