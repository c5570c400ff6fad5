// models.js — the page's model folder: a button that picks a folder of the user's disk (a Hugging Face model
// folder: config.json, model.safetensors, the tokenizer's files), whose files worker_models.js copies into
// attn's memory file system, where the REPL's from_pretrained and the lessons find them; and the tiny models
// the page always has (web.mk puts them in /attn/models). Its words are page.js's: English msgids marked
// tr("...") (scripts/po.sh reads this file too), each %s replaced by fmt. Uses page.js's globals: worker,
// tr, wordsLoaded.
/* global worker, tr, wordsLoaded */
"use strict";

const TINY_MODELS = ["/attn/models/gpt2-tiny", "/attn/models/qwen3-tiny"];
// text with each %s replaced by the next of args
function fmt(text, ...args) {
  let i = 0;
  return text.replace(/%s/g, () => String(args[i++]));
}
const mb = (bytes) => (bytes / (1024 * 1024)).toFixed(1);

// The aside's part: a heading, the help, the button (a label for the hidden folder input) and the status.
const modelPane = document.createElement("section");
modelPane.id = "model-pane";
modelPane.innerHTML = '<h2 id="model-title"></h2><p id="model-help"></p>' +
  '<label id="model-pick" class="button"><input id="model-folder" type="file" webkitdirectory directory multiple hidden>' +
  '<span></span></label><p id="model-status" role="status"></p>';
document.querySelector("aside").appendChild(modelPane);
let modelStatus = []; // the status's lines, as functions: worded again when the language changes

function labelModels() {
  document.getElementById("model-title").textContent = tr("Model folder");
  document.getElementById("model-help").textContent = fmt(tr("A GPT-2 or Qwen3 folder from your disk (config.json, model.safetensors, tokenizer files): copied into this page's memory, never uploaded. Always here: the tiny models %s and %s."), TINY_MODELS[0], TINY_MODELS[1]);
  document.querySelector("#model-pick span").textContent = tr("Open a model folder…");
  document.getElementById("model-status").textContent = modelStatus.map((line) => line()).join(" ");
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
  showModel(() => fmt(tr("Reading %s…"), name));
  document.body.dataset.model = "copying";
  const w = worker;
  const answer = (ev) => {
    if (ev.data.type !== "model") return;
    w.removeEventListener("message", answer);
    const m = ev.data;
    if (m.ok) {
      const lines = [() => fmt(tr("%s: %s files (%s MB) in %s. Load it with %s"), m.name, m.count, mb(m.size), m.dir, loaderFor(m.kind, m.dir))];
      if (m.linked.length > 0) lines.push(() => tr("It is GPT-2 small or Qwen3-0.6B: the lessons and from_pretrained(\"gpt2\") or \"Qwen/Qwen3-0.6B\" find it."));
      showModel(...lines);
    } else if (m.what === "tooLarge") {
      showModel(() => fmt(tr("%s is too large for this page: its weights need about %s MB of memory, and attn can take only %s MB more (a page holds at most %s MB: WebAssembly's limit). Nothing was copied."), m.name, mb(m.need), mb(m.free), mb(m.max)));
    } else {
      showModel(m.what === "noConfig"
        ? () => fmt(tr("%s has no config.json: pick the folder that holds a model's config.json and model.safetensors."), m.name)
        : () => fmt(tr("%s could not be read: %s"), m.name, m.error || ""));
    }
    document.body.dataset.model = m.ok ? "ready" : "refused";
    e.target.value = ""; // the same folder may be picked again
  };
  w.addEventListener("message", answer);
  w.postMessage({ type: "model", name, files: top });
});
document.getElementById("lang").addEventListener("click", () => setTimeout(labelModels, 0));
wordsLoaded.then(labelModels);
