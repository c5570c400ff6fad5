"""save_safetensors: tensors written as a safetensors file, byte for byte the same on every run, for the
reference models and results the PyTorch scripts leave in tests/data (torch_reference_gpt2.py,
torch_reference_qwen3_llama.py). Debian has no Python safetensors package, and the format is small: an
8-byte little-endian header length, the JSON header (name -> dtype, shape, data_offsets; here with sorted
keys, no spaces, padded with spaces to a multiple of 8), then the tensors' bytes in the header's order.
attn reads these files with safetensors.load_file (src/lua/safetensors.lua, src/core/safetensors.c).
"""
import json
import struct

import torch

DTYPES = {torch.float32: "F32", torch.int64: "I64"}


def tensor_bytes(t):
    """The safetensors dtype of a contiguous tensor and its bytes (bfloat16's through an int16 view, which
    numpy can hold)."""
    if t.dtype == torch.bfloat16:
        return "BF16", t.view(torch.int16).numpy().tobytes()
    return DTYPES[t.dtype], t.numpy().tobytes()


def save_safetensors(tensors, path):
    """Writes {name: tensor} to path, the names in sorted order; returns the size of the tensors' data."""
    header, blobs, at = {}, [], 0
    for name in sorted(tensors):
        dt, data = tensor_bytes(tensors[name].detach().contiguous())
        header[name] = {"dtype": dt, "shape": list(tensors[name].shape), "data_offsets": [at, at + len(data)]}
        blobs.append(data)
        at += len(data)
    text = json.dumps(header, sort_keys=True, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)
    return at
