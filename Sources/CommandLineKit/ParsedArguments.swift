/// A command line parsed against a command's flags: values by flag, in the order given, and
/// the positional words.
public struct ParsedArguments: Sendable, Equatable {
    public private(set) var values: [String: [String]] = [:]
    /// Every value in the order given (what a key table's layer applies, last wins).
    public private(set) var ordered: [Assignment] = []
    public var positionals: [String] = []

    public init() {}

    public func has(_ name: String) -> Bool { values[name] != nil }
    public func value(_ name: String) -> String? { values[name]?.last }
    public func all(_ name: String) -> [String] { values[name] ?? [] }

    /// `--` ends the flags; a lone `-` and anything not starting with `-` is positional; `-h`
    /// is `--help`. A flag the list lacks is a usage error, as is a switch given `=value`, a
    /// value missing at the end, and a second value of a flag that `Repeats.refused`.
    public static func parse(_ args: [String], flags: [Flag]) throws(UsageError) -> ParsedArguments {
        var parsed = ParsedArguments()
        var i = 0
        var flagsDone = false
        while i < args.count {
            let arg = args[i]
            i += 1
            if flagsDone || !arg.hasPrefix("-") || arg == "-" { parsed.positionals.append(arg); continue }
            if arg == "--" { flagsDone = true; continue }
            let word = arg == "-h" ? Flag.help.name : arg
            let parts = word.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard let flag = flags.first(where: { $0.name == parts[0] }) else { throw .unknownFlag(parts[0]) }
            guard let placeholder = flag.value else {
                guard parts.count == 1 else { throw .takesNoValue(flag: flag.name) }
                parsed.values[flag.name] = [""]
                continue
            }
            let value: String
            if parts.count == 2 {
                value = parts[1]
            } else {
                guard i < args.count else { throw .needsValue(flag: flag.name, placeholder: placeholder) }
                value = args[i]
                i += 1
            }
            if parsed.values[flag.name] != nil {
                switch flag.repeats {
                case .refused: throw .givenTwice(flag: flag.name)
                case .lastWins: parsed.values[flag.name] = []
                case .collected: break
                }
            }
            parsed.values[flag.name, default: []].append(value)
            parsed.ordered.append(Assignment(key: String(flag.name.dropFirst(2)), value: value, source: "flag \(flag.name)"))
        }
        return parsed
    }

    // Typed reads: nil when the flag is absent, a usage error naming the flag and the form when
    // its value does not parse.

    /// A duration of the one grammar (`DurationGrammar`), at least `minimum` (nil: zero allowed).
    public func duration(_ name: String, bare: DurationGrammar.Bare = .seconds,
                         above minimum: Duration? = nil) throws(UsageError) -> Duration? {
        guard let text = value(name) else { return nil }
        guard let d = DurationGrammar.parse(text, bare: bare), minimum.map({ d > $0 }) ?? true else {
            throw .invalid("\(name) takes a duration\(minimum == .zero ? " above zero" : ""): \(DurationGrammar.examples) (got \"\(text)\")")
        }
        return d
    }

    /// A whole number within `range`.
    public func integer(_ name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard let text = value(name) else { return nil }
        guard let n = CountGrammar.whole(text), range.contains(n) else {
            throw .invalid("\(name) takes a whole number from \(range.lowerBound) to \(range.upperBound) (got \"\(text)\")")
        }
        return n
    }

    /// A byte size of the one grammar (`SizeGrammar`), at least `minimum`.
    public func size(_ name: String, atLeast minimum: Int64 = 0) throws(UsageError) -> Int64? {
        guard let text = value(name) else { return nil }
        guard let n = SizeGrammar.parse(text), n >= minimum else {
            throw .invalid("\(name) takes \(SizeGrammar.form)\(minimum > 0 ? " of at least \(minimum)" : "") (got \"\(text)\")")
        }
        return n
    }
}
