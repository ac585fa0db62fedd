import Testing
@testable import Signing

@Test func moduleLinks() { #expect(Bool(true)) }
