// worker.js — the Web Worker that owns attn's Lua state (attn-page.js, built from src/web/page/main_page.c
// and the core): the page (page.js) never freezes while a chunk computes. Messages in: init, eval,
// complete, lesson, lang, capture; out: output (text for the terminal), figure (an SVG), done, want (a key
// or a line).
//
// Ctrl-C and step mode's keys need the worker to hear the page while a chunk runs, which no message can
// do (the worker is busy). When the page is cross-origin isolated (coi-serviceworker gives that on any
// http(s) host), the page shares a SharedArrayBuffer: word 0 is the Ctrl-C flag, read by the hook of
// page_interrupt.c; word 1 says a key or line is waiting in the bytes after word 3, read by page_term.c
// through Atomics.wait. Without it, Ctrl-C restarts the worker (page.js) and step mode has no keys.
/* global createAttn */
importScripts("attn-page.js", "worker_models.js"); // worker_models.js: a picked model folder

let attn = null;
let ctl = null;   // Int32Array over the shared buffer: [0] Ctrl-C, [1] input ready, [2] its length
let bytes = null; // Uint8Array over the same buffer, the input from byte 16 on
let out = [];     // bytes printed since the last flush
const decoder = new TextDecoder();
let capture = null; // a call whose output goes back to the page instead of to the terminal

function flush() {
  if (out.length === 0) return;
  const text = decoder.decode(new Uint8Array(out), { stream: true });
  out = [];
  if (capture !== null) capture += text;
  else postMessage({ type: "output", text });
}
function putByte(b) {
  if (b === null) return;
  out.push(b < 0 ? b + 256 : b);
  if (b === 10 && capture === null) flush();
}

// Waits for the page to write a key or a line into the shared buffer; returns its text, or null.
function waitInput(what) {
  flush();
  if (ctl === null) return null;
  postMessage({ type: "want", what });
  Atomics.wait(ctl, 1, 0);
  const s = new TextDecoder().decode(bytes.slice(16, 16 + Atomics.load(ctl, 2)));
  Atomics.store(ctl, 1, 0);
  return s;
}

const module = {
  noInitialRun: true,
  stdout: putByte,
  stderr: putByte,
  print: (s) => { putByte(10); }, // not used: stdout is byte-wise
  rows: 32,
  cols: 100,
  takeInterrupt: () => (ctl === null ? 0 : Atomics.exchange(ctl, 0, 0)),
  readKey: () => {
    const s = waitInput("key");
    return s === null || s.length === 0 ? -1 : s.charCodeAt(0);
  },
  readLine: () => waitInput("line"),
  // a heatmap's or plot's SVG (src/web/page/page_figures.c), shown when the terminal meets its marker
  figure: (n, svg) => postMessage({ type: "figure", n, svg }),
};

onmessage = async (e) => {
  const m = e.data;
  if (m.type === "init") {
    if (m.shared) {
      ctl = new Int32Array(m.shared);
      bytes = new Uint8Array(m.shared);
    }
    module.rows = m.rows;
    module.cols = m.cols;
    attn = await createAttn(module);
    const ok = attn.ccall("attn_page_start", "number", ["string"], [m.lang]);
    flush();
    postMessage({ type: "done", what: "init", ok });
  } else if (m.type === "eval") {
    const incomplete = attn.ccall("attn_page_eval", "number", ["string"], [m.chunk]);
    flush();
    postMessage({ type: "done", what: "eval", incomplete });
  } else if (m.type === "complete") {
    const list = attn.ccall("attn_page_complete", "string", ["string"], [m.text]);
    postMessage({ type: "done", what: "complete", list: list === "" ? [] : list.split("\n") });
  } else if (m.type === "lesson" || m.type === "capture") {
    if (m.type === "capture") capture = "";
    const ok = attn.ccall("attn_page_lesson", "number", ["number", "string", "number"], [m.mode, m.files, m.from || 0]);
    flush();
    const text = capture;
    capture = null;
    postMessage({ type: "done", what: m.type, ok, text, id: m.id });
  } else if (m.type === "verify") {
    // the note as a file of the module's memory file system, checked (the report goes to the terminal),
    // then --update'd on a copy (mode 7, ATTN_LESSON_VERIFY; 1: --update), whose text goes back to the page
    attn.FS.mkdirTree("/notes");
    attn.FS.chdir("/notes");
    attn.FS.writeFile(m.name, m.text);
    const ok = attn.ccall("attn_page_lesson", "number", ["number", "string", "number"], [7, m.name, 0]);
    flush();
    capture = "";
    attn.FS.writeFile("updated-" + m.name, m.text);
    attn.ccall("attn_page_lesson", "number", ["number", "string", "number"], [7, "updated-" + m.name, 1]);
    flush();
    capture = null;
    const updated = attn.FS.readFile("updated-" + m.name, { encoding: "utf8" });
    postMessage({ type: "done", what: "lesson", ok, updated });
  } else if (m.type === "lang") {
    attn.ccall("attn_page_lang", "number", ["string"], [m.lang]);
    postMessage({ type: "done", what: "lang" });
  } else if (m.type === "resize") {
    module.rows = m.rows;
    module.cols = m.cols;
  }
};
