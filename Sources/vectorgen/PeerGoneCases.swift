// Vectors for `peer-gone` (relay frame 0x19; layout in Sources/RelayWire/RelayFrame.swift, SPEC.md
// "Relay frames"). Fields written by hand from the inputs, like WireCases.swift.
import Basics
import Wire

func peerGoneVectorCases() -> [VectorCase] {
    let peer = Bytes32.repeating(0xE2)
    func gone(_ name: String, _ comment: String, _ reason: UInt8) -> VectorCase {
        let f = RelayFrame.peerGone(.init(peer: peer, reason: PeerGoneReason(rawValue: reason)))
        return VectorCase(name: "frame-peer-gone-" + name, kind: "relay-frame", expect: "success", comment: comment,
                          fields: [("type", "19"), ("peer-key", peer.hex), ("reason", hexString([reason]))], payload: try! f.encode())
    }
    return [
        gone("closed", "the peer's connection closed", 1),
        gone("replaced", "a newer connection took the peer's key", 2),
        gone("silent", "the peer missed its idle deadline or a liveness probe", 3),
        VectorCase(name: "frame-peer-gone-truncated", kind: "relay-frame", expect: "truncated",
                   comment: "a peer-gone without its reason byte", payload: [0x19, 0, 0, 0, 0, 32] + peer.bytes),
    ]
}
