import CommandLineKit
import Foundation
import HomebaseAgent

/// The `homebase` command: the command-line kit's program over the commands below; `main`
/// returns the exit status (0 ok, 1 failure, 2 usage error).
public enum HomebaseCLI {
    /// Parsed global context for the commands.
    struct Context {
        var files: HostFiles
        var configPath: String
        var configExplicit: Bool
        var environment: [String: String]

        init(_ call: CommandCall) {
            let dataDir = call.arguments.value("--data-dir")
            let config = call.arguments.value("--config")
            files = HostFiles(dataDir: dataDir ?? HostFiles.defaultDataDir(environment: call.environment))
            configPath = config ?? Settings.defaultPath(environment: call.environment)
            configExplicit = config != nil
            environment = call.environment
        }
    }

    static let globalFlags = [
        Flag("--data-dir", "DIR", "data directory (default $XDG_DATA_HOME/homebase/host)"),
        Flag("--config", "FILE", "config file of `key = value` lines (default $XDG_CONFIG_HOME/homebase/homebase.conf)"),
    ]

    /// A command whose body takes the parsed flags and the global context.
    private static func command(_ name: String, _ summary: String, usage: String, details: String = "", flags: [Flag] = [],
                                _ body: @escaping @Sendable (ParsedArguments, Context) async throws -> Int32) -> Command {
        Command(name: name, summary: summary, usage: usage, details: details, flags: flags) { call in
            try await body(call.arguments, Context(call))
        }
    }

    static var commands: [Command] { [
        command("init", "create this device's identity and the account (first device)", usage: "[--name NAME]",
                flags: [Flag("--name", "NAME", "this device's name (default: the host name)")], Commands.initialize),
        command("run", "connect to the relay and serve until SIGTERM/SIGINT", usage: "[--relay URL] [--quiet] [--KEY VALUE ...]",
                details: RunCommand.details,
                flags: Settings.table.flags(defaults: Settings())
                    + [Flag("--quiet", "log only `timing:` lines"),
                       Flag("--trace-timings", "one `timing:` line per request on stderr (or HOMEBASE_TRACE_TIMINGS=1)")],
                RunCommand.run),
        command("status", "relay link, runtimes and models, last advert, requests, grants, siblings",
                usage: "[--json] [--serve 127.0.0.1:PORT]",
                flags: [Flag("--json", "print the status as JSON"),
                        Flag("--serve", "ADDR", "the same as a read-only page on loopback (127.0.0.1:PORT), until Ctrl-C")],
                Commands.status),
        command("devices", "list, add or remove the account's devices", usage: "[list] | add RECORD | remove KEY",
                details: "list (also with no argument): the account's devices\nadd RECORD: add a sibling by the hex record `guest init` printed\nremove KEY: remove a sibling",
                Commands.devices),
        command("pair", "print a one-time code that adds a new device, or join an account with one",
                usage: "[--valid 10m] [...] | - [--name NAME]", details: PairCommand.usage + "\n\n" + PairJoinCommand.usage,
                flags: [Flag("--relay", "URL", "the relay the new device joins through (default: `relay` of the config file)"),
                        Flag("--relay-alternates", "URL,URL", "other nodes of the relay's cluster the code names too"),
                        Flag("--pin", "HEX", "the relay certificate's SHA-256, for a self-signed relay"),
                        Flag("--valid", "TIME", "how long the code stays valid (default 10m)"),
                        Flag("--tries", "N", "wrong attempts that burn the code (default 3)"),
                        Flag("--no-wait", "print the code and return"),
                        Flag("--wait", "TIME", "issuing: stop waiting after TIME; joining: longest wait for the answer (default 30s)"),
                        Flag("--name", "NAME", "joining: this Homebase's name if it has no identity yet"),
                        Flag("--connect-timeout", "TIME", "joining: relay connect and handshake, each (default 10s)")],
                PairCommand.run),
        command("runtime", "probe and store an engine, list or forget them", usage: "add [URL] | list | remove URL",
                details: "add [URL]: probe an engine and store it if it passes (default http://127.0.0.1:11434)\nlist: stored runtimes\nremove URL: forget a runtime",
                Commands.runtime),
        command("share", "print an invite for another account's device (guest join -, then paste it)",
                usage: "[--models a,b] [--rate N/min] [--expires 7d] [...]", details: ShareCommand.usage,
                flags: [Flag("--models", "a,b", "models the grant allows (default: every model served now)"),
                        Flag("--rate", "N/min", "requests per minute the grant allows (default: no limit)"),
                        Flag("--expires", "TIME", "joins are refused after TIME (default 7d)"),
                        Flag("--grant-expires", "TIME", "the grants end TIME from now, or never (default: when the invite expires)"),
                        Flag("--uses", "N", "devices that may join with it (default 1)"),
                        Flag("--approve", "joins wait for `homebase grants approve ID`"),
                        Flag("--tools", "the friend may send requests that carry tools"),
                        Flag("--tokens", "N/day", "a token budget per friend device, per UTC day or N/month"),
                        Flag("--relay", "URL", "the relay named in the invite (default: `relay` of the config file)"),
                        Flag("--relay-alternates", "URL,URL", "other nodes of the relay's cluster the invite names too")],
                { f, c in try ShareCommand.run(f, c) }),
        command("grants", "grants to other accounts' devices: list, usage, approve, revoke",
                usage: "list | usage [--json] | approve ID | revoke ID", details: GrantsCommand.usage,
                flags: [Flag("--json", "usage: print JSON")], { f, c in try GrantsCommand.run(f, c) }),
    ] }

    static var program: Program {
        Program(name: "homebase", summary: "the workstation agent of Homebase: serves its engines to the account's devices through the relay.",
                globalFlags: globalFlags, commands: commands,
                failure: { _, error in ("homebase: \(error)", Self.status(of: error)) })
    }

    public static func main(_ arguments: [String], environment: [String: String]) async -> Int32 {
        await program.main(arguments, environment: environment)
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

extension HomebaseCLI {
    /// 2 for a setting the user gave wrong (a flag's value, a config file line: fix it and run
    /// again), as for any usage error; 1 for every other failure.
    static func status(of error: any Error) -> Int32 {
        if case .invalidSetting? = error as? HomebaseError { return 2 }
        return 1
    }
}
