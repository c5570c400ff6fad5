# hf_chat_template_reference.py CONFIG — Qwen3's chat template for one user turn, rendered by Jinja2 (the
# engine Hugging Face's transformers renders chat templates with: a sandboxed environment, trim_blocks and
# lstrip_blocks), for tokenizers.Tokenizer:apply_chat_template's tests. CONFIG is Qwen3's
# tokenizer_config.json (scripts/fetch-hf-tokenizers.sh). Writes one JSON object a line:
#   {"content": the user's message, "add_generation_prompt": bool, "enable_thinking": bool or absent,
#    "text": the rendered prompt}
import json
import sys

from jinja2.sandbox import ImmutableSandboxedEnvironment

config = json.load(open(sys.argv[1], encoding="utf-8"))
env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
template = env.from_string(config["chat_template"])
for content in ["你的旅程从一步开始", "Your journey starts with one step", "", "两行\n文本 <|im_end|>"]:
    for gen, thinking in [(False, None), (True, None), (True, False), (True, True)]:
        kw = {"messages": [{"role": "user", "content": content}], "add_generation_prompt": gen}
        if thinking is not None:
            kw["enable_thinking"] = thinking
        out = {"content": content, "add_generation_prompt": gen}
        if thinking is not None:
            out["enable_thinking"] = thinking
        out["text"] = template.render(**kw)
        print(json.dumps(out, ensure_ascii=False))
