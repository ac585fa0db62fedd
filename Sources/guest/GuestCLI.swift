import GuestAgent

/// `guest COMMAND [flags]`: finds the command in the table, parses its flags, runs it.
/// Exit status: 0 done, 1 failed, 2 bad command line.
enum GuestCLI {
    static func main(_ argv: [String], environment: [String: String]) async -> Int32 {
        let args = Array(argv.dropFirst())
        guard let name = args.first, name != "--help", name != "-h", name != "help" else {
            Console.out(overview)
            return args.isEmpty ? 2 : 0
        }
        guard let command = CommandTable.all.first(where: { $0.name == name }) else {
            Console.err("guest: unknown command \(name)\nCommands: \(CommandTable.all.map(\.name).joined(separator: ", "))\nRun `guest --help` for more.\n")
            return 2
        }
        do {
            let parsed = try ParsedArguments.parse(Array(args.dropFirst()), flags: command.allFlags)
            if parsed.has("--help") {
                Console.out(command.help)
                return 0
            }
            return try await command.run(Invocation(command: command, arguments: parsed, environment: environment))
        } catch let usage as UsageError {
            Console.err("guest \(command.name): \(usage.message)\nUsage: guest \(command.name) \(command.usage)\nRun `guest \(command.name) --help` for the flags.\n")
            return 2
        } catch {
            Console.err("guest \(command.name): \(error)\n")
            return 1
        }
    }

    static var overview: String {
        var s = "guest: the laptop agent of Homebase: routes each request to a brain, falls back to this device.\n\n"
        s += "Usage: guest COMMAND [flags]\n\nCommands:\n"
        for c in CommandTable.all { s += "  \(c.name.padding(toLength: 10, withPad: " ", startingAt: 0))\(c.summary)\n" }
        s += "\nRun `guest COMMAND --help` for a command's flags.\n"
        return s
    }
}
