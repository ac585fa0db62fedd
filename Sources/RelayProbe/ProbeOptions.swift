import Glibc
import PeerLink

/// The probe's settings, parsed from `probe URL [--timeout MS] [--pin SHA256HEX] [--token-file FILE]`.
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
            case "--token-file": token = try Self.readToken(try value())
            default:
                guard !arg.hasPrefix("-"), url == nil else { throw .usage("unexpected argument \(arg)") }
                url = arg
            }
            i += 1
        }
        guard let url else { throw .usage("a relay URL is required (ws://host:port or wss://host:port)") }
        self.init(url: url, timeout: timeout, pin: pin, token: token)
    }

    /// The first line of `path`, which only its owner may read (an argument would be visible to
    /// every user in the process list; a loose file is refused as key files are).
    static func readToken(_ path: String) throws(ProbeError) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .usage("--token-file \(path): cannot be read (\(String(cString: strerror(errno))))") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & 0o077 == 0 else {
            throw .usage("--token-file \(path): group or others may read it; run chmod 600 \(path)")
        }
        var bytes = [UInt8](repeating: 0, count: 4096)
        let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        let line = bytes.prefix(max(n, 0)).split(separator: 0x0A, omittingEmptySubsequences: false).first ?? []
        let token = String(decoding: line, as: UTF8.self).filter { $0 != " " && $0 != "\t" && $0 != "\r" }
        guard !token.isEmpty else { throw .usage("--token-file \(path): holds no token on its first line") }
        return token
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
        usage: homebase-relay probe URL [--timeout MS] [--pin SHA256HEX] [--token-file FILE]

        Connects to the relay at URL (ws://host:port or wss://host:port) as two throwaway devices
        (fresh keys), sends a live frame and a mail frame between them, prints the round-trip
        times and exits 0; on any failure prints one line saying why and exits 1 (2: bad usage).

          --timeout MS      the whole probe must finish within MS milliseconds (default 10000)
          --pin SHA256HEX   trust exactly the certificate with this SHA-256 (self-signed relay)
          --token-file FILE admission token for relays with `admission = token`: the file's first
                            line; the file must not be readable by group or others (default: none)
          --token T         the same, given as an argument (visible to other users in the process list)

        Example (cron, every 5 minutes; mail on failure):
          */5 * * * * homebase-relay probe wss://relay.example.com --timeout 5000 >/dev/null

        """
}
