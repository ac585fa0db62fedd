import Testing
@testable import Inference

/// The cut of an engine's echo of the assistant prefill (llama-server repeats it; others do not).
@Suite struct PrefillEchoTests {
    func run(_ prefill: String?, _ pieces: [String]) -> String {
        var echo = PrefillEcho(prefill)
        return pieces.map { echo.pass($0) }.joined() + echo.flush()
    }

    @Test func anEchoInOnePieceIsCut() {
        #expect(run("Partial answer: ", ["Partial answer: q", "#0"]) == "q#0")
    }

    @Test func anEchoSplitOverPiecesIsCut() {
        #expect(run("Partial answer: ", ["Par", "tial ans", "wer: ", "next"]) == "next")
    }

    @Test func anEngineThatDoesNotEchoLosesNothing() {
        #expect(run("Partial answer: ", ["and then", " more"]) == "and then more")
        #expect(run("Partial answer: ", ["Part of it", " differs"]) == "Part of it differs")
    }

    @Test func textHeldAsAPossibleEchoIsReleasedAtTheEnd() {
        #expect(run("Partial answer: ", ["Part"]) == "Part")
    }

    @Test func withoutAPrefillEverythingPasses() {
        #expect(run(nil, ["a", "b"]) == "ab")
        #expect(run("", ["a", "b"]) == "ab")
    }

    @Test func multiByteTextIsCutOnItsBoundary() {
        #expect(run("Grüße, ", ["Grü", "ße, 世界"]) == "世界")
    }
}
