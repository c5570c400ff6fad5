// worker_models.js — a model folder picked on the page (models.js), copied into the worker's memory file
// system, where attn's loaders find it: /models/NAME holds its files; a folder of GPT-2 small or
// Qwen3-0.6B (by its config.json) is also linked into attn's cache (src/lua/places.lua: ~/.cache/attn/gpt2,
// .../qwen3, .../tiktoken, .../hf-tokenizers/qwen3), where lesson 15, lesson 23 and from_pretrained("gpt2")
// look. Before anything is copied, the weights' size as float32 (their safetensors headers) is compared with
// the memory the module may still take: a folder too large is refused, whole. Loaded by worker.js (importScripts);
// one message in, {type: "model", name, files: [File]}, one out, {type: "model", ok, what, ...}: models.js
// words the answer. Nothing here prints to the terminal.
/* global attn */
"use strict";

// src/web/web.mk links the page's module with -sMAXIMUM_MEMORY=4GB (wasm32 addresses 4 GB at most)
const MODEL_MAXIMUM_MEMORY = 4 * 1024 * 1024 * 1024;
// the files of a Hugging Face model folder attn reads; the rest (other formats, READMEs, .git) stay out
const MODEL_FILES = /^(config\.json|generation_config\.json|tokenizer\.json|tokenizer_config\.json|vocab\.json|merges\.txt|encoder\.json|vocab\.bpe|[\w.-]*\.safetensors|model\.safetensors\.index\.json)$/;
// bytes per element once in memory: attn reads F16 and BF16 as float32, the integers as int64 (safetensors.h)
const AS_READ = { F32: 4, F64: 4, F16: 4, BF16: 4, I64: 8, I32: 8, I16: 8, I8: 8, U8: 8, BOOL: 1 };
const CHUNK = 64 * 1024 * 1024; // copied in pieces: a 1 GB file is never one ArrayBuffer twice

// The bytes a safetensors file takes once read, from its header (8 bytes of length, then JSON); the file's
// own size when the header cannot be read.
function weightBytes(file) {
  const reader = new FileReaderSync();
  try {
    const len = new DataView(reader.readAsArrayBuffer(file.slice(0, 8))).getUint32(0, true);
    const header = JSON.parse(new TextDecoder().decode(reader.readAsArrayBuffer(file.slice(8, 8 + len))));
    let bytes = 0;
    for (const [name, t] of Object.entries(header)) {
      if (name === "__metadata__") continue;
      const n = t.shape.reduce((a, b) => a * b, 1);
      bytes += n * (AS_READ[t.dtype] || 4);
    }
    return bytes;
  } catch (e) {
    return file.size;
  }
}

function mkdirs(path) {
  attn.FS.mkdirTree(path);
}

// links at to target, replacing an earlier link (a folder picked before)
function relink(target, at) {
  mkdirs(at.slice(0, at.lastIndexOf("/")));
  try { attn.FS.unlink(at); } catch (e) { /* none yet */ }
  attn.FS.symlink(target, at);
}

function copy(file, path) {
  const reader = new FileReaderSync();
  const stream = attn.FS.open(path, "w");
  try {
    for (let at = 0; at < file.size; at += CHUNK) {
      const piece = new Uint8Array(reader.readAsArrayBuffer(file.slice(at, at + CHUNK)));
      attn.FS.write(stream, piece, 0, piece.length);
    }
  } finally {
    attn.FS.close(stream);
  }
}

// What the folder is, from its config.json: "gpt2" or "qwen3" (and whether it is GPT-2 small or Qwen3-0.6B,
// the models the lessons name), else null.
function kindOf(config) {
  if (!config) return { kind: null };
  if (config.model_type === "gpt2") return { kind: "gpt2", known: config.n_layer === 12 && config.n_embd === 768 && config.vocab_size === 50257 };
  if (config.model_type === "qwen3") return { kind: "qwen3", known: config.num_hidden_layers === 28 && config.hidden_size === 1024 };
  return { kind: null };
}

function pickModel(m) {
  const files = m.files.filter((f) => MODEL_FILES.test(f.name));
  const name = (m.name || "model").replace(/[^\w.-]/g, "_");
  if (!files.some((f) => f.name === "config.json")) return { ok: false, what: "noConfig", name };
  let need = 0, size = 0;
  for (const f of files) {
    size += f.size;
    need += f.name.endsWith(".safetensors") ? weightBytes(f) : f.size;
  }
  const inUse = attn.HEAP8.buffer.byteLength; // the memory the module has grown to: taken, or nearly
  const free = MODEL_MAXIMUM_MEMORY - inUse;
  if (need > free) return { ok: false, what: "tooLarge", name, need, free, max: MODEL_MAXIMUM_MEMORY };
  const dir = "/models/" + name;
  mkdirs(dir);
  for (const f of files) copy(f, dir + "/" + f.name);
  let config = null;
  try { config = JSON.parse(attn.FS.readFile(dir + "/config.json", { encoding: "utf8" })); } catch (e) { /* kind unknown */ }
  const { kind, known } = kindOf(config);
  // attn's cache, as places.lua finds it ($XDG_CACHE_HOME, else $HOME/.cache: emscripten's HOME)
  const cache = (attn.ENV.XDG_CACHE_HOME || (attn.ENV.HOME || "/home/web_user") + "/.cache") + "/attn";
  const linked = [];
  const has = (file) => files.some((f) => f.name === file);
  if (kind === "gpt2" && known) {
    relink(dir, cache + "/gpt2");
    linked.push("gpt2");
    if (has("vocab.json") || has("encoder.json")) { relink(dir, cache + "/tiktoken"); linked.push("tiktoken"); }
  } else if (kind === "qwen3" && known) {
    relink(dir, cache + "/qwen3");
    linked.push("qwen3");
    if (has("tokenizer.json")) { relink(dir, cache + "/hf-tokenizers/qwen3"); linked.push("tokenizer"); }
  }
  return { ok: true, what: "copied", name, dir, kind, linked, count: files.length, size, need };
}

addEventListener("message", (e) => {
  if (e.data.type !== "model") return;
  let answer;
  try {
    answer = pickModel(e.data);
  } catch (err) {
    answer = { ok: false, what: "failed", name: e.data.name, error: String(err && err.message || err) };
  }
  postMessage(Object.assign({ type: "model" }, answer));
});
