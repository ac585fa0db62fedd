import Sealing
import Signing
import Wire
@testable import GuestAgent

/// An advert for the tiny model, signed by `host` with its own device key.
func tinyAdvert(by host: DeviceIdentity, _ sequence: UInt64) throws -> AppMessage.Advert {
    var a = AppMessage.Advert(hostKey: host.signingKey.publicKey, sequence: sequence,
                              timestampMs: 1, models: [.init(tag: "tiny", family: "llama", parameterSize: "1M",
                                                             quantization: "F32", contextLength: 2048,
                                                             capabilities: .completion)])
    a.signature = Bytes64(unchecked: host.signingKey.sign(try a.signedBytes()))
    return a
}
