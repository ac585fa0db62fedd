import PeerLink

/// The probe's settings, parsed from `probe URL [--timeout MS] [--pin SHA256HEX] [--token T]`.
public struct ProbeOptions: Sendable {
    /// `ws://host:port[/path]` or `wss://...`.
    public var url: String
    /// The whole probe (both devices connected, live round trip, mail stored and delivered)
    /// must finish within this.
    public var timeout: Duration = .seconds(10)
    /// SHA-256 of the relay's DER certificate, for a self-signed relay (`wss://` only).
    public var pin: String?
    /// Admission token presented by both throwaway devices (relays with `admission = token`).
    public var token: String?

    public init(url: String, timeout: Duration = .seconds(10), pin: String? = nil, token: String? = nil) {
        self.url = url; self.timeout = timeout; self.pin = pin; self.token = token
    }

    /// Parses the arguments after `probe`; `--key value` and `--key=value` both work.
    public init(arguments: [String]) throws(ProbeError) {
        var url: String?
        var timeout = Duration.seconds(10)
        var pin: String?, token: String?
        var i = 0
        while i < arguments.count {
            var arg = arguments[i]
            var inline: String?
            if arg.hasPrefix("--"), let eq = arg.firstIndex(of: "=") {
                inline = String(arg[arg.index(after: eq)...])
                arg = String(arg[..<eq])
            }
            func value() throws(ProbeError) -> String {
                if let inline { return inline }
                i += 1
                guard i < arguments.count else { throw .usage("\(arg) needs a value") }
                return arguments[i]
            }
            switch arg {
            case "--timeout":
                let v = try value()
                guard let ms = Int(v), ms > 0, ms <= 3_600_000 else { throw .usage("--timeout is milliseconds, 1 to 3600000") }
                timeout = .milliseconds(ms)
            case "--pin": pin = try value()
            case "--token": token = try value()
            default:
                guard !arg.hasPrefix("-"), url == nil else { throw .usage("unexpected argument \(arg)") }
                url = arg
            }
            i += 1
        }
        guard let url else { throw .usage("a relay URL is required (ws://host:port or wss://host:port)") }
        self.init(url: url, timeout: timeout, pin: pin, token: token)
    }

    /// The link settings both throwaway devices use: no automatic retry worth waiting for (a
    /// probe reports the first failure), every wait bounded by the probe's timeout.
    func linkConfiguration(log: @escaping @Sendable (String) -> Void) throws(ProbeError) -> PeerLink.Configuration {
        var trust = PeerLink.Trust.systemRoots
        if let pin {
            do { trust = try .pinned(hex: pin) } catch { throw .usage("--pin: \(error)") }
        }
        var c: PeerLink.Configuration
        do { c = try PeerLink.Configuration(relayURL: url, trust: trust) } catch { throw .usage("\(error)") }
        c.connectTimeout = timeout
        c.authTimeout = timeout
        c.liveTimeout = timeout
        c.deadLinkTimeout = timeout + .seconds(1)
        c.pingInterval = timeout
        c.backoff = Backoff(initial: timeout, maximum: timeout, jitter: 0)
        c.outboxCapacity = 4
        c.log = log
        return c
    }

    static let usage = """
        usage: homebase-relay probe URL [--timeout MS] [--pin SHA256HEX] [--token T]

        Connects to the relay at URL (ws://host:port or wss://host:port) as two throwaway devices
        (fresh keys), sends a live frame and a mail frame between them, prints the round-trip
        times and exits 0; on any failure prints one line saying why and exits 1 (2: bad usage).

          --timeout MS      the whole probe must finish within MS milliseconds (default 10000)
          --pin SHA256HEX   trust exactly the certificate with this SHA-256 (self-signed relay)
          --token T         admission token for relays with `admission = token`

        Example (cron, every 5 minutes; mail on failure):
          */5 * * * * homebase-relay probe wss://relay.example.com --timeout 5000 >/dev/null

        """
}
