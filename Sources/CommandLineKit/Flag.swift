/// A flag a command takes: `--name` alone (a switch), or `--name VALUE` / `--name=VALUE`.
public struct Flag: Sendable, Equatable {
    /// What a second `--name VALUE` does.
    public enum Repeats: Sendable, Equatable {
        /// A usage error (`--name given twice`).
        case refused
        /// Every value is kept, in order (`--allow-dir A --allow-dir B`).
        case collected
        /// The last one counts (settings of a key table: a flag may override an earlier one).
        case lastWins
    }

    /// With the dashes: `--data-dir`.
    public let name: String
    /// The value's placeholder (`DIR`); nil for a switch.
    public let value: String?
    public let repeats: Repeats
    public let help: String

    /// A switch.
    public init(_ name: String, _ help: String) {
        self.name = name; self.value = nil; self.repeats = .refused; self.help = help
    }

    /// A flag with a value; `repeatable` keeps every value given.
    public init(_ name: String, _ value: String, repeatable: Bool = false, _ help: String) {
        self.init(name, value, repeats: repeatable ? .collected : .refused, help)
    }

    public init(_ name: String, _ value: String, repeats: Repeats, _ help: String) {
        self.name = name; self.value = value; self.repeats = repeats; self.help = help
    }

    public var repeatable: Bool { repeats != .refused }

    /// Every command takes it; the program answers it before the command runs.
    public static let help = Flag("--help", "show this help")
}
