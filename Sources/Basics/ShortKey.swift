/// The first 8 hex digits and an ellipsis: enough for a person to tell keys apart in a log or a
/// status line. `hexDigits` and `ellipsis` keep the relay's own log form (16 digits, none).
package func shortKey(_ key: some Collection<UInt8>, hexDigits: Int = 8, ellipsis: Bool = true) -> String {
    String(hexString(key.prefix((hexDigits + 1) / 2)).prefix(hexDigits)) + (ellipsis ? "…" : "")
}
