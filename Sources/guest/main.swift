import Foundation
import GuestAgent

// Flags, config and dispatch live in GuestCLI; this file only hands over the process.
ReaderClock.processStart = .now  // the reader's clock starts with the command
exit(await GuestCLI.main(CommandLine.arguments, environment: ProcessInfo.processInfo.environment))
