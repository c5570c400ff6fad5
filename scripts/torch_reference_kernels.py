"""products_skylakex.txt: the matrix products and Linear layers of products.txt again, computed by
PyTorch with OpenBLAS's SkylakeX kernels, for tests/lua/products_spec.lua run under the same kernels.

OpenBLAS picks its kernels by CPU: Haswell's on most x86-64 machines (what products.txt and the rest
of tests/data/torch were made with), SkylakeX's on those with AVX-512, where its small-matrix kernels
and its blocking add some products in another order. attn makes the same BLAS calls as PyTorch, so it
gets PyTorch's bits under either; this file lets tests/run.sh check that on a CPU with AVX-512.

Run it through scripts/gen-torch-reference.sh, which sets OPENBLAS_CORETYPE=SkylakeX for it on a CPU
that has AVX-512 (on another, OpenBLAS's SkylakeX kernels cannot run, and the file is left as it is).
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_format as fmt  # noqa: E402  (write, f32s: the reference files' format)
from torch_reference_products import gen_products  # noqa: E402


def main():
    assert os.environ.get("OPENBLAS_CORETYPE") == "SkylakeX", "run with OPENBLAS_CORETYPE=SkylakeX"
    torch.set_num_threads(1)

    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join("tests", "data", "torch")

    def write(name, what, lines):
        assert name == "products.txt"
        fmt.write(out, "products_skylakex.txt", what + "; OpenBLAS's SkylakeX kernels (OPENBLAS_CORETYPE=SkylakeX)",
                  lines)

    gen_products(write, fmt.f32s)


if __name__ == "__main__":
    main()
