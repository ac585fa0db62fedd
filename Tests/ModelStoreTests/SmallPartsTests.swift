import Testing
@testable import ModelStore

@Suite struct SmallPartsTests {
    @Test func linkHeaderNext() {
        #expect(LinkHeader.next("<https://h/api/models?cursor=abc>; rel=\"next\"") == "https://h/api/models?cursor=abc")
        #expect(LinkHeader.next("<https://h/a>; rel=\"prev\", <https://h/b>; rel=\"next\"") == "https://h/b")
        #expect(LinkHeader.next("<https://h/a>; rel=\"prev\"") == nil)
        #expect(LinkHeader.next(nil) == nil)
    }

    @Test func repoIDs() throws {
        #expect(try RepoID.validate("bartowski/Qwen2.5-7B-Instruct-GGUF") == "bartowski/Qwen2.5-7B-Instruct-GGUF")
        for bad in ["", "noslash", "/name", "owner/", "a/b/c", "own er/x", "a/..", "a/b?c", "a/-x", "ä/b"] {
            #expect(throws: ModelStoreError.invalidRepoID(bad)) { try RepoID.validate(bad) }
        }
    }

    @Test func capabilityGate() {
        #expect(Capability.toolCapable(template: "{% if tools %}x{% endif %}", repoID: "x/base"))
        #expect(!Capability.toolCapable(template: "{{ messages }}", repoID: "x/Model-Instruct"))  // template decides
        #expect(Capability.toolCapable(template: nil, repoID: "x/gemma-3-4b-it-GGUF"))
        #expect(Capability.toolCapable(template: "", repoID: "x/Qwen3-4B-Thinking"))
        #expect(!Capability.toolCapable(template: nil, repoID: "x/Mistral-7B-iterative"))
        #expect(Capability.visionCapable(pipelineTag: "any-to-any", files: []))
        #expect(Capability.visionCapable(pipelineTag: nil, files: ["sub/mmproj-F16.gguf"]))
        #expect(!Capability.visionCapable(pipelineTag: "text-generation", files: ["m-Q4_0.gguf"]))
        #expect(Capability.architectureAllowed(nil) && Capability.architectureAllowed("qwen2vl"))
        #expect(!Capability.architectureAllowed("whisper"))
    }

    @Test func progressLine() {
        var f = ProgressFormatter(width: 10, smoothing: 1)
        _ = f.line(DownloadProgress(received: 0, total: 2_000_000_000), at: 0)
        let line = f.line(DownloadProgress(received: 1_000_000_000, total: 2_000_000_000), at: 100)
        #expect(line == "[#####-----]   50%  1.0 GB / 2.0 GB  10 MB/s  ETA 1m40s")
        #expect(DownloadProgress(received: 5, total: nil).fraction == nil)
        #expect(ProgressFormatter.duration(3725) == "1h02m")
        #expect(ProgressFormatter.bytes(473_344) == "473 KB")
    }

    @Test func contentRangeAndETag() {
        #expect(PartFile.contentRange("bytes 100-199/1000")! == (100, 1000))
        #expect(PartFile.contentRange("bytes 5-9/*")! == (5, nil))
        #expect(PartFile.contentRange("items 1-2/3") == nil)
        #expect(PartFile.bareETag("W/\"abc\"") == "abc")
    }
}
