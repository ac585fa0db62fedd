import Testing
@testable import ModelStore

/// Real repo names from the hub, with what the browser must show (family | series | size).
let realNames: [(String, String?)] = [
    ("bartowski/Qwen2.5-Coder-1.5B-Instruct-GGUF", "Qwen|Qwen 2.5|1.5B Coder"),
    ("Qwen/Qwen2.5-7B-Instruct-GGUF", "Qwen|Qwen 2.5|7B"),
    ("Qwen/Qwen2.5-VL-3B-Instruct-GGUF", "Qwen|Qwen 2.5|3B Vision"),
    ("Qwen/Qwen3-8B-GGUF", "Qwen|Qwen 3|8B"),
    ("unsloth/Qwen3-30B-A3B-GGUF", "Qwen|Qwen 3|30B-A3B"),
    ("unsloth/Qwen3-4B-Thinking-2507-GGUF", "Qwen|Qwen 3|4B Thinking"),
    ("Qwen/Qwen2.5-Math-7B-Instruct-GGUF", "Qwen|Qwen 2.5|7B Math"),
    ("Qwen/Qwen1.5-0.5B-Chat-GGUF", "Qwen|Qwen 1.5|0.5B"),
    ("ggml-org/Qwen2.5-Omni-3B-GGUF", "Qwen|Qwen 2.5|3B Omni"),
    ("Qwen/Qwen3-VL-2B-Instruct-GGUF", "Qwen|Qwen 3|2B Vision"),
    ("bartowski/QwQ-32B-GGUF", "QwQ|QwQ|32B"),
    ("bartowski/Meta-Llama-3.1-8B-Instruct-GGUF", "Llama|Llama 3.1|8B"),
    ("bartowski/Llama-3.2-1B-Instruct-GGUF", "Llama|Llama 3.2|1B"),
    ("bartowski/Llama-3.2-3B-Instruct-GGUF", "Llama|Llama 3.2|3B"),
    ("unsloth/Llama-3.2-11B-Vision-Instruct-GGUF", "Llama|Llama 3.2|11B Vision"),
    ("TheBloke/Llama-2-7B-Chat-GGUF", "Llama|Llama 2|7B"),
    ("TheBloke/Llama-2-13B-chat-GGUF", "Llama|Llama 2|13B"),
    ("unsloth/Llama-4-Scout-17B-16E-Instruct-GGUF", "Llama|Llama 4|17B"),
    ("lmstudio-community/Llama-3.3-70B-Instruct-GGUF", "Llama|Llama 3.3|70B"),
    ("TheBloke/CodeLlama-7B-Instruct-GGUF", "Code Llama|Code Llama|7B"),
    ("TheBloke/CodeLlama-34B-Python-GGUF", "Code Llama|Code Llama|34B"),
    ("TheBloke/TinyLlama-1.1B-Chat-v1.0-GGUF", "TinyLlama|TinyLlama v1.0|1.1B"),
    ("ggml-org/gemma-3-4b-it-GGUF", "Gemma|Gemma 3|4B"),
    ("ggml-org/gemma-3-27b-it-GGUF", "Gemma|Gemma 3|27B"),
    ("bartowski/gemma-2-2b-it-GGUF", "Gemma|Gemma 2|2B"),
    ("google/gemma-2b-it-GGUF", "Gemma|Gemma|2B"),
    ("unsloth/gemma-3n-E2B-it-GGUF", "Gemma|Gemma 3n|E2B"),
    ("unsloth/gemma-3n-E4B-it-GGUF", "Gemma|Gemma 3n|E4B"),
    ("bartowski/codegemma-7b-it-GGUF", "CodeGemma|CodeGemma|7B"),
    ("unsloth/medgemma-4b-it-GGUF", "MedGemma|MedGemma|4B"),
    ("microsoft/Phi-3-mini-4k-instruct-gguf", "Phi|Phi 3|mini"),
    ("bartowski/Phi-3.5-mini-instruct-GGUF", "Phi|Phi 3.5|mini"),
    ("bartowski/Phi-3-medium-128k-instruct-GGUF", "Phi|Phi 3|medium"),
    ("unsloth/phi-4-GGUF", nil),
    ("bartowski/phi-4-14B-GGUF", "Phi|Phi 4|14B"),
    ("MaziyarPanahi/Mistral-7B-Instruct-v0.3-GGUF", "Mistral|Mistral v0.3|7B"),
    ("TheBloke/Mistral-7B-Instruct-v0.2-GGUF", "Mistral|Mistral v0.2|7B"),
    ("bartowski/Mistral-Small-3.1-24B-Instruct-2503-GGUF", "Mistral|Mistral|24B"),
    ("bartowski/Mistral-Nemo-Instruct-2407-GGUF", nil),
    ("TheBloke/Mixtral-8x7B-Instruct-v0.1-GGUF", "Mixtral|Mixtral v0.1|8x7B"),
    ("bartowski/Ministral-8B-Instruct-2410-GGUF", "Ministral|Ministral|8B"),
    ("unsloth/Magistral-Small-2506-GGUF", "Magistral|Magistral|small"),
    ("unsloth/Devstral-Small-2505-GGUF", "Devstral|Devstral|small"),
    ("HuggingFaceTB/SmolLM2-1.7B-Instruct-GGUF", "SmolLM|SmolLM 2|1.7B"),
    ("HuggingFaceTB/SmolLM2-135M-Instruct-GGUF", "SmolLM|SmolLM 2|135M"),
    ("ggml-org/SmolVLM2-2.2B-Instruct-GGUF", "SmolVLM|SmolVLM 2|2.2B"),
    ("ggml-org/SmolVLM-256M-Instruct-GGUF", "SmolVLM|SmolVLM|256M"),
    ("unsloth/DeepSeek-R1-Distill-Qwen-1.5B-GGUF", "DeepSeek|DeepSeek R1|1.5B Distill"),
    ("bartowski/DeepSeek-R1-Distill-Llama-8B-GGUF", "DeepSeek|DeepSeek R1|8B Distill"),
    ("TheBloke/deepseek-coder-6.7B-instruct-GGUF", "DeepSeek|DeepSeek|6.7B Coder"),
    ("ibm-granite/granite-3.1-8b-instruct-GGUF", "Granite|Granite 3.1|8B"),
    ("ibm-granite/granite-vision-3.2-2b-GGUF", "Granite|Granite|2B Vision"),
    ("allenai/OLMo-2-1124-7B-Instruct-GGUF", "OLMo|OLMo 2|7B"),
    ("allenai/OLMoE-1B-7B-0924-Instruct-GGUF", "OLMoE|OLMoE|1B"),
    ("tiiuae/Falcon3-7B-Instruct-GGUF", "Falcon|Falcon 3|7B"),
    ("internlm/internlm2_5-7b-chat-gguf", "InternLM|InternLM 2|7B"),
    ("bartowski/Yi-1.5-9B-Chat-GGUF", "Yi|Yi 1.5|9B"),
    ("TheBloke/stablelm-zephyr-3b-GGUF", "StableLM|StableLM|3B"),
    ("NousResearch/Hermes-3-Llama-3.1-8B-GGUF", "Hermes|Hermes 3|8B"),
    ("bartowski/c4ai-command-r-v01-GGUF", nil),
    ("bartowski/aya-expanse-8b-GGUF", "Aya|Aya|8B"),
    ("THUDM/glm-4-9b-chat-GGUF", "GLM|GLM 4|9B"),
    ("openbmb/MiniCPM-V-2_6-gguf", nil),
    ("openbmb/MiniCPM-o-2_6-gguf", nil),
    ("LiquidAI/LFM2-1.2B-GGUF", "LFM|LFM 2|1.2B"),
    ("LiquidAI/LFM2-VL-1.6B-GGUF", "LFM|LFM 2|1.6B Vision"),
    ("LGAI-EXAONE/EXAONE-3.5-2.4B-Instruct-GGUF", "EXAONE|EXAONE 3.5|2.4B"),
    ("mys/ggml_llava-v1.5-7b", "LLaVA|LLaVA v1.5|7B"),
    ("vikhyatk/moondream2", nil),
    ("ggml-org/gpt-oss-20b-GGUF", "gpt-oss|gpt-oss|20B"),
    ("bartowski/nvidia_Llama-3.1-Nemotron-Nano-8B-v1-GGUF", "Nemotron|Nemotron v1|8B"),
    ("cognitivecomputations/dolphin-2.9-llama3-8b-gguf", "Dolphin|Dolphin 2.9|8B"),
    ("TheBloke/zephyr-7B-beta-GGUF", "Zephyr|Zephyr|7B"),
    ("TheBloke/openchat-3.5-0106-GGUF", nil),
    ("TheBloke/starcoder2-15b-GGUF", "StarCoder|StarCoder 2|15B"),
    ("bartowski/my-cool-merge-GGUF", nil),
    ("TheBloke/Nous-Capybara-7B-v1.9-GGUF", nil),
    ("second-state/All-MiniLM-L6-v2-Embedding-GGUF", nil),
]

@Suite struct NameParserTests {
    @Test func parsesRealWorldNames() {
        #expect(realNames.count >= 60)
        for (repo, expected) in realNames {
            let got = NameParser.parse(repoID: repo).map { "\($0.family)|\($0.series)|\($0.size)" }
            #expect(got == expected, "\(repo)")
        }
    }

    @Test func longestFamilyWins() {
        #expect(NameParser.parse(repoID: "x/CodeLlama-13B-GGUF")?.family == "Code Llama")
        #expect(NameParser.parse(repoID: "x/TinyLlama-1.1B-GGUF")?.family == "TinyLlama")
        #expect(NameParser.parse(repoID: "x/Llama-3-8B-GGUF")?.family == "Llama")
    }

    @Test func familyMustStartAWord() {
        // "dolphin" holds "phi"; "Phind" starts with "phi": neither is Phi.
        #expect(NameParser.parse(repoID: "x/dolphin-7b-GGUF")?.family == "Dolphin")
        #expect(NameParser.parse(repoID: "x/Phind-CodeLlama-34B-v2-GGUF")?.family == "Code Llama")
    }

    @Test func sizeTokensAndParameters() {
        #expect(NameParser.parse(repoID: "x/Mixtral-8x7B-GGUF")?.parameters == 56e9)
        #expect(NameParser.parse(repoID: "x/Qwen2.5-1.5B-GGUF")?.parameters == 1.5e9)
        #expect(NameParser.parse(repoID: "x/SmolLM2-135M-GGUF")?.parameters == 135e6)
        #expect(NameParser.parse(repoID: "x/Phi-3-mini-GGUF")?.parameters == nil)
        #expect(NameParser.parse(repoID: "x/Qwen2.5-GGUF") == nil)  // no size: dropped
    }
}
