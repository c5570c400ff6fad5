// node_env.js — the node build's (build/wasm/attn.js) environment: the process's own (HOME, ATTN_LANG,
// ATTN_TIKTOKEN_DIR, ...), not emscripten's made-up one, so attn under node finds what ./attn finds.
Module["preRun"] = Module["preRun"] || [];
Module["preRun"].push(function () {
  var keys = Object.keys(process.env);
  for (var i = 0; i < keys.length; i++) ENV[keys[i]] = process.env[keys[i]];
});
// The executable is this file (build/wasm/attn.js), not node: /proc/self/exe (and /proc/PID/exe, which musl's
// realpath reaches through /proc/self) reads as its path, so that attn under node finds what is beside it as
// ./attn does (src/lua/places.lua: the checkout's build/; src/cli/lessons.c: ../../lessons).
Module["preRun"].push(function () {
  var readlink = FS.readlink;
  var own = ["/proc/self/exe", "/proc/" + process.pid + "/exe"];
  FS.readlink = function (path) {
    return own.indexOf(path) >= 0 ? __filename : readlink.apply(this, arguments);
  };
});
