@preconcurrency import Glibc

/// Prints each line as it is printed, also into a pipe (a stopped bench still shows its tables).
public func lineBufferedOutput() { setvbuf(stdout, nil, _IOLBF, 0) }
