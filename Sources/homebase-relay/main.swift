import Foundation
import RelayProbe
import RelayServer

// The commands live beside this file (RelayCLI), the settings table and the loop in RelayServer, `probe`
// (a device-side check) in RelayProbe.
// This file only hands over the process.
exit(RelayCLI.main(CommandLine.arguments, environment: ProcessInfo.processInfo.environment,
                   probe: ProbeCommand.main))
