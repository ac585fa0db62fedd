import Foundation
import Inference

/// Message content and images as the APIs spell them, read into `ContentPart`s. Shared by every
/// endpoint that takes content (chat, Responses, Messages).
enum ContentReading {
    /// OpenAI content: a string, null, or parts `{"type": "text", "text"}` and
    /// `{"type": "image_url", "image_url": {"url": "data:...", "detail"}}` (or `"image_url": "data:..."`).
    /// Any other part type is refused by name.
    static func openAI(_ v: Any?) throws(LocalAPIError) -> [ContentPart] {
        switch v {
        case nil, is NSNull: return []
        case let s as String: return s.isEmpty ? [] : [.text(s)]
        case let parts as [JSONObject]:
            return try parts.map { p throws(LocalAPIError) in
                let type = p["type"] as? String ?? "text"
                switch type {
                case "text", "input_text":
                    guard let t = p["text"] as? String else { throw .badRequest("a text part has no text") }
                    return .text(t)
                case "image_url":
                    let url = (p["image_url"] as? JSONObject)?["url"] ?? p["image_url"]
                    guard let s = url as? String else { throw .badRequest("an image_url part has no url") }
                    return .image(try dataURL(s))
                default:
                    throw .badRequest("content parts of type \"\(type.prefix(40))\" are not supported (text and image_url are)")
                }
            }
        default: throw .badRequest("a message content is neither text nor a list of parts")
        }
    }

    /// `data:<image media type>;base64,<bytes>`. Nothing is fetched: an http(s) URL is refused.
    static func dataURL(_ url: String) throws(LocalAPIError) -> ImageData {
        let lower = url.prefix(8).lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
            throw .badRequest("image URLs are not fetched: send the image inline as a data URL (data:image/png;base64,...)")
        }
        guard lower.hasPrefix("data:"), let comma = url.firstIndex(of: ",") else {
            throw .badRequest("an image URL must be a data URL (data:image/png;base64,...)")
        }
        let header = url[url.index(url.startIndex, offsetBy: 5)..<comma]
        guard header.lowercased().hasSuffix(";base64") else { throw .badRequest("an image data URL must be base64") }
        let mediaType = String(header.dropLast(7)).lowercased()
        guard mediaType.hasPrefix("image/") else {
            throw .badRequest("a data URL of type \"\(mediaType.prefix(40))\" is not an image")
        }
        let bytes = try base64(url[url.index(after: comma)...])
        return ImageData(mediaType: mediaType, bytes: bytes)
    }

    /// Ollama's `images`, Anthropic's `source.data`: bare base64; the media type is the one
    /// given (Anthropic's `media_type`) or read from the bytes.
    static func base64Image(_ text: String, mediaType given: String? = nil) throws(LocalAPIError) -> ImageData {
        let bytes = try base64(Substring(text))
        if let given {
            guard given.lowercased().hasPrefix("image/") else { throw .badRequest("media type \"\(given.prefix(40))\" is not an image") }
            return ImageData(mediaType: given.lowercased(), bytes: bytes)
        }
        guard let type = mediaType(of: bytes) else {
            throw .badRequest("an image is not PNG, JPEG, GIF or WebP")
        }
        return ImageData(mediaType: type, bytes: bytes)
    }

    /// The image type from the first bytes (the formats every vision runtime reads).
    static func mediaType(of b: [UInt8]) -> String? {
        if b.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if b.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if b.starts(with: Array("GIF8".utf8)) { return "image/gif" }
        if b.count >= 12, b.starts(with: Array("RIFF".utf8)), Array(b[8..<12]) == Array("WEBP".utf8) { return "image/webp" }
        return nil
    }

    private static func base64(_ text: Substring) throws(LocalAPIError) -> [UInt8] {
        guard let d = Data(base64Encoded: String(text), options: [.ignoreUnknownCharacters]), !d.isEmpty else {
            throw .badRequest("an image is not valid base64")
        }
        return [UInt8](d)
    }
}
