// What a request asks of the brain that answers it, beyond text. Read by the guest's router
// (which brain may take it) and by the Homebase's admission (what a grant allows): one
// definition, so both sides agree on what "carries tools" means.

extension ChatRequest {
    /// True when the request offers tools or continues a tool exchange (an assistant turn with
    /// calls, or a tool result).
    public var carriesTools: Bool {
        !tools.isEmpty || messages.contains { $0.role == .tool || !$0.toolCalls.isEmpty }
    }

    /// True when any message holds an image part.
    public var carriesImages: Bool {
        messages.contains { !$0.images.isEmpty }
    }
}
