import Glibc
import RelayWire

/// The command line of `homebase-relay`: `serve [flags]`, `probe URL ...`, `version`, `help`.
public enum RelayCLI {
    public static let version = "0.1.0"

    static let usage = """
        homebase-relay: forwards sealed frames between Homebase devices by public key.

        usage:
          homebase-relay serve [--key value ...]   run the relay (see `homebase-relay serve --help`)
          homebase-relay probe URL [--timeout MS] [--pin HEX] [--token T]
                                                   check a running relay end to end (`probe --help`)
          homebase-relay version                   print the version
          homebase-relay --help                    this text

        Signals: SIGTERM/SIGINT tell devices `restarting` and stop cleanly; SIGHUP re-reads the
        TLS certificate and the allowlist/token files without dropping connections.

        """

    static var serveUsage: String {
        """
        usage: homebase-relay serve [--key value | --key=value ...]

        Settings come from (later wins): defaults, a config file (--config FILE or
        HOMEBASE_RELAY_CONFIG; `key = value` lines, `#` comments), the environment
        (HOMEBASE_RELAY_<KEY>, e.g. HOMEBASE_RELAY_MAIL_TTL=3d), then flags.

          --config FILE         config file of `key = value` lines
        \(ConfigLoader.helpText())
        """
    }

    /// Runs the command line; returns the exit status (2 for usage and configuration errors).
    /// `probe` runs the arguments after it (the executable passes RelayProbe's command: this module
    /// never links the device side).
    public static func main(_ arguments: [String], environment: [String: String],
                            probe: (([String]) -> Int32)? = nil) -> Int32 {
        let args = Array(arguments.dropFirst())
        guard let command = args.first else { out(usage); return 2 }
        let rest = Array(args.dropFirst())
        switch command {
        case "--help", "-h", "help":
            out(usage)
            return 0
        case "version", "--version":
            out("homebase-relay \(version) (relay protocol \(RelayFrame.protocolVersion))\n")
            return 0
        case "probe" where probe != nil: return probe?(rest) ?? 2
        case "serve":
            if rest.contains("--help") || rest.contains("-h") { out(serveUsage); return 0 }
            do {
                let config = try ConfigLoader.load(arguments: rest, environment: environment)
                return RelayProcess.serve(config)
            } catch {
                err("homebase-relay: \(error)\n")
                return error.exitCode
            }
        default:
            err("homebase-relay: \(RelayError.unknownCommand(command))\n")
            return 2
        }
    }

    private static func out(_ s: String) { write(1, s) }
    private static func err(_ s: String) { write(2, s) }
    private static func write(_ fd: Int32, _ s: String) {
        _ = s.utf8CString.withUnsafeBufferPointer { p in Glibc.write(fd, p.baseAddress, p.count - 1) }
    }
}
