import CommandLineKit
import GuestAgent

/// `guest COMMAND [flags]`: the command-line kit's program over the command table.
/// Exit status: 0 done, 1 failed, 2 bad command line.
enum GuestCLI {
    static let program = Program(
        name: "guest", summary: "the laptop agent of Homebase: routes each request to a brain, falls back to this device.",
        globalFlags: Flag.global, commands: CommandTable.all)

    static func main(_ argv: [String], environment: [String: String]) async -> Int32 {
        await program.main(argv, environment: environment)
    }

    static var overview: String { program.overview }
}
