import CommandLineKit
import RelayServer
import RelayWire

/// The command line of `homebase-relay`: `serve [flags]`, `probe URL ...`, `version`, `help`
/// (the command-line kit's program; exit 2 for usage and configuration errors).
public enum RelayCLI {
    public static let version = "0.1.0"

    static let footer = """
        Signals: SIGTERM/SIGINT tell devices `restarting` and stop cleanly; SIGHUP re-reads the
        TLS certificate and the allowlist/token files without dropping connections.
        """

    static let serveDetails = """
        Settings come from (later wins): defaults, a config file (--config FILE or
        HOMEBASE_RELAY_CONFIG; `key = value` lines, `#` comments), the environment
        (HOMEBASE_RELAY_<KEY>, e.g. HOMEBASE_RELAY_MAIL_TTL=3d), then flags.
        Durations take a unit (250ms, 30s, 10m, 2h, 7d); sizes are bytes or 64KiB, 4MiB, 1GiB.
        """

    /// The program: `probe` runs the arguments after it (the executable passes RelayProbe's
    /// command: this module never links the device side).
    static func program(probe: (@Sendable ([String]) -> Int32)?) -> Program {
        var commands = [
            Command(name: "serve", summary: "run the relay", usage: "[--key value | --key=value ...]",
                    details: serveDetails, flags: ConfigLoader.flags, blocking: { call in
                let config: RelayConfig
                do { config = try ConfigLoader.load(call.arguments, environment: call.environment) }
                catch let e as UsageError { throw ConfigLoader.relayError(e) }
                return RelayProcess.serve(config)
            }),
            Command(name: "version", summary: "print the version", usage: "", flags: [], blocking: { call in
                call.output.out("homebase-relay \(version) (relay protocol \(RelayFrame.protocolVersion))\n")
                return 0
            }),
        ]
        if let probe {
            commands.insert(Command(name: "probe", summary: "check a running relay end to end (`probe --help`)",
                                    usage: "URL [--timeout MS] [--pin HEX] [--token T]", flags: [], rawArguments: true,
                                    blocking: { call in probe(call.positionals) }), at: 1)
        }
        return Program(name: "homebase-relay", summary: "forwards sealed frames between Homebase devices by public key.",
                       commands: commands, footer: footer,
                       failure: { _, error in ("homebase-relay: \(error)", (error as? RelayError)?.exitCode ?? 1) })
    }

    /// Runs the command line; returns the exit status.
    public static func main(_ arguments: [String], environment: [String: String],
                            probe: (@Sendable ([String]) -> Int32)? = nil) -> Int32 {
        program(probe: probe).mainBlocking(arguments, environment: environment)
    }
}
