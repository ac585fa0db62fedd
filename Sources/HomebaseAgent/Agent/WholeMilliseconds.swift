extension Duration {
    /// Whole milliseconds (a code's validity, a shaping boundary in `status`).
    package var wholeMilliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}
