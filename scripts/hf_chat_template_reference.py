# hf_chat_template_reference.py CONFIG — Qwen3's chat template for one user turn (and a system message),
# rendered by Jinja2 (the
# engine Hugging Face's transformers renders chat templates with: a sandboxed environment, trim_blocks and
# lstrip_blocks), for tokenizers.Tokenizer:apply_chat_template's tests. CONFIG is Qwen3's
# tokenizer_config.json (scripts/fetch-hf-tokenizers.sh). Writes one JSON object a line:
#   {"content": the user's message, "add_generation_prompt": bool, "system": the system message or absent,
#    "enable_thinking": bool or absent, "text": the rendered prompt}
import json
import sys

from jinja2.sandbox import ImmutableSandboxedEnvironment

config = json.load(open(sys.argv[1], encoding="utf-8"))
env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
template = env.from_string(config["chat_template"])
cases = []
for content in ["你的旅程从一步开始", "Your journey starts with one step", "", "两行\n文本 <|im_end|>"]:
    for gen, thinking in [(False, None), (True, None), (True, False), (True, True)]:
        cases.append((None, content, gen, thinking))
cases.append(("你是一个有帮助的助手。", "你好", True, None))
cases.append(("You are a helpful assistant.", "Hello", False, None))
for system, content, gen, thinking in cases:
    messages = [{"role": "user", "content": content}]
    if system is not None:
        messages.insert(0, {"role": "system", "content": system})
    kw = {"messages": messages, "add_generation_prompt": gen}
    if thinking is not None:
        kw["enable_thinking"] = thinking
    out = {"content": content, "add_generation_prompt": gen}
    if system is not None:
        out["system"] = system
    if thinking is not None:
        out["enable_thinking"] = thinking
    out["text"] = template.render(**kw)
    print(json.dumps(out, ensure_ascii=False))
