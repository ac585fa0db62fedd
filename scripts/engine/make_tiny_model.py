#!/usr/bin/env python3
"""Writes a tiny random-weight llama-architecture GGUF for tests (no model download).

    python3 make_tiny_model.py OUT.gguf [--seed N]

Run it with the engine venv's python (scripts/engine/venv.sh prints it; it has `gguf` and
`numpy`), or use scripts/engine/tiny_model.sh, which does that. Byte-identical for a seed.

The model: 2 layers, embedding 64, 4 heads, FFN 128, context 2048, F32, ~470 KB. Its
output is random printable ASCII: every output row is zero except those of the printable
ASCII byte tokens and "\\n", so the text is always valid UTF-8 and a run never stops before
max_tokens (EOS and the ChatML tokens keep logit 0 while allowed tokens reach ~+20).
"""
import argparse
import hashlib
import os
import sys

import numpy as np
import gguf

N_LAYERS = 2
N_EMBD = 64
N_HEAD = 4
N_FF = 128
N_CTX = 2048
HEAD_DIM = N_EMBD // N_HEAD

# Vocabulary: SPM ("llama") with byte fallback only, plus the SPM space piece and ChatML.
UNK, BOS, EOS = 0, 1, 2
FIRST_BYTE = 3  # <0x00> .. <0xFF> are ids 3 .. 258
SPACE_PIECE = FIRST_BYTE + 256  # "▁": without it, spaces come back as a literal "▁"
IM_START, IM_END = SPACE_PIECE + 1, SPACE_PIECE + 2

# A ChatML template (Qwen 2.5 style) that renders tools, so llama.cpp reports tool support and
# accepts `tools`; llama.cpp recognises the <tool_call> format.
CHAT_TEMPLATE = """{%- if tools %}
    {{- '<|im_start|>system\\n' }}
    {%- if messages[0]['role'] == 'system' %}
        {{- messages[0]['content'] + '\\n\\n' }}
    {%- endif %}
    {{- "# Tools\\n\\nYou may call one or more functions to assist with the user query.\\n\\nYou are provided with function signatures within <tools></tools> XML tags:\\n<tools>" }}
    {%- for tool in tools %}
        {{- "\\n" }}
        {{- tool | tojson }}
    {%- endfor %}
    {{- "\\n</tools>\\n\\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\\n<tool_call>\\n{\\"name\\": <function-name>, \\"arguments\\": <args-json-object>}\\n</tool_call><|im_end|>\\n" }}
{%- elif messages[0]['role'] == 'system' %}
    {{- '<|im_start|>system\\n' + messages[0]['content'] + '<|im_end|>\\n' }}
{%- endif %}
{%- for message in messages %}
    {%- if (message.role == "user") or (message.role == "system" and not loop.first) or (message.role == "assistant" and not message.tool_calls) %}
        {{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' + '\\n' }}
    {%- elif message.role == "assistant" %}
        {{- '<|im_start|>' + message.role }}
        {%- if message.content %}
            {{- '\\n' + message.content }}
        {%- endif %}
        {%- for tool_call in message.tool_calls %}
            {%- if tool_call.function is defined %}
                {%- set tool_call = tool_call.function %}
            {%- endif %}
            {{- '\\n<tool_call>\\n{"name": "' }}
            {{- tool_call.name }}
            {{- '", "arguments": ' }}
            {{- tool_call.arguments | tojson }}
            {{- '}\\n</tool_call>' }}
        {%- endfor %}
        {{- '<|im_end|>\\n' }}
    {%- elif message.role == "tool" %}
        {%- if (loop.index0 == 0) or (messages[loop.index0 - 1].role != "tool") %}
            {{- '<|im_start|>user' }}
        {%- endif %}
        {{- '\\n<tool_response>\\n' }}
        {{- message.content }}
        {{- '\\n</tool_response>' }}
        {%- if loop.last or (messages[loop.index0 + 1].role != "tool") %}
            {{- '<|im_end|>\\n' }}
        {%- endif %}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\\n' }}
{%- endif %}
"""


def vocabulary():
    tokens = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)]
    tokens += ["\u2581", "<|im_start|>", "<|im_end|>"]
    types = [gguf.TokenType.UNKNOWN, gguf.TokenType.CONTROL, gguf.TokenType.CONTROL]
    types += [gguf.TokenType.BYTE] * 256
    types += [gguf.TokenType.NORMAL, gguf.TokenType.CONTROL, gguf.TokenType.CONTROL]
    scores = [0.0] * len(tokens)
    return tokens, scores, types


def allowed_outputs():
    """Token ids the model may emit: printable ASCII bytes and newline."""
    return [FIRST_BYTE + b for b in list(range(0x20, 0x7F)) + [0x0A]]


def tensors(rng, n_vocab):
    def normal(shape, std):
        return (rng.standard_normal(shape, dtype=np.float32) * np.float32(std)).astype(np.float32)

    # numpy shapes are (rows, cols) = ggml's ne reversed: token_embd ne = {n_embd, n_vocab}.
    out = {"token_embd.weight": normal((n_vocab, N_EMBD), 1.0)}
    for i in range(N_LAYERS):
        p = f"blk.{i}."
        out[p + "attn_norm.weight"] = np.ones(N_EMBD, dtype=np.float32)
        out[p + "attn_q.weight"] = normal((N_EMBD, N_EMBD), 0.02)
        out[p + "attn_k.weight"] = normal((N_EMBD, N_EMBD), 0.02)
        out[p + "attn_v.weight"] = normal((N_EMBD, N_EMBD), 0.02)
        out[p + "attn_output.weight"] = normal((N_EMBD, N_EMBD), 0.02)
        out[p + "ffn_norm.weight"] = np.ones(N_EMBD, dtype=np.float32)
        out[p + "ffn_gate.weight"] = normal((N_FF, N_EMBD), 0.02)
        out[p + "ffn_up.weight"] = normal((N_FF, N_EMBD), 0.02)
        out[p + "ffn_down.weight"] = normal((N_EMBD, N_FF), 0.02)
    out["output_norm.weight"] = np.ones(N_EMBD, dtype=np.float32)
    # Allowed rows get std 1: after RMS norm the logits have std ~8, so the best allowed token
    # sits near +20 and a zeroed token (logit 0, EOS among them) is never sampled in practice.
    output = np.zeros((n_vocab, N_EMBD), dtype=np.float32)
    allowed = allowed_outputs()
    output[allowed] = normal((len(allowed), N_EMBD), 1.0)
    out["output.weight"] = output
    return out


def write(path, seed):
    tokens, scores, types = vocabulary()
    rng = np.random.default_rng(seed)
    w = gguf.GGUFWriter(path, "llama")
    w.add_name(f"homebase-tiny-random-seed{seed}")
    w.add_file_type(gguf.LlamaFileType.ALL_F32)
    w.add_context_length(N_CTX)
    w.add_embedding_length(N_EMBD)
    w.add_block_count(N_LAYERS)
    w.add_feed_forward_length(N_FF)
    w.add_head_count(N_HEAD)
    w.add_head_count_kv(N_HEAD)
    w.add_rope_dimension_count(HEAD_DIM)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_vocab_size(len(tokens))
    w.add_tokenizer_model("llama")
    w.add_token_list(tokens)
    w.add_token_scores(scores)
    w.add_token_types(types)
    w.add_bos_token_id(BOS)
    w.add_eos_token_id(EOS)
    w.add_unk_token_id(UNK)
    w.add_add_bos_token(False)
    w.add_add_eos_token(False)
    # Without this, grammar-constrained requests fail with "Failed to initialize samplers".
    w.add_add_space_prefix(False)
    w.add_chat_template(CHAT_TEMPLATE)
    for name, data in tensors(rng, len(tokens)).items():
        w.add_tensor(name, data)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", help="path of the .gguf file to write")
    ap.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    args = ap.parse_args()
    tmp = args.out + ".tmp"
    write(tmp, args.seed)
    os.replace(tmp, args.out)  # never leave a half-written model under the final name
    with open(args.out, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    print(f"{args.out} {os.path.getsize(args.out)} bytes sha256 {digest}", file=sys.stderr)


if __name__ == "__main__":
    main()
