import Foundation
import RelayProbe
import RelayServer

// Flags, config and the loop live in RelayServer; `probe` (a device-side check) in RelayProbe.
// This file only hands over the process.
exit(RelayCLI.main(CommandLine.arguments, environment: ProcessInfo.processInfo.environment,
                   probe: ProbeCommand.main))
