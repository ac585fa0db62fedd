import Basics
import Foundation
import Transport

/// A self-signed certificate for "localhost" and 127.0.0.1, written by the openssl CLI into
/// `dir` (a fresh temporary directory when nil) as `<name>.crt` and `<name>.key`.
public func makeCertificate(in dir: String? = nil, name: String = "relay") throws -> (cert: String, key: String) {
    let dir = try dir ?? temporaryDirectory("cert")
    let cert = dir + "/\(name).crt", key = dir + "/\(name).key"
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
    p.arguments = ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                   "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=localhost",
                   "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"]
    p.standardOutput = FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    try p.run()
    p.waitUntilExit()
    guard p.terminationStatus == 0 else { throw SetupError("openssl req failed") }
    return (cert, key)
}

/// The certificate's pin (SHA-256 of its DER) as 64 lowercase hex digits.
public func pinHex(_ certFile: String) throws -> String {
    hexString(try TLSClientContext.fingerprint(ofPEMFile: certFile))
}

extension String {
    public func leftPadded(_ n: Int) -> String { String(repeating: "0", count: max(0, n - count)) + self }
}
