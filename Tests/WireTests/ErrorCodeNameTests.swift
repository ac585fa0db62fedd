import Testing
import Wire

/// The error codes and their names, beside each other once (SPEC.md, error codes): the Homebase's
/// `status` counters and the guest's errors both read `AppMessage.ErrorCode.name`.
@Suite struct ErrorCodeNameTests {
    @Test func everyCodeHasTheSpecsName() {
        let names: [(AppMessage.ErrorCode, String)] = [
            (.modelUnavailable, "model_unavailable"), (.hostError, "host_error"), (.busy, "busy"),
            (.diverged, "diverged"), (.cacheMiss, "cache_miss"), (.revoked, "revoked"),
            (.badRequest, "bad_request"), (.tooLarge, "too_large"), (.unsupported, "unsupported"),
        ]
        for (code, name) in names { #expect(code.name == name) }
        #expect(AppMessage.ErrorCode(rawValue: 200).name == "host_error", "an unknown code reads as it is treated")
    }
}
