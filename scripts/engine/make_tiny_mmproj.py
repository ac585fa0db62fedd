#!/usr/bin/env python3
"""Writes a tiny random-weight vision projector (mmproj) GGUF for the tiny test model: llama.cpp's
`clip` loader, projector type `mlp` (LLaVA: a 1-block ViT and a 2-layer MLP into the LLM's 64-wide
embedding). It cannot see anything: it lets llama-server start with `--mmproj`, report vision in
/props and answer image requests, so the on-device vision path runs for real in tests.

usage: make_tiny_mmproj.py OUT.gguf [--seed N] [--llm-embd 64]
"""
import argparse

import gguf
import numpy as np

parser = argparse.ArgumentParser()
parser.add_argument("out")
parser.add_argument("--seed", type=int, default=0)
parser.add_argument("--llm-embd", type=int, default=64)
args = parser.parse_args()

E, FF, HEADS, IMAGE, PATCH = 32, 64, 2, 28, 14
N_POS = (IMAGE // PATCH) ** 2
rng = np.random.default_rng(args.seed)


def rand(*shape):
    return (rng.standard_normal(shape) * 0.02).astype(np.float32)


w = gguf.GGUFWriter(args.out, "clip")
w.add_string("general.name", "tiny-mmproj")
w.add_string("clip.projector_type", "mlp")
w.add_bool("clip.has_vision_encoder", True)
w.add_bool("clip.use_gelu", True)
w.add_uint32("clip.vision.embedding_length", E)
w.add_uint32("clip.vision.feed_forward_length", FF)
w.add_uint32("clip.vision.block_count", 1)
w.add_uint32("clip.vision.projection_dim", args.llm_embd)
w.add_uint32("clip.vision.attention.head_count", HEADS)
w.add_float32("clip.vision.attention.layer_norm_epsilon", 1e-5)
w.add_uint32("clip.vision.image_size", IMAGE)
w.add_uint32("clip.vision.patch_size", PATCH)
w.add_array("clip.vision.image_mean", [0.5, 0.5, 0.5])
w.add_array("clip.vision.image_std", [0.5, 0.5, 0.5])

# numpy shapes are ggml's ne reversed: a linear weight is (out, in).
w.add_tensor("v.patch_embd.weight", rand(E, 3, PATCH, PATCH).astype(np.float16))
w.add_tensor("v.position_embd.weight", rand(N_POS, E))
for name in ["attn_q", "attn_k", "attn_v", "attn_out"]:
    w.add_tensor(f"v.blk.0.{name}.weight", rand(E, E))
    w.add_tensor(f"v.blk.0.{name}.bias", rand(E))
for name in ["ln1", "ln2"]:
    w.add_tensor(f"v.blk.0.{name}.weight", np.ones(E, dtype=np.float32))
    w.add_tensor(f"v.blk.0.{name}.bias", np.zeros(E, dtype=np.float32))
w.add_tensor("v.blk.0.ffn_up.weight", rand(FF, E))
w.add_tensor("v.blk.0.ffn_up.bias", rand(FF))
w.add_tensor("v.blk.0.ffn_down.weight", rand(E, FF))
w.add_tensor("v.blk.0.ffn_down.bias", rand(E))
w.add_tensor("mm.0.weight", rand(args.llm_embd, E))
w.add_tensor("mm.0.bias", rand(args.llm_embd))
w.add_tensor("mm.2.weight", rand(args.llm_embd, args.llm_embd))
w.add_tensor("mm.2.bias", rand(args.llm_embd))

w.write_header_to_file()
w.write_kv_data_to_file()
w.write_tensors_to_file()
w.close()
