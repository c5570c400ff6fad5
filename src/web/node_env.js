// node_env.js — the node build's (build/wasm/attn.js) environment: the process's own (HOME, ATTN_LANG,
// ATTN_TIKTOKEN_DIR, ...), not emscripten's made-up one, so attn under node finds what ./attn finds.
Module["preRun"] = Module["preRun"] || [];
Module["preRun"].push(function () {
  var keys = Object.keys(process.env);
  for (var i = 0; i < keys.length; i++) ENV[keys[i]] = process.env[keys[i]];
});
