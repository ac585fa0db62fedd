/// A GGUF quantization type and what it costs per parameter.
///
/// Bytes per parameter are calibrated on llama.cpp's own table (`llama-quantize --help`, sizes of
/// Llama-3-8B, 8.03 B parameters, in GiB): they include the tensors a quant keeps at higher
/// precision (embeddings, output), so they are a little above the type's nominal bits.
public struct Quant: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// Upper-case name as llama.cpp writes it: `Q4_K_M`, `IQ3_XXS`, `BF16`.
    public let name: String

    public init?(_ raw: String) {
        let upper = raw.uppercased()
        guard Quant.bytesPerParameter[upper] != nil else { return nil }
        name = upper
    }

    public var description: String { name }

    /// Calibrated bytes per parameter (see the type's comment).
    public var bytesPerParameter: Double { Quant.bytesPerParameter[name] ?? 2 }

    /// Effective bits per weight: the sort key (Q4 before Q5 before Q8 before F16/BF16).
    public var bits: Double { bytesPerParameter * 8 }

    public static func < (a: Quant, b: Quant) -> Bool {
        a.bits != b.bits ? a.bits < b.bits : a.name < b.name
    }

    /// GiB of an 8.03 B model / 8.03e9 * 2^30, rounded; types not in llama.cpp's table are
    /// placed from their nominal bits plus the same overhead.
    static let bytesPerParameter: [String: Double] = [
        "IQ1_S": 0.25, "IQ1_M": 0.27, "TQ1_0": 0.26, "TQ2_0": 0.30,
        "IQ2_XXS": 0.31, "IQ2_XS": 0.34, "IQ2_S": 0.36, "IQ2_M": 0.38,
        "Q2_K": 0.396, "Q2_K_L": 0.42, "Q2_K_XL": 0.44,
        "IQ3_XXS": 0.43, "IQ3_XS": 0.45, "Q3_K_S": 0.456, "IQ3_S": 0.46, "IQ3_M": 0.47,
        "Q3_K_M": 0.500, "Q3_K_L": 0.539, "Q3_K_XL": 0.55,
        "IQ4_XS": 0.56, "IQ4_NL": 0.58, "Q4_0": 0.580, "Q4_K_S": 0.584, "MXFP4": 0.59,
        "Q4_K_M": 0.612, "Q4_1": 0.64, "Q4_K_L": 0.65, "Q4_K_XL": 0.66,
        "Q5_0": 0.697, "Q5_K_S": 0.697, "Q5_K_M": 0.713, "Q5_1": 0.76, "Q5_K_L": 0.75, "Q5_K_XL": 0.76,
        "Q6_K": 0.821, "Q6_K_L": 0.84, "Q6_K_XL": 0.86,
        "Q8_0": 1.064, "Q8_K_XL": 1.10,
        "F16": 2.0, "BF16": 2.0, "F32": 4.0,
    ]

    /// The quant a GGUF file name carries (`Qwen2.5-1.5B-Instruct-Q4_K_M.gguf`,
    /// `model.q8_0.gguf`, `BF16/x-BF16-00001-of-00002.gguf`), or nil.
    public static func parse(fileName: String) -> Quant? {
        let base = fileName.split(separator: "/").last.map(String.init) ?? fileName
        let tokens = base.uppercased().split(whereSeparator: { $0 == "-" || $0 == "." })
        // Underscores join a quant's parts (Q4_K_M), so try the longest run of `_` pieces first.
        for token in tokens.reversed() {
            let pieces = token.split(separator: "_").map(String.init)
            for start in pieces.indices {
                for end in stride(from: pieces.count, to: start, by: -1) {
                    if let q = Quant(pieces[start..<end].joined(separator: "_")) { return q }
                }
            }
        }
        return nil
    }
}
