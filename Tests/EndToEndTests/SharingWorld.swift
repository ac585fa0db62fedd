import Foundation
import Glibc

/// One relay, optionally the tiny engine, one Homebase data directory, guests by name.
struct SharingWorld {
    let bin: Binaries
    let procs: Processes
    let relay: String
    let enginePort: Int
    let linkFlags = ["--relay-wait", "3s", "--connect-timeout", "2s"]
    let chatFlags = ["--relay-wait", "3s", "--connect-timeout", "2s", "--accept-timeout", "5s",
                     "--first-output-timeout", "30s", "--stall-timeout", "10s"]

    init(engine: Bool) throws {
        bin = try Binaries.locate()
        procs = try Processes()
        let relayPort = try Processes.freePort()
        enginePort = try Processes.freePort()
        relay = "ws://127.0.0.1:\(relayPort)"
        try procs.start(bin.path("homebase-relay"),
                        ["serve", "--listen", "127.0.0.1:\(relayPort)", "--data-dir", procs.work + "/relay", "--metrics-listen", "off"], log: "relay.log")
        if engine {
            try procs.start(bin.engine, ["--model", bin.model, "--host", "127.0.0.1", "--port", "\(enginePort)",
                                         "--alias", "tiny"], log: "engine.log")
        }
        try procs.waitUntil(30, "the relay") { Processes.canConnect(relayPort) }
        if engine { try procs.waitUntil(60, "llama-server") { Processes.canConnect(enginePort) } }
    }

    var hostDir: String { procs.work + "/host" }

    /// `homebase init`: the host's device key.
    func initHost(_ name: String) throws -> String {
        let out = try homebase(["init", "--name", name])
        guard let line = out.split(separator: "\n").first(where: { $0.hasPrefix("device key: ") }) else {
            throw Failure("no device key in: \(out)")
        }
        return String(line.dropFirst("device key: ".count))
    }

    /// Runs `homebase ARGS`; throws on a non-zero exit with its stderr.
    @discardableResult
    func homebase(_ args: [String]) throws -> String {
        let r = try procs.capture(bin.path("homebase"), ["--data-dir", hostDir] + args)
        guard r.status == 0 else { throw Failure("homebase \(args.joined(separator: " ")) exited \(r.status): \(r.err)") }
        return r.out
    }

    func startHost() throws {
        try procs.start(bin.path("homebase"), ["--data-dir", hostDir, "run", "--relay", relay, "--reload-interval", "200ms",
                                               "--advert-pulse", "2s"], log: "homebase.log")
        try procs.waitUntil(30, "the Homebase to connect") { procs.read("homebase.log").contains("connected to the relay") }
    }

    /// `homebase share ARGS`: the invite (its first line).
    func share(_ args: [String]) throws -> String {
        let out = try homebase(["share", "--relay", relay] + args)
        return String(out.prefix { $0 != "\n" })
    }

    /// `guest ARGS` in the data directory `work/NAME`, with the engine flags.
    func guest(_ name: String, _ args: [String]) throws -> (status: Int32, out: String, err: String) {
        try procs.capture(bin.path("guest"), args + ["--data-dir", procs.work + "/" + name, "--llama-server", bin.engine,
                                                     "--model-path", bin.model])
    }
}

/// Tampering with an invite's text the way an attacker could: change the secret, fix the checksum.
enum InviteText {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")

    static func withSecretByteFlipped(_ code: String) throws -> String {
        let prefix = "hb-invite-"
        guard code.hasPrefix(prefix), var b = decode(String(code.dropFirst(prefix.count))), b.count > 8 else {
            throw Failure("not an invite: \(code)")
        }
        b.removeLast(4)
        // b = u16 length | 0x30 | relay url str16 | host key 32 | hpke key 32 | secret 32 | ...
        let urlLength = Int(b[3]) << 8 | Int(b[4])
        b[2 + 1 + 2 + urlLength + 64] ^= 0x01
        let crc = crc32(b)
        b += [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
        return prefix + encode(b)
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func decode(_ text: String) -> [UInt8]? {
        var bits: UInt32 = 0, count = 0
        var out: [UInt8] = []
        for c in text {
            guard let v = alphabet.firstIndex(of: c) else { return nil }
            bits = bits << 6 | UInt32(v)
            count += 6
            if count >= 8 { count -= 8; out.append(UInt8(truncatingIfNeeded: bits >> UInt32(count))) }
        }
        return out
    }

    static func encode(_ bytes: [UInt8]) -> String {
        var bits: UInt32 = 0, count = 0
        var out = ""
        for b in bytes {
            bits = bits << 8 | UInt32(b)
            count += 8
            while count >= 6 { count -= 6; out.append(alphabet[Int(bits >> UInt32(count) & 63)]) }
        }
        if count > 0 { out.append(alphabet[Int(bits << UInt32(6 - count) & 63)]) }
        return out
    }
}
