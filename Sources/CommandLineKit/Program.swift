/// A program of commands: `PROGRAM COMMAND [flags]`. It finds the command, parses its flags
/// (the program's global flags are taken before the command as well as after it), answers
/// `--help` on every command, and turns failures into exit statuses: 0 done, 1 failed, 2 a bad
/// command line (printed with what is wrong, the usage line and where the help is).
public struct Program: Sendable {
    public let name: String
    /// The overview's first line.
    public let summary: String
    /// Flags every command takes (`--data-dir`).
    public let globalFlags: [Flag]
    /// In help order.
    public let commands: [Command]
    /// More of the overview after the command list (signals, files, defaults).
    public let footer: String
    /// The message and exit status of a command's failure that is no `UsageError`.
    public let failure: @Sendable (_ command: String, _ error: any Error) -> (message: String, status: Int32)

    public init(name: String, summary: String, globalFlags: [Flag] = [], commands: [Command], footer: String = "",
                failure: (@Sendable (_ command: String, _ error: any Error) -> (message: String, status: Int32))? = nil) {
        self.name = name; self.summary = summary; self.globalFlags = globalFlags; self.commands = commands
        self.footer = footer
        self.failure = failure ?? { [name] command, error in ("\(name) \(command): \(error)", 1) }
    }

    public var overview: String {
        var s = "\(name): \(summary)\n\nUsage: \(name) COMMAND [flags]\n\nCommands:\n"
        let width = max(10, (commands.map(\.name.count).max() ?? 0) + 2)
        for c in commands { s += "  \(c.name.padding(to: width))\(c.summary)\n" }
        if !globalFlags.isEmpty {
            s += "\nFlags of every command:\n"
            for f in globalFlags {
                let left = "  \(f.name)\(f.value.map { " \($0)" } ?? "")"
                s += left.padding(to: max(left.count + 2, 26)) + f.help + "\n"
            }
        }
        if !footer.isEmpty { s += "\n\(footer)\n" }
        s += "\nRun `\(name) COMMAND --help` for a command's flags.\n"
        return s
    }

    public func command(_ name: String) -> Command? { commands.first { $0.name == name } }

    /// What a command line comes to before anything runs: an exit status already (help, a
    /// usage error), or a command to run.
    public enum Resolution: Sendable {
        case exit(Int32)
        case run(CommandCall)
    }

    /// Finds the command and parses its flags; prints help and usage errors.
    public func resolve(_ argv: [String], environment: [String: String], output: Output = .standard) -> Resolution {
        var args = Array(argv.dropFirst())
        // Global flags before the command: parsed with the command's, as if they came after it.
        var leading: [String] = []
        while let first = args.first, first.hasPrefix("-"), first != "-", !["--help", "-h"].contains(first) {
            let flagName = String(first.split(separator: "=", maxSplits: 1)[0])
            guard let flag = globalFlags.first(where: { $0.name == flagName }) else {
                if first == "--version", command("version") != nil { break }  // `--version` is the command
                return .exit(usage(.unknownFlag(flagName), command: nil, output))
            }
            leading.append(args.removeFirst())
            if flag.value != nil, !first.contains("="), !args.isEmpty { leading.append(args.removeFirst()) }
        }
        guard let name = args.first, !["--help", "-h", "help"].contains(name) else {
            output.out(overview)
            return .exit(args.isEmpty ? 2 : 0)
        }
        guard let command = command(name) ?? (name == "--version" ? command("version") : nil) else {
            return .exit(usage(.unknownCommand(name, known: commands.map(\.name)), command: nil, output))
        }
        var parsed = ParsedArguments()
        if command.rawArguments {
            parsed.positionals = leading + args.dropFirst()
        } else {
            do {
                parsed = try ParsedArguments.parse(leading + args.dropFirst(), flags: command.flags + globalFlags + [Flag.help])
            } catch {
                return .exit(usage(error, command: command, output))
            }
            if parsed.has(Flag.help.name) {
                output.out(command.help(program: self.name, globalFlags: globalFlags))
                return .exit(0)
            }
        }
        return .run(CommandCall(program: self.name, command: command, arguments: parsed, environment: environment, output: output))
    }

    /// Runs `argv` (its first word is the program's path); returns the exit status.
    public func main(_ argv: [String], environment: [String: String], output: Output = .standard) async -> Int32 {
        let call: CommandCall
        switch resolve(argv, environment: environment, output: output) {
        case .exit(let status): return status
        case .run(let c): call = c
        }
        do {
            switch call.command.body {
            case .async(let run): return try await run(call)
            case .blocking(let run): return try run(call)
            }
        } catch {
            return finish(error, call)
        }
    }

    /// `main` for a program whose commands block (no async runtime needed on the main thread);
    /// an async command is a programming error here.
    public func mainBlocking(_ argv: [String], environment: [String: String], output: Output = .standard) -> Int32 {
        switch resolve(argv, environment: environment, output: output) {
        case .exit(let status): return status
        case .run(let call):
            guard case .blocking(let run) = call.command.body else {
                preconditionFailure("\(name) \(call.command.name): an async command run by mainBlocking")
            }
            do { return try run(call) } catch { return finish(error, call) }
        }
    }

    private func finish(_ error: any Error, _ call: CommandCall) -> Int32 {
        if let usage = error as? UsageError { return self.usage(usage, command: call.command, call.output) }
        let (message, status) = failure(call.command.name, error)
        call.output.err(message + "\n")
        return status
    }

    /// What is wrong, the usage line, where the help is; exit 2.
    public func usage(_ error: UsageError, command: Command?, _ output: Output) -> Int32 {
        if let command {
            output.err("\(name) \(command.name): \(error)\nUsage: \(name) \(command.name) \(command.usage)\n"
                       + "Run `\(name) \(command.name) --help` for the flags.\n")
        } else {
            output.err("\(name): \(error)\nRun `\(name) --help` for the commands.\n")
        }
        return 2
    }
}
