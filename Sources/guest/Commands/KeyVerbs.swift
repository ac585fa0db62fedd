import Basics
import CloudKeys
import Signing

/// `guest keys add|list|remove|move|test`, over CloudKeys' rings: `KeysCommandLine` and the page
/// (`PageActions`) call `run` in one line.
enum KeyVerbs {
    static let help = """
        usage: guest keys add PROVIDER [KEY|-]     add a key (read from stdin when - or absent)
               guest keys list                     every ring, masked; the first key is used
               guest keys remove PROVIDER N        remove key N (1 is the first)
               guest keys move PROVIDER FROM TO    reorder; moving a key to 1 makes it the one used
               guest keys test PROVIDER [N]        ask the provider whether key N (default 1) is valid
                                                   (GET /v1/models: no tokens spent)
        PROVIDER is openai or anthropic. Keys stay on this device, in files of mode 0600.

        """

    /// Exit codes: 0 done (and for `test`, the key is valid), 1 failure (or a key that is not
    /// valid), 2 bad input. `readSecret` supplies the key for `add` without it on the command
    /// line (the CLI passes `SecretInput.readLine`); the key is never echoed.
    static func run(arguments: [String], dataDir: String, output: @Sendable (String) -> Void,
                           readSecret: () -> [UInt8]? = { SecretInput.readLine(prompt: "API key: ") },
                           tester: KeyTester = KeyTester()) async -> Int32 {
        let store = CloudKeyStore(dataDir: dataDir)
        let a = arguments
        func position(_ s: String) throws(CloudKeysError) -> Int {
            guard let n = Int(s), n >= 1 else { throw .badArgument("\"\(s.prefix(12))\" is not a position (1, 2, ...)") }
            return n
        }
        do {
            switch (a.first ?? "", a.count) {
            case ("add", 2), ("add", 3):
                let p = try CloudProvider(argument: a[1])
                var raw: [UInt8]
                if a.count == 3, a[2] != "-" {
                    raw = Array(a[2].utf8)
                } else {
                    guard let line = readSecret() else { output("guest keys add: no key on standard input\n"); return 2 }
                    raw = line
                }
                let key = SecretBytes(raw)
                wipe(&raw)
                try store.add(p, key: key)
                output("added \(KeyMask.masked(key)) to \(p.rawValue) (position \(try store.keys(p).count))\n")
            case ("list", 1):
                var text = ""
                for p in CloudProvider.allCases {
                    let ring = try store.keys(p)
                    text += "\(p.rawValue):\(ring.isEmpty ? " none" : "")\n"
                    for (i, k) in ring.enumerated() {
                        text += "  \(i + 1)  \(KeyMask.masked(k))\(i == 0 ? "  (in use)" : "")\n"
                    }
                }
                output(text)
            case ("remove", 3):
                let p = try CloudProvider(argument: a[1])
                let n = try position(a[2])
                try store.remove(p, position: n)
                output("removed key \(n) from \(p.rawValue)\n")
            case ("move", 4):
                let p = try CloudProvider(argument: a[1])
                try store.move(p, from: try position(a[2]), to: try position(a[3]))
                output("moved key \(a[2]) of \(p.rawValue) to \(a[3])\n")
            case ("test", 2), ("test", 3):
                let p = try CloudProvider(argument: a[1])
                let n = a.count == 3 ? try position(a[2]) : 1
                let ring = try store.keys(p)
                guard ring.indices.contains(n - 1) else { throw CloudKeysError.noSuchPosition(p, position: n, count: ring.count) }
                let outcome = await tester.test(p, key: ring[n - 1])
                output("\(p.rawValue) key \(n) (\(KeyMask.masked(ring[n - 1]))): \(outcome)\n")
                return outcome == .valid ? 0 : 1
            case ("--help", _), ("-h", _), ("help", _):
                output(help)
            default:
                output("guest keys: unknown or malformed command\n\n" + help)
                return 2
            }
            return 0
        } catch let e as CloudKeysError {
            output("guest keys: \(e)\n")
            switch e {
            case .unknownProvider, .invalidKey, .noSuchPosition, .duplicate, .badArgument: return 2
            default: return 1
            }
        } catch {
            output("guest keys: \(error)\n")
            return 1
        }
    }
}
