import Foundation
import RelayServer

// Flags, config and the loop live in RelayServer; this file only hands over the process.
exit(RelayCLI.main(CommandLine.arguments, environment: ProcessInfo.processInfo.environment))
