import Foundation
import HomebaseAgent

// Flags, config and the agent live in HomebaseAgent; this file only hands over the process.
exit(await HomebaseCLI.main(CommandLine.arguments, environment: ProcessInfo.processInfo.environment))
