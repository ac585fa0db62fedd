import Foundation
import Inference

/// Images as clients send them, into `ImageData`. Only inline bytes: `guest serve` fetches no
/// URL (the Homebase fetches nothing either), so a URL is refused with what to send instead.
enum ImageInput {
    /// Bytes of one image after decoding; a larger one is refused (the relay carries whole
    /// requests, and a 4 MiB request body already bounds the base64 text).
    static let maxBytes = 3 * 1024 * 1024

    /// `data:image/png;base64,AAAA` (OpenAI `image_url`, Responses `input_image`).
    static func dataURL(_ url: String) throws(LocalAPIError) -> ImageData {
        guard url.hasPrefix("data:") else {
            throw .badRequest("image URLs are not fetched here: send the image inline as a data: URL (data:image/png;base64,...)")
        }
        guard let comma = url.firstIndex(of: ",") else { throw .badRequest("an image data URL has no comma") }
        let head = url[url.index(url.startIndex, offsetBy: 5)..<comma]
        let parts = head.split(separator: ";")
        guard parts.last == "base64" else { throw .badRequest("an image data URL is not base64") }
        let media = parts.count > 1 ? String(parts[0]) : "image/png"
        return try base64(String(url[url.index(after: comma)...]), mediaType: media)
    }

    /// Plain base64 (Anthropic `source.data`, Ollama `images`). Ollama sends no media type:
    /// it is read from the first bytes (PNG, JPEG, GIF, WebP), else `image/png`.
    static func base64(_ text: String, mediaType: String? = nil) throws(LocalAPIError) -> ImageData {
        guard let d = Data(base64Encoded: text, options: .ignoreUnknownCharacters), !d.isEmpty else {
            throw .badRequest("an image is not valid base64")
        }
        guard d.count <= maxBytes else { throw .badRequest("an image is \(d.count) bytes; at most \(maxBytes) are carried") }
        let bytes = [UInt8](d)
        return ImageData(mediaType: mediaType ?? sniff(bytes), bytes: bytes)
    }

    static func sniff(_ b: [UInt8]) -> String {
        if b.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if b.starts(with: Array("GIF8".utf8)) { return "image/gif" }
        if b.count >= 12, b.starts(with: Array("RIFF".utf8)), Array(b[8..<12]) == Array("WEBP".utf8) { return "image/webp" }
        return "image/png"
    }
}
