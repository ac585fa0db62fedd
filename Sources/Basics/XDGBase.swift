#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// The XDG base directories the programs' data and config files hang under, resolved once for
/// every program: a variable that is unset or empty falls back to its place under the home.
package enum XDGBase {
    /// `$XDG_DATA_HOME`, or `~/.local/share`.
    package static func dataHome(environment: [String: String]) -> String {
        resolve("XDG_DATA_HOME", underHome: "/.local/share", environment)
    }

    /// `$XDG_CONFIG_HOME`, or `~/.config`.
    package static func configHome(environment: [String: String]) -> String {
        resolve("XDG_CONFIG_HOME", underHome: "/.config", environment)
    }

    private static func resolve(_ variable: String, underHome suffix: String, _ environment: [String: String]) -> String {
        if let value = environment[variable], !value.isEmpty { return value }
        return (environment["HOME"] ?? processHome()) + suffix
    }

    /// This process's home, as Foundation's `NSHomeDirectory` finds it: `$HOME`, else the
    /// password database (Basics stands on Glibc alone).
    private static func processHome() -> String {
        if let home = getenv("HOME"), home.pointee != 0 { return String(cString: home) }
        if let entry = getpwuid(getuid()), let dir = entry.pointee.pw_dir { return String(cString: dir) }
        return "/"
    }
}
