#!/bin/sh
# Regenerates tests/data/torch/*.txt: numbers made by PyTorch itself (random streams, sums, softmax,
# the lessons' seeded computations), which the C and Lua tests and the lessons compare attn against.
# Uses Debian's python3-torch (a build without MKL, so dropout shows the "default" Bernoulli flavour)
# and Debian's /usr/bin/python3, not whatever python3 is first on PATH. Installs the package if missing
# (through scripts/install-deps.sh). Run from anywhere; writes into the repository.
set -eu

cd "$(dirname "$0")/.."

sh scripts/install-deps.sh python3-torch # a few minutes the first time

# One thread and no user site-packages: the numbers must come from Debian's torch alone. The kernels
# must be the vectorised ones (see the CPU capability check in the script), so no override of them.
unset ATEN_CPU_CAPABILITY
# OpenBLAS's Haswell kernels (AVX2, FMA), whatever the CPU: on a machine with AVX-512 OpenBLAS would
# pick its SkylakeX kernels, which add some products in another order. tests/run.sh pins the same.
export OPENBLAS_CORETYPE=Haswell
OMP_NUM_THREADS=1 PYTHONNOUSERSITE=1 /usr/bin/python3 -s scripts/gen_torch_reference.py tests/data/torch
# each op's gradients and the book's classes' parameter gradients (autograd.txt)
OMP_NUM_THREADS=1 PYTHONNOUSERSITE=1 /usr/bin/python3 -s scripts/torch_reference_autograd.py tests/data/torch
# the lessons' seeded computations (lessons/10_* to lessons/12_*): lessons_pdl_ch7.txt
OMP_NUM_THREADS=1 PYTHONNOUSERSITE=1 /usr/bin/python3 -s scripts/gen_lesson_reference.py tests/data/torch
# losses, gather, list indexing, randperm, DataLoader, linspace (learn.txt) and the optimizers
# (optim.txt), for tests/lua/learn_spec.lua and optim_spec.lua
OMP_NUM_THREADS=1 PYTHONNOUSERSITE=1 /usr/bin/python3 -s scripts/torch_reference_learn.py tests/data/torch
# PyTorch's gradients for src/lua/autograd/formulas_extra.lua (grads.txt, tests/lua/formulas_spec.lua)
OMP_NUM_THREADS=1 PYTHONNOUSERSITE=1 /usr/bin/python3 -s scripts/torch_reference_grads.py tests/data/torch

# the bonus chapters' attention (GQA/MQA, KV cache, sliding window, RoPE): variants.txt
OMP_NUM_THREADS=1 PYTHONNOUSERSITE=1 /usr/bin/python3 -s scripts/torch_reference_variants.py tests/data/torch
# multi-head latent attention (ch04/05_mla): mla.txt, and lessons_mla.txt for lessons/22_latent_attention.lua
OMP_NUM_THREADS=1 PYTHONNOUSERSITE=1 /usr/bin/python3 -s scripts/torch_reference_mla.py tests/data/torch
# chapter 4's GPTModel trained: cross-entropy gradients, 3 AdamW steps, the shortcut example's
# mean gradients (training.txt, tests/lua/training_spec.lua)
OMP_NUM_THREADS=1 PYTHONNOUSERSITE=1 /usr/bin/python3 -s scripts/torch_reference_training.py tests/data/torch
# chapter 5's end: state_dict, AdamW resumed after torch.save/torch.load, torch.bincount (checkpoint.txt,
# tests/lua/checkpoint_spec.lua)
OMP_NUM_THREADS=1 PYTHONNOUSERSITE=1 /usr/bin/python3 -s scripts/torch_reference_checkpoint.py tests/data/torch
# the backward tracer: every stage's gradient of attention.trace's stages (backward_trace.txt,
# tests/lua/trace_backward_spec.lua)
OMP_NUM_THREADS=1 PYTHONNOUSERSITE=1 /usr/bin/python3 -s scripts/torch_reference_backward_trace.py tests/data/torch
# lessons/19_sqrt_dk_gradients.lua (lesson_sqrt_dk.txt)
OMP_NUM_THREADS=1 PYTHONNOUSERSITE=1 /usr/bin/python3 -s scripts/lesson_reference_sqrt_dk.py
# lessons/20_watch_attention_learn.lua: its 200 training steps' losses and attention weights (lesson_learn.txt)
OMP_NUM_THREADS=1 PYTHONNOUSERSITE=1 /usr/bin/python3 -s scripts/lesson_reference_learn.py
# lessons/21_pretraining_the_verdict.lua (lesson_verdict.txt): chapter 5's numbers and train_model_simple's
# losses. The whole training run (90 steps of GPT-2 small on one thread) takes a long time; the file is
# rewritten after every evaluation, so a run stopped early leaves the steps it finished (its second line
# says how many), and the lesson checks the steps the file has. LESSON_VERDICT_STEPS=N stops after N steps.
OMP_NUM_THREADS=1 PYTHONNOUSERSITE=1 /usr/bin/python3 -s scripts/lesson_reference_verdict.py ${LESSON_VERDICT_STEPS:+--steps "$LESSON_VERDICT_STEPS"}
# the tiny GPT-2 in Hugging Face's layout and what PyTorch computes with it (tests/data/gpt2)
OMP_NUM_THREADS=1 PYTHONNOUSERSITE=1 /usr/bin/python3 -s scripts/torch_reference_gpt2.py
# tiny Qwen3 and Llama 3 models in Hugging Face's layout and their logits (tests/data/hf_models)
OMP_NUM_THREADS=1 PYTHONNOUSERSITE=1 /usr/bin/python3 -s scripts/torch_reference_qwen3_llama.py
# lessons/23_gpt2_to_qwen3.lua: two small seeded models, GPT-2's and Qwen3's, on a Chinese sentence
# (lesson_gpt2_qwen3.txt; the sentence's ids come from tests/data/tiktoken and tests/data/tokenizers)
OMP_NUM_THREADS=1 PYTHONNOUSERSITE=1 /usr/bin/python3 -s scripts/lesson_reference_gpt2_qwen3.py
