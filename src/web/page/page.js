// page.js — the page's main thread: the xterm.js terminal and its line editing (history, Tab completion,
// multi-line chunks, Ctrl-C), the lessons list with step and check modes, notes, and the language. attn
// itself runs in worker.js; this file only draws and forwards. Nothing is fetched but the page's own files.
/* global Terminal */
"use strict";

// The page's own words are English msgids marked tr("...") here (and nowhere else): scripts/po.sh extracts
// them into the catalogs' lib/page domain (src/po/<lang>/lib/page.po), and `make web` turns those into
// words.json ({lang: {msgid: translation}}), loaded before the page is labelled. The terminal's words come
// from attn's own catalogs, in the worker. Each language's own name (the switch's label) is a name, not a word.
let words = {};
const tr = (msgid) => (words[lang] && words[lang][msgid]) || msgid;
const LANGUAGE_NAMES = { en: "English", zh_CN: "中文" };
const MODE = { STEP: 1, CHECK: 3, LIST: 5, VERIFY: 7, UPDATE: 8 };
const PROMPT = "\x1b[1;32mattn>\x1b[0m ", PROMPT2 = "\x1b[32m  ..>\x1b[0m ";
// readline's word breaks in src/cli/repl.c: `.` and `:` are part of a word, so torch.so<Tab> completes
const BREAKS = " \t\n\"'`@$><=;|&{(,)}[]+-*/%^~#!";

let lang = (navigator.language || "en").toLowerCase().startsWith("zh") ? "zh_CN" : "en";
const params = new URLSearchParams(location.search);
if (params.get("lang")) lang = params.get("lang") === "zh_CN" ? "zh_CN" : "en";

const term = new Terminal({ cols: 100, rows: 32, convertEol: true, cursorBlink: true, fontSize: 14, lineHeight: 1.15,
                            fontFamily: "DejaVu Sans Mono, Menlo, Consolas, monospace" });
term.open(document.getElementById("terminal"));
window.attnTerminal = term; // for the page's tests (tests/browser/test_web.mjs), which read its buffer
term.focus();

const shared = self.crossOriginIsolated ? new SharedArrayBuffer(16 + 4096) : null;
const ctl = shared ? new Int32Array(shared) : null;
let worker = null;
let busy = true;        // the worker is computing: typed keys are not a line being edited
let wanting = null;     // "key" or "line": a lesson in step mode waits for one
let line = "", cursor = 0, chunk = null;
const history = [];
let historyAt = 0;
let lessonFiles = [];
let pending = {};       // id -> callback of a capture
let lastTab = "";

function start() {
  worker = new Worker("worker.js");
  worker.onmessage = onWorker;
  busy = true;
  worker.postMessage({ type: "init", lang, shared, rows: term.rows, cols: term.cols });
}

function prompt() {
  busy = false;
  line = "";
  cursor = 0;
  cursorRow = 0;
  term.write(chunk === null ? PROMPT : PROMPT2);
  document.body.dataset.state = "prompt";
}

function onWorker(e) {
  const m = e.data;
  if (m.type === "output") {
    term.write(m.text);
  } else if (m.type === "figure") {
    keepFigure(m.n, m.svg);
  } else if (m.type === "want") {
    wanting = m.what;
    document.body.dataset.state = "want-" + m.what;
  } else if (m.type === "done") {
    wanting = null;
    if (m.what === "init") {
      document.body.dataset.ready = "1";
      loadLessons();
      prompt();
    } else if (m.what === "eval") {
      if (!m.incomplete) chunk = null;
      prompt();
    } else if (m.what === "complete") {
      completed(m.list);
    } else if (m.what === "capture") {
      const f = pending[m.id];
      delete pending[m.id];
      if (f) f(m.text);
    } else if (m.what === "lesson") {
      if (m.updated !== undefined) offerDownload(m.updated);
      prompt();
    }
  }
}

// ---- the line editor ------------------------------------------------------------------------------
// The prompt and the line again, from the row the line starts on (a line longer than the terminal wraps:
// the cursor may be rows below its start), the cursor put back where it was.
let cursorRow = 0; // the row of the cursor below the line's first row, as last drawn
function redraw() {
  const cols = term.cols, plen = 6; // "attn> " and "  ..> " take 6 columns
  if (cursorRow > 0) term.write(`\x1b[${cursorRow}A`);
  term.write("\r\x1b[J" + (chunk === null ? PROMPT : PROMPT2) + line);
  const endRow = Math.floor((plen + line.length) / cols), row = Math.floor((plen + cursor) / cols);
  // xterm keeps the cursor on the last column after a full row: step to the next one as readline does
  if ((plen + line.length) % cols === 0 && line.length > 0) term.write("\r\n");
  if (endRow > row) term.write(`\x1b[${endRow - row}A`);
  term.write("\r" + ((plen + cursor) % cols > 0 ? `\x1b[${(plen + cursor) % cols}C` : ""));
  cursorRow = row;
}

function submit() {
  cursor = line.length;
  redraw();
  term.write("\r\n");
  if (line.trim() !== "") history.push(line);
  historyAt = history.length;
  chunk = chunk === null ? line : chunk + "\n" + line;
  busy = true;
  document.body.dataset.state = "busy";
  worker.postMessage({ type: "eval", chunk });
}

function wordBeforeCursor() {
  let i = cursor;
  while (i > 0 && !BREAKS.includes(line[i - 1])) i--;
  return line.slice(i, cursor);
}

function completed(list) {
  busy = false;
  const word = wordBeforeCursor();
  if (list.length === 0) return;
  let common = list[0];
  for (const c of list) while (!c.startsWith(common)) common = common.slice(0, -1);
  if (common.length > word.length) {
    insert(common.slice(word.length));
  } else if (list.length > 1) {
    term.write("\r\n" + list.join("  ") + "\r\n");
    cursorRow = 0;
    redraw();
  }
}

function insert(s) {
  line = line.slice(0, cursor) + s + line.slice(cursor);
  cursor += s.length;
  redraw();
}

function interrupt() {
  term.write("^C"); // as a terminal echoes it; attn's message follows on a line of its own
  if (ctl) {
    Atomics.store(ctl, 0, 1);
  } else {
    worker.terminate();
    term.write("\r\n" + tr("the computation was stopped by restarting attn (this browser does not let the page share memory with it): the variables are gone") + "\r\n");
    chunk = null;
    start();
  }
}

// A key or a line for a lesson waiting in step mode (page_term.c reads it from the shared buffer).
function give(text) {
  if (!ctl) return;
  const b = new TextEncoder().encode(text);
  new Uint8Array(shared).set(b.slice(0, 4000), 16);
  Atomics.store(ctl, 2, Math.min(b.length, 4000));
  Atomics.store(ctl, 1, 1);
  Atomics.notify(ctl, 1);
  wanting = null;
  document.body.dataset.state = "busy"; // until the lesson asks again (the tests wait for that)
}
let typed = ""; // a line typed for step mode's "g"

term.onData((data) => {
  if (data === "\x03") { // Ctrl-C
    if (busy) { if (wanting) give("q"); else interrupt(); return; }
    term.write("^C\r\n");
    chunk = null;
    prompt();
    return;
  }
  if (busy) {
    if (wanting === "key") give(data === "\r" ? "\n" : data[0]);
    else if (wanting === "line") {
      if (data === "\r") { term.write("\r\n"); give(typed); typed = ""; }
      else if (data === "\x7f") { if (typed) { typed = typed.slice(0, -1); term.write("\b \b"); } }
      else { typed += data; term.write(data); }
    }
    return;
  }
  if (data === "\r") return submit();
  if (data === "\t") {
    const word = wordBeforeCursor();
    busy = true;
    lastTab = word;
    worker.postMessage({ type: "complete", text: word });
    return;
  }
  if (data === "\x7f") { if (cursor > 0) { line = line.slice(0, cursor - 1) + line.slice(cursor); cursor--; redraw(); } return; }
  if (data === "\x1b[D") { if (cursor > 0) { cursor--; redraw(); } return; }
  if (data === "\x1b[C") { if (cursor < line.length) { cursor++; redraw(); } return; }
  if (data === "\x1b[A" || data === "\x1b[B") {
    historyAt = Math.max(0, Math.min(history.length, historyAt + (data === "\x1b[A" ? -1 : 1)));
    line = history[historyAt] || "";
    cursor = line.length;
    return redraw();
  }
  if (data === "\x01") { cursor = 0; return redraw(); }          // Ctrl-A
  if (data === "\x05") { cursor = line.length; return redraw(); } // Ctrl-E
  if (data === "\x04") return;                                     // Ctrl-D: the page has no end
  // typed or pasted text: a paste of several lines runs them one by one, as in a terminal
  const parts = data.replace(/\r\n?/g, "\n").split("\n");
  insert(parts[0].replace(/[\x00-\x1f]/g, ""));
  if (parts.length > 1) {
    queue.push(...parts.slice(1));
    submit();
  }
});
const queue = [];
const basePrompt = prompt;
// eslint-disable-next-line no-func-assign
prompt = function () { // lines left from a paste run one after the other
  basePrompt();
  if (queue.length) { insert(queue.shift()); if (queue.length || line !== "") submit(); }
};

// ---- lessons --------------------------------------------------------------------------------------
let captures = 0;
function captureLesson(mode, files, f) {
  const id = ++captures;
  pending[id] = f;
  worker.postMessage({ type: "capture", mode, files, id });
}

function loadLessons() {
  wordsLoaded.then(() => fetch("lessons.txt")).then((r) => r.text()).then((txt) => {
    lessonFiles = txt.split("\n").filter((s) => s);
    captureLesson(MODE.LIST, lessonFiles.join("\n"), showLessons);
  });
}

function showLessons(text) {
  const ul = document.getElementById("lesson-list");
  ul.textContent = "";
  const plain = text.replace(/\x1b\[[0-9;]*m/g, "");
  for (const row of plain.split("\n")) {
    const m = row.match(/^(\S+\.lua)\s+(.*)$/);
    if (!m) continue;
    const li = document.createElement("li");
    const title = document.createElement("span");
    title.textContent = m[2];
    title.className = "title";
    const step = document.createElement("button");
    step.textContent = tr("step");
    step.title = tr("run the lesson a step at a time, computed here");
    step.className = "step";
    step.onclick = () => runLesson(MODE.STEP, m[1]);
    const check = document.createElement("button");
    check.textContent = tr("check");
    check.title = tr("check the lesson's numbers against PyTorch's, as attn --check does");
    check.className = "check";
    check.onclick = () => runLesson(MODE.CHECK, m[1]);
    li.dataset.file = m[1];
    li.append(title, " ", step, " ", check);
    ul.append(li);
  }
}

function runLesson(mode, file) {
  if (busy) return;
  if (mode === MODE.STEP && !ctl) { term.write("\r\n" + tr("step mode needs the page to share memory with attn, which this browser does not allow here; check mode works") + "\r\n"); return; }
  term.write("\r\n");
  busy = true;
  document.body.dataset.state = "busy";
  worker.postMessage({ type: "lesson", mode, files: file });
  term.focus();
}

// step mode's buttons: the keys of src/lua/lesson/keys.lua
for (const [id, key] of [["key-next", "\n"], ["key-back", "b"], ["key-list", "l"], ["key-quit", "q"]]) {
  document.getElementById(id).onclick = () => { if (wanting === "key") give(key); term.focus(); };
}
document.getElementById("key-jump").onclick = () => {
  const n = document.getElementById("jump-to").value;
  if (wanting !== "key" || !n) return;
  give("g");
  const wait = setInterval(() => { if (wanting === "line") { clearInterval(wait); give(n); } }, 20);
};

// ---- notes: --verify on a pasted or dropped Markdown note, and its --update'd text to download ------
const note = document.getElementById("note");
document.getElementById("verify").onclick = () => {
  if (busy || note.value.trim() === "") return;
  term.write("\r\n");
  busy = true;
  document.body.dataset.state = "busy";
  worker.postMessage({ type: "verify", name: noteName, text: note.value });
  term.focus();
};
let noteName = "note.md";
note.addEventListener("dragover", (e) => { e.preventDefault(); note.classList.add("over"); });
note.addEventListener("dragleave", () => note.classList.remove("over"));
note.addEventListener("drop", (e) => {
  e.preventDefault();
  note.classList.remove("over");
  const file = e.dataTransfer.files[0];
  if (!file) return;
  noteName = file.name.replace(/[^\w.-]/g, "_") || "note.md";
  file.text().then((t) => { note.value = t; });
});
function offerDownload(text) {
  const a = document.getElementById("download");
  if (a.href) URL.revokeObjectURL(a.href);
  a.href = URL.createObjectURL(new Blob([text], { type: "text/markdown" }));
  a.download = noteName;
  a.hidden = false;
}

// ---- figures: heatmaps and plots as SVG, beside the terminal --------------------------------------
// attn hands the page each figure's SVG when it draws it (src/lua/web/figures.lua: the renderer of
// `attn --html`), and the terminal's text carries a marker where the drawing is (OSC 7717 with the
// figure's number): the figure shows when the terminal shows that text, after the ones before it. A
// cleared screen (step mode's next step) clears them too.
const figureSvgs = new Map(); // n -> SVG text, the last KEEP_SVGS made (a string printed again shows again)
const KEEP_SVGS = 64, KEEP_SHOWN = 16;
function keepFigure(n, svg) {
  figureSvgs.set(n, svg);
  for (const k of figureSvgs.keys()) { if (figureSvgs.size <= KEEP_SVGS) break; figureSvgs.delete(k); }
}
// The SVG as an element of the page. attn's renderer escapes every label and value it writes (a user's
// token "<script>" is text), draws with these elements only and never links or scripts anything: a
// figure with anything else is not what attn drew, and is refused (a guard, not a sanitizer).
const DRAWN = new Set(["svg", "g", "rect", "text", "title", "circle", "path", "line", "polyline"]);
function figureElement(text) {
  const doc = new DOMParser().parseFromString(text, "image/svg+xml");
  const svg = doc.documentElement;
  if (svg.localName !== "svg" || svg.namespaceURI !== "http://www.w3.org/2000/svg") return null;
  for (const el of [svg, ...svg.querySelectorAll("*")]) {
    if (!DRAWN.has(el.localName) || el.namespaceURI !== svg.namespaceURI) return null;
    for (const a of el.attributes) if (/^on|href$/i.test(a.name)) return null;
  }
  return document.importNode(svg, true);
}
function showFigure(n) {
  const svg = figureSvgs.has(n) ? figureElement(figureSvgs.get(n)) : null;
  if (!svg) return;
  const box = document.getElementById("figures");
  box.append(svg);
  while (box.children.length > KEEP_SHOWN) box.firstElementChild.remove();
  document.getElementById("figures-pane").hidden = false;
}
function clearFigures() {
  document.getElementById("figures").textContent = "";
  document.getElementById("figures-pane").hidden = true;
}
term.parser.registerOscHandler(7717, (data) => { showFigure(Number(data)); return true; });
term.parser.registerCsiHandler({ final: "J" }, (params) => { if (params[0] === 2) clearFigures(); return false; });
document.getElementById("figures-clear").onclick = () => { clearFigures(); term.focus(); };

// ---- language -------------------------------------------------------------------------------------
// Every word the page shows outside the terminal: an element's text and its tooltip (title).
function label() {
  document.documentElement.lang = lang === "zh_CN" ? "zh-CN" : "en";
  const other = lang === "zh_CN" ? "en" : "zh_CN";
  for (const [id, text, tip] of [
    ["lang", LANGUAGE_NAMES[other], tr("the page's language")],
    ["lessons-title", tr("Lessons")],
    ["key-next", tr("next"), tr("the next step (the Enter key)")],
    ["key-back", tr("back"), tr("the step before (the b key)")],
    ["key-list", tr("list"), tr("the lesson's steps (the l key)")],
    ["jump-to", null, tr("the number of the step to go to")],
    ["key-jump", tr("go to"), tr("go to that step (the g key)")],
    ["key-quit", tr("quit"), tr("leave the lesson (the q key)")],
    ["figures-title", tr("Figures")],
    ["figures-clear", tr("clear"), tr("remove the figures shown")],
    ["notes-title", tr("Notes")],
    ["notes-help", tr("Paste or drop a Markdown note: its code blocks run and their printed numbers are checked, as attn --verify does.")],
    ["verify", tr("Verify"), tr("run the note's code and check its numbers")],
    ["download", tr("Download the updated note"), tr("the note with the numbers attn computed (attn --update)")],
  ]) {
    const el = document.getElementById(id);
    if (text !== null && text !== undefined) el.textContent = text;
    if (tip) el.title = tip;
  }
  document.getElementById("jump-to").setAttribute("aria-label", tr("the number of the step to go to"));
  document.getElementById("note").setAttribute("aria-label", tr("the note (Markdown)"));
  document.getElementById("terminal").setAttribute("aria-label", tr("attn's terminal"));
}
document.getElementById("lang").onclick = () => {
  if (busy) return;
  lang = lang === "zh_CN" ? "en" : "zh_CN";
  label();
  worker.postMessage({ type: "lang", lang });
  term.focus();
  if (lessonFiles.length) captureLesson(MODE.LIST, lessonFiles.join("\n"), showLessons);
};

// The words first (a small file of the page's own), so that the page is never labelled in the wrong language.
const wordsLoaded = fetch("words.json").then((r) => r.json()).then((w) => { words = w; }).catch(() => {});
wordsLoaded.then(label);
start();
