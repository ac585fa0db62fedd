// What became of a code a sibling asked for (`guest pair` with no code): the Homebase tells the
// asker when the code is used (with the joiner's record, so the asker need not guess from the
// roster) or burnt by wrong tries (so it need not wait for the expiry). Live when the asker is
// connected, else mail. A receiver that does not know this type skips it (SPEC §3).
//
// pair-code-outcome (0x3b): request id 16 | code id 8 | outcome u8 | wrong tries u8 | device record bytes32
//     outcomes: 1 used (device record: the joiner's signed record, as in a roster),
//     2 burnt (device record empty). Unknown outcomes MUST be shown as "the code can no longer be used".
import RelayWire

extension AppMessage {
    /// The end of a code issued for a `pair-code-request` (same request id).
    public struct PairCodeOutcome: Equatable, Sendable, BodyCodable {
        public enum Outcome: Equatable, Sendable {
            /// A device joined with the code.
            case used
            /// Too many wrong tries.
            case burnt
            case other(UInt8)

            public var code: UInt8 {
                switch self {
                case .used: 1
                case .burnt: 2
                case .other(let c): c
                }
            }

            public init(code: UInt8) {
                switch code {
                case 1: self = .used
                case 2: self = .burnt
                default: self = .other(code)
                }
            }
        }

        public var requestID: Bytes16
        public var codeID: Bytes8
        public var outcome: Outcome
        /// Wrong tries counted on the code.
        public var wrongTries: UInt8
        /// The joiner's signed device record (opaque to Wire) when used; empty otherwise.
        public var deviceRecord: [UInt8]

        public init(requestID: Bytes16, codeID: Bytes8, outcome: Outcome, wrongTries: UInt8, deviceRecord: [UInt8] = []) {
            self.requestID = requestID; self.codeID = codeID; self.outcome = outcome
            self.wrongTries = wrongTries; self.deviceRecord = deviceRecord
        }

        func write(to w: inout ByteWriter) throws(WireError) {
            w.fixed(requestID); w.fixed(codeID); w.u8(outcome.code); w.u8(wrongTries)
            try w.prefixed(4, deviceRecord, limit: .max, "device record")
        }

        static func read(_ r: inout ByteReader) throws(WireError) -> PairCodeOutcome {
            PairCodeOutcome(requestID: try r.fixed("request id"), codeID: try r.fixed("code id"),
                            outcome: Outcome(code: try r.u8("outcome")), wrongTries: try r.u8("wrong tries"),
                            deviceRecord: try r.prefixed(4, limit: .max, "device record"))
        }
    }
}

extension AppMessage.PairCodeOutcome: DescribedAsMessage { public var asMessage: AppMessage { .pairCodeOutcome(self) } }
