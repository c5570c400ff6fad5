-- assets.lua — the style sheet and the script every page of attn carries inline (module
-- attn.html.assets), so that a page opens from a file or a USB stick and asks no network for
-- anything. html/page.lua puts them in the page.
--
--   css   light and dark themes (prefers-color-scheme); presentation mode (body.presenting: one
--         step per screen, large type); printing in presentation mode puts one step on each page
--   js    presentation mode: P or the button starts it, → Space PageDown next, ← PageUp back,
--         Home End the first and last step, Esc back to the page. The fragment names the step
--         (#present-7), so a reload or a link opens step 7 in presentation mode; #step-7 is step
--         7 on the scrolling page. Frames (html/page.lua's frames_block): a slider shows one at a
--         time.
local assets = {}

assets.css = [[
:root { --bg: #ffffff; --fg: #1d1d1f; --dim: #5f6368; --rule: #d0d7de; --code-bg: #f6f8fa;
        --py: #8250df; --ok: #1a7f37; --bad: #cf222e; --same: #0969da; --card: #ffffff; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #0d1117; --fg: #e6edf3; --dim: #9198a1; --rule: #30363d; --code-bg: #161b22;
          --py: #d2a8ff; --ok: #3fb950; --bad: #f85149; --same: #58a6ff; --card: #0d1117; }
}
* { box-sizing: border-box; }
html { background: var(--bg); color: var(--fg); }
body { margin: 0 auto; max-width: 62rem; padding: 1rem 1.5rem 4rem; font: 16px/1.5 system-ui, sans-serif; }
h1 { margin: 0.5rem 0 0.2rem; font-size: 1.8rem; }
.source, .counts { color: var(--dim); margin: 0.2rem 0; }
.tools { margin: 0.8rem 0; }
button { font: inherit; padding: 0.3rem 0.9rem; border: 1px solid var(--rule); border-radius: 6px;
         background: var(--code-bg); color: var(--fg); cursor: pointer; }
nav ol { columns: 2; color: var(--dim); padding-left: 1.5rem; }
nav a { color: inherit; }
h2.section { margin: 2rem 0 0.5rem; padding-bottom: 0.2rem; border-bottom: 2px solid var(--rule); font-size: 1.3rem; }
section.step { border-top: 1px solid var(--rule); padding-top: 0.5rem; margin-top: 1.5rem; }
h3.step-title { font-size: 1.1rem; margin: 0.6rem 0; }
h3.step-title .num { color: var(--dim); font-weight: normal; margin-right: 0.4rem; }
pre { background: var(--code-bg); padding: 0.6rem 0.8rem; border-radius: 6px; overflow-x: auto;
      font: 13px/1.45 ui-monospace, Menlo, Consolas, monospace; margin: 0.5rem 0; }
pre.code { border-left: 3px solid var(--rule); }
pre.code .py { color: var(--py); font-style: italic; }
pre.out { background: transparent; border: 1px dashed var(--rule); }
.figures { display: flex; flex-wrap: wrap; gap: 1.5rem; align-items: flex-start; margin: 0.5rem 0; overflow-x: auto; }
.figures svg { max-width: 100%; height: auto; }
.frames { margin: 0.5rem 0; overflow-x: auto; }
.frames .scrub { display: flex; gap: 0.8rem; align-items: center; margin: 0.3rem 0; }
.frames input[type=range] { flex: 0 1 20rem; }
.frames output { color: var(--dim); font-family: ui-monospace, Menlo, Consolas, monospace; }
.frames svg { max-width: 100%; height: auto; }
.check { margin: 0.25rem 0; font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 14px; }
.check summary { cursor: pointer; }
.check .mark { font-weight: bold; }
.check.ok .mark { color: var(--ok); }
.check.same .mark { color: var(--same); }
.check.bad .mark { color: var(--bad); }
.check .note { color: var(--dim); }
.sides { display: flex; flex-wrap: wrap; gap: 0.5rem; }
.sides > div { flex: 1 1 20rem; min-width: 0; }
.sides b { font-weight: normal; color: var(--dim); }
.summary { margin-top: 2rem; padding-top: 0.5rem; border-top: 2px solid var(--rule); font-weight: bold; }
.bar { display: none; }
body.presenting { max-width: none; padding: 1.5vw 3vw 5rem; font-size: clamp(18px, 2.1vw, 40px); }
body.presenting > header, body.presenting > nav, body.presenting .summary, body.presenting .after,
body.presenting .intro { display: none; }
body.presenting section.step { display: none; border: 0; margin: 0; }
body.presenting section.step.current { display: block; }
body.presenting pre, body.presenting .check { font-size: clamp(14px, 1.5vw, 30px); }
body.presenting h3.step-title { font-size: 1.4em; }
body.presenting .frames svg { height: 45vh; width: auto; max-width: 90vw; } /* the slider's heatmap: projector-sized */
@media (min-width: 1000px) { body.presenting .figures svg { zoom: 1.5; } }
@media (min-width: 1600px) { body.presenting .figures svg { zoom: 2; } }
body.presenting .bar { display: flex; gap: 1rem; align-items: center; position: fixed; bottom: 0; left: 0;
  right: 0; padding: 0.4rem 1rem; background: var(--code-bg); border-top: 1px solid var(--rule); font-size: 16px; }
.bar .where { flex: 1; color: var(--dim); }
@media print {
  body { max-width: none; }
  .tools, .bar, nav { display: none !important; }
  details > *:not(summary) { display: block; }
  body.presenting section.step { display: block !important; break-after: page; page-break-after: always; }
  pre { white-space: pre-wrap; }
}
]]

assets.js = [[
(function () {
  "use strict";
  var steps = Array.prototype.slice.call(document.querySelectorAll("section.step"));
  var body = document.body, where = document.getElementById("where");
  var current = 0, presenting = false;

  function fragment(i) { return "#present-" + (i + 1); }

  function show(i) {
    current = Math.max(0, Math.min(steps.length - 1, i));
    steps.forEach(function (s, k) { s.classList.toggle("current", k === current); });
    if (where) where.textContent = where.getAttribute("data-format")
      .replace("%1", String(current + 1)).replace("%2", String(steps.length));
    if (location.hash !== fragment(current)) location.hash = fragment(current);
    window.scrollTo(0, 0);
  }

  function present(on, i) {
    presenting = on && steps.length > 0;
    body.classList.toggle("presenting", presenting);
    if (presenting) { show(i); return; }
    steps.forEach(function (s) { s.classList.remove("current"); });
    location.hash = "#step-" + (current + 1);
  }

  // The step at the top of the window, where presentation mode starts from the scrolling page.
  function visible() {
    for (var k = 0; k < steps.length; k++) {
      if (steps[k].getBoundingClientRect().bottom > 80) return k;
    }
    return 0;
  }

  function fromHash() {
    var m = /^#present-(\d+)$/.exec(location.hash);
    if (m) {
      var i = parseInt(m[1], 10) - 1;
      if (!presenting) present(true, i); else if (i !== current) show(i);
    } else if (presenting) {
      present(false);
    }
  }

  // Frames (lesson.heatmaps' {frames = title}): the slider shows one frame and names it.
  Array.prototype.forEach.call(document.querySelectorAll(".frames"), function (box) {
    var range = box.querySelector("input[type=range]"), name = box.querySelector("output");
    var frames = box.querySelectorAll(".frame");
    function pick() {
      var k = parseInt(range.value, 10) - 1;
      Array.prototype.forEach.call(frames, function (f, j) { f.hidden = j !== k; });
      if (name && frames[k]) name.textContent = frames[k].getAttribute("data-title");
    }
    range.addEventListener("input", pick);
    pick();
  });

  document.addEventListener("keydown", function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.target && e.target.type === "range") return;   // the arrows move a frames slider
    if (!presenting) {
      if (e.key === "p" || e.key === "P") { e.preventDefault(); present(true, visible()); }
      return;
    }
    switch (e.key) {
      case "ArrowRight": case " ": case "PageDown": case "Enter": show(current + 1); break;
      case "ArrowLeft": case "PageUp": case "Backspace": show(current - 1); break;
      case "Home": show(0); break;
      case "End": show(steps.length - 1); break;
      case "Escape": case "p": case "P": present(false); break;
      default: return;
    }
    e.preventDefault();
  });
  var button = document.getElementById("present");
  if (button) button.addEventListener("click", function () { present(true, visible()); });
  var prev = document.getElementById("prev"), next = document.getElementById("next"),
      leave = document.getElementById("leave");
  if (prev) prev.addEventListener("click", function () { show(current - 1); });
  if (next) next.addEventListener("click", function () { show(current + 1); });
  if (leave) leave.addEventListener("click", function () { present(false); });
  window.addEventListener("hashchange", fromHash);
  fromHash();
})();
]]

return assets
