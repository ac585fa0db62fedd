import CommandLineKit
import GuestAgent
import Routing

/// `guest settings get [NAME] | set NAME VALUE | unset NAME` on the routing settings.
enum SettingsCommand {
    static let command = Command(
        name: "settings", summary: "read and change the routing settings",
        usage: "get [NAME] | set NAME VALUE | unset NAME",
        details: "Settings:\n" + SettingName.allCases.map { "  \($0.rawValue): \($0.expected)" }.joined(separator: "\n"),
        flags: Array(Flag.relayLink.prefix(2)), run: run)

    static func run(_ inv: Invocation) async throws -> Int32 {
        let p = inv.positionals
        guard let verb = p.first else { throw inv.usageError("say get, set or unset") }
        let expected = ["get": 1...2, "set": 3...3, "unset": 2...2][verb]
        guard let expected else { throw inv.usageError("unknown subcommand \(verb): use get, set or unset") }
        guard expected.contains(p.count) else { throw inv.usageError("\(verb) takes \(verb == "set" ? "NAME VALUE" : verb == "get" ? "[NAME]" : "NAME")") }
        // A model choice is mailed to the siblings: that needs the relay link.
        let synced = verb == "set" ? SettingName(rawValue: p[1].lowercased()).flatMap(ModelChoiceSync.Kind.init(setting:)) : nil
        return try await inv.withContext(linked: synced != nil) { context, link in
            let store = context.settings
            do {
                switch verb {
                case "get" where p.count == 1:
                    for name in SettingName.allCases {
                        Console.out("\(name.rawValue) = \(try store.get(name) ?? name.unsetMeans.map { "(unset: \($0))" } ?? "(unset)")\n")
                    }
                case "get":
                    Console.out((try store.get(named: p[1]) ?? "(unset)") + "\n")
                case "set":
                    let value = try store.set(named: p[1], p[2])
                    Console.out("\(p[1]) = \(value)\n")
                    if let synced { _ = await link?.share(synced, value, context: context) }
                default:
                    guard let name = SettingName(rawValue: p[1].lowercased()) else { throw RoutingError.unknownSetting }
                    try store.unset(name)
                    Console.out("\(p[1]) unset\n")
                }
            } catch let e as RoutingError {
                switch e {
                case .unknownSetting, .invalidSettingValue: throw inv.usageError(e.description)
                default: throw e
                }
            }
            return 0
        }
    }
}
