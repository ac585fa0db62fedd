import Testing
@testable import Sealing

@Test func moduleLinks() { #expect(Bool(true)) }
