#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// Reads into `buffer` until it is full or the file ends, retried on EINTR (a short read is not
/// the end). A failed read stops it: `errno` is then the error, the count what was read before.
package func readFully(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> (count: Int, errno: Int32?) {
    var done = 0
    while done < buffer.count {
        let n = read(fd, buffer.baseAddress! + done, buffer.count - done)
        if n < 0 && errno == EINTR { continue }
        if n < 0 { return (done, errno) }
        if n == 0 { break }
        done += n
    }
    return (done, nil)
}

/// Writes every byte of `bytes`, retried on EINTR. False when a write failed or wrote nothing
/// (`errno` then says why): the rest is not written.
package func writeFully(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
    var done = 0
    while done < bytes.count {
        let n = write(fd, bytes.baseAddress! + done, bytes.count - done)
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { return false }
        done += n
    }
    return true
}
