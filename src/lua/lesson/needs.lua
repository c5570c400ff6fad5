-- needs.lua — lesson.needs{...}: the files a lesson needs that attn does not ship (module
-- attn.lesson.needs). A lesson names them in one line before the steps that use them, so the steps the
-- class sees hold the book's code only (tiktoken.get_encoding("gpt2"), GPTModel.from_pretrained("gpt2"))
-- and none of the looking: when one is missing, the lesson is skipped (lesson.skip) with the loader's own
-- message, which says where attn looked and the command that gets the files.
--   "gpt2 vocabulary"   GPT-2's encoder.json (tiktoken.get_encoding("gpt2"))
--   "qwen3 tokenizer"   Qwen3's tokenizer.json (tokenizers.Tokenizer.from_pretrained("Qwen/Qwen3-0.6B"))
--   "gpt2"              GPT-2 small's config.json and model.safetensors (gpt.GPTModel.from_pretrained("gpt2"))
--   "Qwen/Qwen3-0.6B"   Qwen3-0.6B's files (qwen3.Qwen3Model.from_pretrained("Qwen/Qwen3-0.6B"))
local errors = require("attn.errors")
local function N(msgid) return msgid end -- marks a message for the catalogs; the caller translates it

local needs = {}

local function exists(path)
    local f = io.open(path, "rb")
    if f then f:close() end
    return f ~= nil
end

-- Each: what it is (for "This lesson needs %s") and a check that raises the loader's error when missing.
-- The models are only looked for, not loaded (GPT-2 small is 550 MB): the step that loads them reads them.
local WHAT = {
    ["gpt2 vocabulary"] = {N("GPT-2's vocabulary"), function() require("attn.tiktoken").get_encoding("gpt2") end},
    ["qwen3 tokenizer"] = {N("Qwen3's tokenizer.json"), function()
        require("attn.tokenizers").Tokenizer.from_pretrained("Qwen/Qwen3-0.6B")
    end},
    ["gpt2"] = {N("GPT-2 small's weights"), function()
        local dir = require("attn.gpt.load").gpt2_dir("GPTModel.from_pretrained", "gpt2")
        if not exists(dir .. "/model.safetensors") then
            errors.raisef("GPTModel.from_pretrained: %s has no model.safetensors", dir)
        end
    end},
    ["Qwen/Qwen3-0.6B"] = {N("Qwen3-0.6B's weights"), function()
        local hf = require("attn.hf")
        local places = require("attn.places")
        for _, file in ipairs({"config.json", "model.safetensors"}) do
            hf.model_dir("Qwen3Model.from_pretrained", "Qwen/Qwen3-0.6B", file, nil, places.model("Qwen/Qwen3-0.6B"))
        end
    end},
}

--- needs.missing(list) -> nil when every file of list is here; else what is missing (translated by the
--- caller) and the loader's message saying where attn looked and how to get it.
function needs.missing(list)
    if type(list) ~= "table" then
        errors.raisef("lesson.needs: expected a list such as {\"gpt2 vocabulary\"}, got %s", type(list))
    end
    for _, name in ipairs(list) do
        local what = WHAT[name]
        if not what then
            local known = {}
            for k in pairs(WHAT) do known[#known + 1] = string.format("%q", k) end
            table.sort(known)
            errors.raisef("lesson.needs: unknown %s (it knows %s)", tostring(name), table.concat(known, ", "))
        end
        local ok, err = pcall(what[2])
        if not ok then return what[1], errors.message(err) end
    end
end

return needs
