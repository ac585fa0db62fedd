/// Why `guest serve` or `guest runtime` refused. Messages name no secret and no prompt.
public enum LocalAPIError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A request body the endpoint cannot read (answered 400).
    case badRequest(String)
    /// `--listen` is not `HOST:PORT` with a numeric IPv4/IPv6 host.
    case invalidListen(String)
    /// A non-loopback bind without `--allow-remote` and a `--token`.
    case remoteNeedsToken(String)
    /// The runtime file could not be read or written.
    case runtimeFile(String)
    /// `--allow-origin` is not `http(s)://HOST[:PORT]`.
    case invalidOrigin(String)
    /// `--token-file` cannot be read, is readable by others, or holds no token.
    case tokenFile(path: String, detail: String)
    /// No brain the user chose can take the request (an image and none can see, tools and none
    /// can use them): answered 422 with the router's words, before anything is sent anywhere.
    case unservable(String)
    /// The request is over the limits of the brain chosen for it (the relay's, per image and per
    /// request): answered 413 naming the limit, before anything is sent anywhere.
    case tooLarge(String)

    public var description: String {
        switch self {
        case .badRequest(let m): "bad request: \(m)"
        case .invalidListen(let s): "--listen \(s): expected HOST:PORT with a numeric address, e.g. 127.0.0.1:11435"
        case .remoteNeedsToken(let h): "\(h) is not a loopback address: binding to it needs --allow-remote and --token-file FILE (or $HOMEBASE_SERVE_TOKEN)"
        case .runtimeFile(let m): "runtime file: \(m)"
        case .invalidOrigin(let s): "--allow-origin \(s.prefix(80)): expected an origin like http://localhost:3000 (scheme, host, optional port; no path)"
        case .tokenFile(let p, let d): "--token-file \(p): \(d)"
        case .unservable(let m), .tooLarge(let m): m
        }
    }
}
