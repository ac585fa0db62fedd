@preconcurrency import Glibc

/// Prints each line as it is printed, also into a pipe (a stopped bench still shows its tables).
public func lineBufferedOutput() { setvbuf(stdout, nil, _IOLBF, 0) }

/// The head of an end-to-end bench's report: its name, the command as run, the machine and the
/// load at the start (other work on the machine skews every figure).
public func printReportHead(_ bench: String) {
    print("## \(bench)")
    print("")
    print("command: `\(bench) \(CommandLine.arguments.dropFirst().joined(separator: " "))`  ")
    print("machine: \(Machine.summary)  ")
    print("load average at start: \(Machine.loadAverage)  ")
}
