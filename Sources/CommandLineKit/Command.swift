/// One command of a program: its name, help and flags, and what it runs.
public struct Command: Sendable {
    public let name: String
    public let summary: String
    /// The usage line after `PROGRAM NAME`, e.g. `[flags] [PROMPT]`.
    public let usage: String
    /// More help: subcommands, examples, settings.
    public let details: String
    public let flags: [Flag]
    /// The words after the command go to `run` untouched, as positionals (a command that parses
    /// its own, such as one handed over from another module); no `--help` is answered for it.
    public let rawArguments: Bool
    public let body: Body

    /// What the command runs: async, or blocking the calling thread (the relay's event loop runs
    /// on the main thread; `Program.mainBlocking` runs only these).
    public enum Body: Sendable {
        case async(@Sendable (CommandCall) async throws -> Int32)
        case blocking(@Sendable (CommandCall) throws -> Int32)
    }

    public init(name: String, summary: String, usage: String, details: String = "", flags: [Flag],
                rawArguments: Bool = false, run: @escaping @Sendable (CommandCall) async throws -> Int32) {
        self.name = name; self.summary = summary; self.usage = usage; self.details = details
        self.flags = flags; self.rawArguments = rawArguments; self.body = .async(run)
    }

    /// A command that blocks the calling thread until it is done.
    public init(name: String, summary: String, usage: String, details: String = "", flags: [Flag],
                rawArguments: Bool = false, blocking: @escaping @Sendable (CommandCall) throws -> Int32) {
        self.name = name; self.summary = summary; self.usage = usage; self.details = details
        self.flags = flags; self.rawArguments = rawArguments; self.body = .blocking(blocking)
    }

    /// `PROGRAM NAME --help`: the summary, the usage line, the details, every flag.
    public func help(program: String, globalFlags: [Flag]) -> String {
        var s = "\(program) \(name): \(summary)\n\nUsage: \(program) \(name) \(usage)\n"
        if !details.isEmpty { s += "\n\(details)\n" }
        let all = flags + globalFlags + [Flag.help]
        s += "\nFlags:\n"
        for f in all {
            let left = "  \(f.name)\(f.value.map { " \($0)" } ?? "")"
            s += left.padding(to: max(left.count + 2, 26)) + f.help + (f.repeats == .collected ? " (repeatable)" : "") + "\n"
        }
        return s
    }
}

/// A command about to run: the program, the command, its parsed arguments, the environment.
public struct CommandCall: Sendable {
    public let program: String
    public let command: Command
    public let arguments: ParsedArguments
    public let environment: [String: String]
    public let output: Output

    public init(program: String, command: Command, arguments: ParsedArguments, environment: [String: String],
                output: Output = .standard) {
        self.program = program; self.command = command; self.arguments = arguments
        self.environment = environment; self.output = output
    }

    public var positionals: [String] { arguments.positionals }

    /// What is wrong and how to fix it; the program prints it with the usage line, exit 2.
    public func usageError(_ message: String) -> UsageError { .invalid(message) }
}

extension String {
    func padding(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
