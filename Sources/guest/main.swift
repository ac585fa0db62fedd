import Foundation

// Flags, config and dispatch live in GuestCLI; this file only hands over the process.
exit(await GuestCLI.main(CommandLine.arguments, environment: ProcessInfo.processInfo.environment))
