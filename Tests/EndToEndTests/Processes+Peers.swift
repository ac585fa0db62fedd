import Foundation
import Glibc

// What the fault suite needs beyond `Processes` (TestSupport's ChildProcesses, which also feeds a
// program through its stdin): the Python that runs the stand-in engine, and a plain HTTP GET
// (the relay's `/metrics`).
extension Processes {
    /// The project venv's Python when `scripts/setup.sh` made it, else the system's: the
    /// stand-in engine needs only the standard library.
    static var python: String { anyPython }

    /// `GET path` on 127.0.0.1:`port`, the body; nil when nothing answers within 2 s.
    static func httpGet(port: Int, path: String) -> String? {
        guard let fd = connectLoopback(port, receiveTimeout: 2) else { return nil }
        defer { close(fd) }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, 0) }) == request.count else { return nil }
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            data += buffer[0..<n]
            // The relay may keep the connection open: stop once the announced body is in.
            if let text = String(validating: data, as: UTF8.self), let body = Self.completeBody(text) { return body }
        }
        return String(validating: data, as: UTF8.self).flatMap(Self.completeBody)
    }

    /// The body of a whole HTTP response with Content-Length, nil while it is incomplete.
    static func completeBody(_ response: String) -> String? {
        guard let split = response.range(of: "\r\n\r\n") else { return nil }
        let head = response[..<split.lowerBound].lowercased()
        let body = String(response[split.upperBound...])
        guard let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
              let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) else {
            return body
        }
        return body.utf8.count >= length ? body : nil
    }
}
