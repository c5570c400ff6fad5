-- places.lua — where attn looks for the files it does not ship (module attn.places): GPT-2's vocabulary
-- (tiktoken), the Hugging Face tokenizer.json files scripts/fetch-hf-tokenizers.sh fetches, GPT-2 small's
-- weights. Every kind has one list of directories, in this order:
--   1. the directory its variable names, when set: $ATTN_TIKTOKEN_DIR, $ATTN_HF_TOKENIZERS_DIR, $ATTN_GPT2_DIR,
--      $ATTN_QWEN3_DIR;
--   2. attn's cache: $XDG_CACHE_HOME/attn/KIND, else ~/.cache/attn/KIND (KIND: tiktoken, hf-tokenizers, gpt2,
--      qwen3);
--   3. beside attn itself, where `make run` and `make test` fetch them: build/gpt2-vocab, build/hf-tokenizers
--      (and build/gpt2) of the checkout attn was built in, or PREFIX/share/attn/... of an installed attn.
-- (A model by its Hugging Face name, "gpt2" or "Qwen/Qwen3-0.6B", is also looked for in the Hugging Face
-- cache: hf.lua.) The user's own places come first, so a file the user put there always wins.
--   places.dirs(kind)          {{dir =, why =}, ...}: the directories, in order (why: the variable, or nil)
--   places.find(kind, file)    the first of them that has file, or nil
--   places.looked(kind)        the directories as an error lists them, one indented line each
--   places.fetch(kind)         the command that fetches the files of kind into attn's cache
--   places.tokenizer(name)     for a model whose tokenizer.json fetch-hf-tokenizers.sh fetches ("Qwen/Qwen3-0.6B"):
--                              {dirs =, fetch =}, the folders that may hold it and the command, as
--                              hf.model_dir takes them; nil for another model
--   places.model(name)         the same for a model's own files: Qwen/Qwen3-0.6B's (kind qwen3); nil for another
local files = require("attn.bind").files

local places = {}

local KINDS = {
    tiktoken = {var = "ATTN_TIKTOKEN_DIR", beside = "gpt2-vocab", script = "fetch-gpt2-vocab.sh"},
    ["hf-tokenizers"] = {var = "ATTN_HF_TOKENIZERS_DIR", beside = "hf-tokenizers", script = "fetch-hf-tokenizers.sh"},
    gpt2 = {var = "ATTN_GPT2_DIR", beside = "gpt2"},
    qwen3 = {var = "ATTN_QWEN3_DIR", beside = "Qwen3-0.6B"},
}

local function env(name)
    local v = os.getenv(name)
    if v and v ~= "" then return v end
end

local function kind_of(kind)
    local k = KINDS[kind]
    if not k then error("places: unknown kind " .. tostring(kind), 2) end
    return k
end

function places.cache_dir()
    return (env("XDG_CACHE_HOME") or ((env("HOME") or "~") .. "/.cache")) .. "/attn"
end

-- The folders beside the running attn where its data can be: the checkout's build/ (attn at the top of
-- the checkout, build/asan/attn, or the WebAssembly build under node, build/wasm/attn.js: src/web/node_env.js)
-- and an installed attn's share/attn. Nothing when attn is a module loaded by another interpreter (attn.so):
-- that interpreter's folder is not attn's.
local function beside_attn()
    local exe = files.realpath("/proc/self/exe")
    local dir = exe and (exe:match("^(.*)/attn$") or exe:match("^(.*/build/wasm)/attn%.js$"))
    if not dir then return {} end
    if dir:match("/build/asan$") or dir:match("/build/wasm$") then return {(dir:gsub("/%w+$", ""))} end
    if dir:match("/bin$") then return {(dir:gsub("/bin$", "/share/attn"))} end
    return {dir .. "/build"}
end
places.beside_attn = beside_attn

function places.dirs(kind)
    local k = kind_of(kind)
    local list = {}
    if env(k.var) then list[#list + 1] = {dir = env(k.var), why = "$" .. k.var} end
    list[#list + 1] = {dir = places.cache_dir() .. "/" .. kind}
    for _, d in ipairs(beside_attn()) do list[#list + 1] = {dir = d .. "/" .. k.beside} end
    return list
end

local function exists(path)
    local f = io.open(path, "rb")
    if f then f:close() end
    return f ~= nil
end

function places.find(kind, file)
    for _, d in ipairs(places.dirs(kind)) do
        if exists(d.dir .. "/" .. file) then return d.dir end
    end
end

function places.looked(kind)
    local lines = {}
    for i, d in ipairs(places.dirs(kind)) do
        lines[i] = "    " .. d.dir .. (d.why and ("  (" .. d.why .. ")") or "")
    end
    return table.concat(lines, "\n")
end

-- The fetch script of attn's checkout, by its full path when attn runs from one; else by its path in
-- attn's sources (an installed attn has no scripts/).
function places.fetch(kind)
    local k = kind_of(kind)
    if not k.script then return nil end
    local script = "scripts/" .. k.script
    for _, d in ipairs(beside_attn()) do
        local checkout = d:match("^(.*)/build$")
        if checkout and exists(checkout .. "/" .. script) then script = checkout .. "/" .. script break end
    end
    return "sh " .. script .. " " .. places.cache_dir() .. "/" .. kind
end

-- The models whose tokenizer.json scripts/fetch-hf-tokenizers.sh fetches, and the folder it puts it in.
local FETCHED_TOKENIZERS = {["Qwen/Qwen3-0.6B"] = "qwen3"}

function places.tokenizer(name)
    local sub = FETCHED_TOKENIZERS[name]
    if not sub then return nil end
    local dirs = {}
    for i, d in ipairs(places.dirs("hf-tokenizers")) do dirs[i] = {dir = d.dir .. "/" .. sub, why = d.why} end
    return {dirs = dirs, fetch = places.fetch("hf-tokenizers")}
end

function places.model(name)
    if name ~= "Qwen/Qwen3-0.6B" then return nil end
    return {dirs = places.dirs("qwen3")}
end

return places
