-- hf.lua — models in the Hugging Face cache (module attn.hf), found the way huggingface_hub lays them out
-- when it downloads one (it is never asked to download: attn reads only what is on the disk):
--   CACHE/models--ORG--NAME/refs/main              the commit that "main" was when downloaded
--   CACHE/models--ORG--NAME/snapshots/COMMIT/...   config.json, model.safetensors, tokenizer.json, ...
-- CACHE is $HF_HUB_CACHE, else $HF_HOME/hub, else $XDG_CACHE_HOME/huggingface/hub, else
-- ~/.cache/huggingface/hub, as huggingface_hub chooses it. A name is "gpt2" or "Qwen/Qwen3-0.6B".
--   hf.cache_dir()                         that directory
--   hf.find(name, file [, opts])           the snapshot directory of model `name` that has `file`, or nil and
--                                          the places looked in; opts.cache_dir replaces CACHE, opts.revision
--                                          (default "main") is a name in refs/ or a 40-hex commit
--   hf.resolve(name, file)                 name itself when it is a file or directory on the disk (the user's
--                                          directory always wins), else the cache's directory when it has
--                                          the file, else name (the caller's own error then says what is missing)
--   hf.model_dir(fn, name, file [, opts [, also]])  hf.resolve, but an error listing every place looked in and
--                                          how to get the file when none has it; also.dirs (places.dirs's
--                                          list) are looked in after the cache, also.fetch is a command
--                                          that fetches the file
local errors = require("attn.errors")
local files = require("attn.bind").files
local check = require("attn.check")
local trf = require("attn.i18n").trf

local hf = {}

local function env(name)
    local v = os.getenv(name)
    if v and v ~= "" then return v end
end

function hf.cache_dir()
    local hub = env("HF_HUB_CACHE") or env("HUGGINGFACE_HUB_CACHE")
    if hub then return hub end
    local home = env("HF_HOME")
    if not home then home = (env("XDG_CACHE_HOME") or ((env("HOME") or "~") .. "/.cache")) .. "/huggingface" end
    return home .. "/hub"
end

local function exists(path)
    local f = files.open(path) -- core/safe_read.c: a FIFO is refused, never waited on
    if f then f:close() end
    return f ~= nil
end

-- A repository id as the Hub spells them: NAME or ORG/NAME, letters, digits, '-', '_', '.'.
local function is_repo_id(name)
    return type(name) == "string" and (name:match("^[%w][%w%._%-]*$") or name:match("^[%w][%w%._%-]*/[%w][%w%._%-]*$"))
        and not name:find("%.%.")
end

function hf.find(name, file, opts)
    opts = opts or {}
    local cache = opts.cache_dir or hf.cache_dir()
    if not is_repo_id(name) then return nil, cache end
    local folder = cache .. "/models--" .. name:gsub("/", "--")
    local revision = opts.revision or "main"
    local commit = revision
    if not revision:match("^%x+$") or #revision ~= 40 then
        local f = files.open(folder .. "/refs/" .. revision)
        if not f then return nil, folder end
        commit = (f:read("a") or ""):match("^%s*(%x+)%s*$")
        f:close()
        if not commit then return nil, folder end
    end
    local dir = folder .. "/snapshots/" .. commit
    if exists(dir .. "/" .. file) then return dir end
    return nil, dir
end

function hf.resolve(name, file)
    if type(name) ~= "string" or exists(name) then return name end
    return hf.find(name, file) or name
end

local function check_opts(fn, opts)
    if opts == nil then return {} end
    if type(opts) ~= "table" then errors.raise(fn .. ": " .. trf("options must be a table, got %s", check.describe(opts))) end
    for k, v in pairs(opts) do
        if k ~= "cache_dir" and k ~= "revision" then
            errors.raise(fn .. ": " .. trf("unknown option %s (it has cache_dir, revision)", tostring(k)))
        end
        if type(v) ~= "string" then
            errors.raise(fn .. ": " .. trf("%s must be a string, got %s", k, check.describe(v)))
        end
    end
    return opts
end

function hf.model_dir(fn, name, file, opts, also)
    opts = check_opts(fn, opts)
    if type(name) ~= "string" then
        errors.raise(fn .. ": " .. trf('expected a directory or a model name such as "Qwen/Qwen3-0.6B", got %s',
                                       check.describe(name)))
    end
    if exists(name .. "/" .. file) then return name end
    local dir, in_cache = hf.find(name, file, opts)
    if dir then return dir end
    local looked = {"    " .. name}
    if is_repo_id(name) then
        looked[2] = "    " .. in_cache .. "  " .. trf("(the Hugging Face cache: $HF_HUB_CACHE, $HF_HOME/hub or "
                                                    .. "~/.cache/huggingface/hub)")
    end
    for _, d in ipairs(also and also.dirs or {}) do
        if exists(d.dir .. "/" .. file) then return d.dir end
        looked[#looked + 1] = "    " .. d.dir .. (d.why and ("  (" .. d.why .. ")") or "")
    end
    local how = {}
    if also and also.fetch then how[#how + 1] = "    " .. also.fetch end
    if is_repo_id(name) then how[#how + 1] = "    huggingface-cli download " .. name end
    errors.raise(fn .. ": " .. trf("for %s, found no %s. attn looked in:\n%s", name, file, table.concat(looked, "\n"))
                 .. (#how > 0 and ("\n" .. trf("To get it:") .. "\n" .. table.concat(how, "\n")) or ""))
end

return hf
