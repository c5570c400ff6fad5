// models.js — the page's model folder: a button that picks a folder of the user's disk (a Hugging Face model
// folder: config.json, model.safetensors, the tokenizer's files), whose files worker_models.js copies into
// attn's memory file system, where the REPL's from_pretrained and the lessons find them; and the tiny models
// the page always has (web.mk puts them in /attn/models). Its words are its own, in both languages
// (MODEL_WORDS_ZH). Uses page.js's globals: worker, lang.
/* global worker, lang */
"use strict";

const LINKED = "It is GPT-2 small or Qwen3-0.6B: the lessons and from_pretrained(\"gpt2\") or \"Qwen/Qwen3-0.6B\" find it.";
const NO_CONFIG = "%s has no config.json: pick the folder that holds a model's config.json and model.safetensors.";
const TOO_LARGE = "%s is too large for this page: its weights need about %s MB of memory, and attn can take only %s MB " +
                  "more (a page holds at most %s MB: WebAssembly's limit). Nothing was copied.";
const HELP = "A GPT-2 or Qwen3 folder from your disk (config.json, model.safetensors, tokenizer files): copied into " +
             "this page's memory, never uploaded. Always here: the tiny models %s and %s.";
// The page's words in Chinese, by their English text: when page.js's words move to the catalogs, these
// pairs go to src/po/zh_CN's page domain and modelWord's lookup to page.js's (the English is the msgid).
const MODEL_WORDS_ZH = {
  "Model folder": "模型文件夹",
  "Open a model folder…": "打开模型文件夹…",
  [HELP]:
    "从你的磁盘选择一个 GPT-2 或 Qwen3 文件夹（config.json、model.safetensors、分词器文件）：复制到本页的内存中，不会上传。始终可用：微型模型 %s 和 %s。",
  "Reading %s…": "正在读取 %s…",
  "%s: %s files (%s MB) in %s. Load it with %s": "%s：%s 个文件（%s MB），位于 %s。加载方法：%s",
  [LINKED]:
    "它是 GPT-2 small 或 Qwen3-0.6B：课程以及 from_pretrained(\"gpt2\") 或 \"Qwen/Qwen3-0.6B\" 都能找到它。",
  [NO_CONFIG]:
    "%s 中没有 config.json：请选择包含模型 config.json 和 model.safetensors 的文件夹。",
  [TOO_LARGE]:
    "%s 对本页来说太大：其权重约需 %s MB 内存，而 attn 最多还能使用 %s MB（一个页面最多 %s MB：WebAssembly 的上限）。没有复制任何文件。",
  "%s could not be read: %s": "无法读取 %s：%s",
};
const TINY_MODELS = ["/attn/models/gpt2-tiny", "/attn/models/qwen3-tiny"];

// msgid in the page's language, each %s replaced by the next of args
function modelWord(msgid, ...args) {
  let i = 0;
  return (lang === "zh_CN" && MODEL_WORDS_ZH[msgid] || msgid).replace(/%s/g, () => String(args[i++]));
}
const mb = (bytes) => (bytes / (1024 * 1024)).toFixed(1);

// The aside's part: a heading, the help, the button (a label for the hidden folder input) and the status.
const modelPane = document.createElement("section");
modelPane.id = "model-pane";
modelPane.innerHTML = '<h2 id="model-title"></h2><p id="model-help"></p>' +
  '<label id="model-pick" class="button"><input id="model-folder" type="file" webkitdirectory directory multiple hidden>' +
  '<span></span></label><p id="model-status" role="status"></p>';
document.querySelector("aside").appendChild(modelPane);
let modelStatus = null; // [key, ...args] of the status shown, worded again when the language changes

function labelModels() {
  document.getElementById("model-title").textContent = modelWord("Model folder");
  document.getElementById("model-help").textContent = modelWord(HELP, TINY_MODELS[0], TINY_MODELS[1]);
  document.querySelector("#model-pick span").textContent = modelWord("Open a model folder…");
  const status = document.getElementById("model-status");
  status.textContent = modelStatus ? modelStatus.map((s) => (Array.isArray(s) ? modelWord(...s) : s)).join(" ") : "";
}

function showModel(...lines) {
  modelStatus = lines;
  labelModels();
}

// The loader a REPL line calls for the folder, by its kind.
function loaderFor(kind, dir) {
  if (kind === "qwen3") return `qwen3.Qwen3Model.from_pretrained("${dir}")`;
  return `gpt.GPTModel.from_pretrained("${dir}")`;
}

document.getElementById("model-folder").addEventListener("change", (e) => {
  const files = Array.from(e.target.files);
  if (files.length === 0) return;
  // webkitRelativePath is FOLDER/FILE: the folder's own files only, not its subfolders'
  const name = (files[0].webkitRelativePath || files[0].name).split("/")[0];
  const top = files.filter((f) => (f.webkitRelativePath || f.name).split("/").length <= 2);
  showModel(["Reading %s…", name]);
  document.body.dataset.model = "copying";
  const w = worker;
  const answer = (ev) => {
    if (ev.data.type !== "model") return;
    w.removeEventListener("message", answer);
    const m = ev.data;
    if (m.ok) {
      const lines = [["%s: %s files (%s MB) in %s. Load it with %s", m.name, m.count, mb(m.size), m.dir, loaderFor(m.kind, m.dir)]];
      if (m.linked.length > 0) lines.push([LINKED]);
      showModel(...lines);
    } else if (m.what === "tooLarge") {
      showModel([TOO_LARGE, m.name, mb(m.need), mb(m.free), mb(m.max)]);
    } else {
      showModel([m.what === "noConfig" ? NO_CONFIG : "%s could not be read: %s", m.name, m.error || ""]);
    }
    document.body.dataset.model = m.ok ? "ready" : "refused";
    e.target.value = ""; // the same folder may be picked again
  };
  w.addEventListener("message", answer);
  w.postMessage({ type: "model", name, files: top });
});
document.getElementById("lang").addEventListener("click", () => setTimeout(labelModels, 0));
labelModels();
