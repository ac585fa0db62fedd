// A relay that is far away, played on loopback: a TCP proxy in front of the real relay that
// holds every byte for a fixed time before passing it on, each way (--relay-delay-ms). On
// loopback the relay answers a ping in well under the engine's time to first token, so a wait
// for a confirmation hides behind the engine; a relay 20 ms away does not hide it.
import BenchSupport
import Foundation
import Glibc
import Synchronization

final class DelayProxy: Sendable {
    let port: UInt16
    /// The relay's port, set once it listens (the relay needs our port for its origin first).
    let upstream = PortBox()
    private let listener: Int32

    final class PortBox: Sendable {
        private let value = Atomic<UInt16>(0)
        func set(_ p: UInt16) { value.store(p, ordering: .releasing) }
        var port: UInt16 { value.load(ordering: .acquiring) }
    }

    init(delayMs: Int) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard fd >= 0, bound == 0, listen(fd, 64) == 0 else { throw BenchError("the delay proxy cannot listen on loopback") }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        listener = fd
        port = UInt16(bigEndian: addr.sin_port)
        let delay = UInt64(delayMs) * 1_000_000, relay = upstream
        Thread.detachNewThread {
            while true {
                let client = accept(fd, nil, nil)
                guard client >= 0 else { return }
                let up = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                var to = Self.loopback(port: relay.port)
                let ok = withUnsafePointer(to: &to) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(up, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                }
                guard ok == 0 else { close(client); close(up); continue }
                for s in [client, up] { var one: Int32 = 1; setsockopt(s, Int32(IPPROTO_TCP), TCP_NODELAY, &one, 4) }
                Self.pipe(from: client, to: up, delayNs: delay)
                Self.pipe(from: up, to: client, delayNs: delay)
            }
        }
    }

    func stop() { shutdown(listener, Int32(SHUT_RDWR)); close(listener) }

    /// One direction: a reader stamps what arrives, a writer passes it on once its time has come.
    private static func pipe(from: Int32, to: Int32, delayNs: UInt64) {
        let queue = Mutex<[(due: UInt64, bytes: [UInt8])]>([])
        let ready = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            var buf = [UInt8](repeating: 0, count: 65_536)
            while true {
                let n = read(from, &buf, buf.count)
                let due = DispatchTime.now().uptimeNanoseconds + delayNs
                queue.withLock { $0.append((due, n > 0 ? Array(buf[0..<n]) : [])) }  // empty: the end
                ready.signal()
                if n <= 0 { return }
            }
        }
        Thread.detachNewThread {
            while true {
                ready.wait()
                guard let item = queue.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { continue }
                let now = DispatchTime.now().uptimeNanoseconds
                if item.due > now { usleep(useconds_t((item.due - now) / 1000)) }
                if item.bytes.isEmpty { shutdown(to, Int32(SHUT_WR)); return }  // fds live as long as the bench
                var off = 0
                while off < item.bytes.count {
                    let w = item.bytes[off...].withUnsafeBytes { write(to, $0.baseAddress, $0.count) }
                    if w <= 0 { return }
                    off += w
                }
            }
        }
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_port = port.bigEndian
        a.sin_addr.s_addr = inet_addr("127.0.0.1")
        return a
    }
}
