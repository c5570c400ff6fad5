-- help.lua — attn's help system: help() prints a tour, help(x) the doc of one function or table.
--
-- Docs are registered, not written here, so they can live in files of their own (src/lua/docs/):
--
--   local help = require("attn.help")
--   help.register("torch.softmax", {
--       sig = "torch.softmax(x, dim)",
--       doc = "Normalises x along dim so that the values are positive and sum to 1 ...",
--       example = "torch.softmax(torch.tensor{1, 2, 3}, -1)",
--   })
--
-- The optional third argument of register is the value being documented, for values that cannot
-- be reached by name from _G (a method, a local class). Without it, help(value) finds the doc by
-- resolving the registered names. The module attn.docs, when the build has one, is loaded the
-- first time help is asked for anything, so registering docs needs no change elsewhere.
--
-- The module is a callable table: help(x) == help.show(x). help.text(x) returns what help(x)
-- prints, and help.write (io.write by default) is where it goes.

local torch = require("attn.bind").torch
local errors = require("attn.errors")
local columns = require("attn.text.width").of
local wrap_line = require("attn.text.wrap").line
local i18n = require("attn.i18n")
local glossary = require("attn.glossary")
local manual = require("attn.manual")
local tr, trf = i18n.tr, i18n.trf
local help = {}

local docs = {}                                  -- name -> {sig, doc, example}
local by_value = setmetatable({}, {__mode = "k"}) -- value -> name, for register's third argument
local docs_loaded = false
local class_doc, nearest -- defined below, used by help.text
local groups = {}                                -- table name -> {{title, {names}}, ...}

help.write = function(s) io.write(s) end

local function N(msgid) return msgid end   -- marks a message for xgettext; translated where shown
local TOUR = N[[
attn — Lua 5.4 with float32 tensors and the stages of attention, to follow a
PyTorch book line by line. Type or paste the indented lines at attn>, in order.

Tensors: "Your journey starts with one step" (LLMs from scratch, §3.3.1)
  inputs = torch.tensor{{0.43, 0.15, 0.89}, {0.55, 0.87, 0.66},
                        {0.57, 0.85, 0.64}, {0.22, 0.58, 0.33},
                        {0.77, 0.25, 0.10}, {0.05, 0.80, 0.55}}
  query = inputs[2]          -- x^(2), "journey": 1-based (Python: inputs[1])
  inputs:matmul(query)       -- Python: inputs @ query; * is element-wise
  torch.softmax(_, -1)       -- _ is the last result; dims from 1, -1 the last
  nn.Linear(3, 2, {bias = false})     -- keyword arguments in a trailing table

Attention one stage at a time (?attention lists the stages)
  w = attention.softmax(attention.scores(inputs, inputs))    -- ω = X·Xᵀ, α
  tokens = {"Your", "journey", "starts", "with", "one", "step"}
  tr = attention.trace{x = inputs, tokens = tokens}
  tr:step()                  -- the next stage: formula, shape, matrix
  attention.heatmap(w, {rows = tokens, cols = tokens})  -- shaded cells

The books' classes and the Transformer's layers (?nn lists them all)
  torch.manual_seed(123)
  mha = nn.MultiHeadAttention(3, 2, 6, 0.0, 2)    -- d_in, d_out, n, p, heads
  batch = torch.stack({inputs, inputs}, 1)        -- two texts: [2, 6, 3]
  mha(batch)                                      -- the book's [2, 6, 2]
  attention.trace{module = mha, x = batch}        -- its stages, head by head
  ffn = nn.PositionwiseFFN(3, 8, 0.0)
  block = nn.EncoderBlock(3, nn.MultiHeadedAttention(1, 3, 0.0), ffn, 0.0)
  block(batch).shape

Lessons: the books' worked examples, computed and checked (?lesson)
  $ ./attn --list                    -- the lessons and their book sections
  $ ./attn --step lessons/01_simple_attention.lua   -- Enter: next step
  $ ./attn --check                   -- every lesson: "N passed, N failed"
  $ ./attn --verify notes.md         -- Markdown notes: outputs checked

At the prompt an expression prints its value; `local x = 1` keeps x; Tab
completes (attention.so<Tab>, nn.Mu<Tab>, tr:<Tab>); Up/Down: history;
Ctrl-C stops a computation; Ctrl-D quits.
  ?torch.softmax             -- help for one function, with an example
  ?attention  ?nn  ?lesson  ?torch  ?Tensor     -- what each of them holds
  ?tour  ?exact  ?safety  ?performance   -- the manual (man attn-tour, ...)
]]

local function trim(s)
    return (s:gsub("^%s+", ""):gsub("%s+$", ""))
end

-- Lays text out in lines of at most `width` columns, each starting with `indent` (Chinese text
-- breaks between characters: text/wrap.lua).
local function wrap(text, indent, width)
    local lines = {}
    for para in (text .. "\n"):gmatch("(.-)\n") do
        for _, l in ipairs(wrap_line((para:gsub("%s+", " "):gsub("^ ", "")), width - columns(indent))) do
            lines[#lines + 1] = indent .. l
        end
    end
    return table.concat(lines, "\n")
end

-- The comments of an example's code lines (the text after "-- ", not the "-->" lines of output),
-- which help shows translated: scripts/po-docs.lua puts them in the catalogs' templates.
function help.example_comments(example)
    local list = {}
    for line in (example .. "\n"):gmatch("(.-)\n") do
        local c = not line:match("^%s*%-%->") and line:match("%-%- (.-)%s*$")
        if c and c ~= "" then list[#list + 1] = c end
    end
    return list
end

local function translate_comments(example)
    if i18n.lang() == "en" then return example end
    local out = {}
    for line in (example .. "\n"):gmatch("(.-)\n") do
        local code, c = line:match("^(.-%-%- )(.-)%s*$")
        if c and c ~= "" and not line:match("^%s*%-%->") then line = code .. tr(c) end
        out[#out + 1] = line
    end
    return table.concat(out, "\n")
end

-- The value a dotted name refers to, starting at _G ("torch.softmax", "x:matmul"); nil if none.
local function resolve(name)
    local v = _G
    for sep, part in ("." .. name):gmatch("([%.:])([^%.:]+)") do
        local ok, r = pcall(function() return v[part] end)
        if not ok or r == nil then return nil end
        v = r
        if sep == ":" and type(v) ~= "function" then return nil end
    end
    return v
end

-- Finds a name for v among the globals and their fields (as lauxlib's pushglobalfuncname does).
local function name_of(v)
    for k, g in pairs(_G) do
        if g == v and type(k) == "string" then return k end
    end
    for k, g in pairs(_G) do
        if type(g) == "table" and type(k) == "string" and g ~= _G then
            for k2, g2 in pairs(g) do
                if g2 == v and type(k2) == "string" then return k .. "." .. k2 end
            end
        end
    end
    return nil
end

local function load_docs()
    if docs_loaded then return end
    docs_loaded = true
    if package.preload["attn.docs"] and not package.loaded["attn.docs"] then
        local ok, err = pcall(require, "attn.docs")
        if not ok then
            io.stderr:write("help: could not load the docs (", tostring(err), ")\n")
        end
    end
end

-- Registers the doc of `name`. entry: {sig = "...", doc = "...", example = "..."} (all strings,
-- each optional but sig). value (optional): the documented value itself.
function help.register(name, entry, value)
    if type(name) ~= "string" or name == "" then
        errors.raise("help.register: name must be a non-empty string")
    end
    if type(entry) ~= "table" then
        errors.raisef("help.register: the doc of %s must be a table {sig, doc, example}", name)
    end
    for _, f in ipairs({"sig", "doc", "example"}) do
        if entry[f] ~= nil and type(entry[f]) ~= "string" then
            errors.raisef("help.register: %s.%s must be a string", name, f)
        end
    end
    docs[name] = {sig = entry.sig or name, doc = entry.doc, example = entry.example}
    if value ~= nil then by_value[value] = name end
end

-- The registered doc entry of x (a name or a value), and the name it is registered under.
-- "x:view" / "x.shape" where x is a tensor (or not defined yet) -> the Tensor doc of that member.
local function tensor_member(name)
    local base, sep, member = name:match("^(.-)([%.:])([%w_]+)$")
    if not base or base == "" or base == "Tensor" then return nil end
    local ok, v = pcall(resolve, base)
    if ok and v ~= nil and not torch.is_tensor(v) then return nil end
    for _, n in ipairs({"Tensor" .. sep .. member, "Tensor:" .. member, "Tensor." .. member}) do
        if docs[n] then return docs[n], n end
    end
end

function help.lookup(x)
    load_docs()
    if type(x) == "string" then
        local name = trim(x)
        if docs[name] then return docs[name], name end
        local entry, tname = tensor_member(name)
        if entry then return entry, tname end
        x = resolve(name)
        if x == nil then
            -- a bare method or function name (?backward, ?softmax): the tensor method's doc, else torch's
            if name:match("^[%a_][%w_]*$") then
                for _, n in ipairs({"Tensor:" .. name, "torch." .. name}) do
                    if docs[n] then return docs[n], n end
                end
            end
            return nil
        end
    end
    if by_value[x] then return docs[by_value[x]], by_value[x] end
    if x ~= nil then
        for name, entry in pairs(docs) do
            if resolve(name) == x then return entry, name end
        end
    end
    return nil
end

-- Formats one entry: the signature, a paragraph, an example.
function help.format(entry)
    local out = {entry.sig}
    if entry.doc and entry.doc ~= "" then out[#out + 1] = wrap(tr(trim(entry.doc)), "  ", 78) end
    if entry.example and entry.example ~= "" then
        local label = tr("Example:")
        local ex = translate_comments(trim(entry.example)):gsub("\n", "\n" .. string.rep(" ", columns(label) + 3))
        out[#out + 1] = "  " .. label .. " " .. ex
    end
    return table.concat(out, "\n")
end

-- Names documented under a table's name ("torch" -> "torch.softmax", ...), sorted.
local function members(prefix)
    local list = {}
    for name in pairs(docs) do
        local rest = name:sub(#prefix + 2)
        if name:sub(1, #prefix) == prefix and name:sub(#prefix + 1, #prefix + 1):match("[%.:]")
           and not rest:find("[%.:]") then
            list[#list + 1] = name
        end
    end
    table.sort(list)
    return list
end

-- A signature on lines of at most `width` columns, broken before an option ("[, ...") or after a
-- comma.
local function wrap_sig(sig, indent, width)
    local lines, rest, pad = {}, sig, indent .. "    "
    while columns(indent .. rest) > width do
        local cut, skip
        for i = width - #indent, 12, -1 do
            if rest:sub(i, i + 1) == " [" then cut, skip = i, 1 break end
        end
        for i = width - #indent, 12, -1 do
            if cut then break end
            if rest:sub(i, i + 1) == ", " and rest:sub(i - 1, i - 1) ~= "[" then cut, skip = i + 1, 1 break end
        end
        if not cut then break end
        lines[#lines + 1] = indent .. rest:sub(1, cut - 1)
        rest, indent = rest:sub(cut + skip), pad
    end
    lines[#lines + 1] = indent .. rest
    return table.concat(lines, "\n")
end

-- Tables inside the table `label` that have documented members of their own (nn.functional).
local function subtables(label, listed)
    local out, seen = {}, {}
    for _, n in ipairs(listed) do seen[n] = true end
    for name in pairs(docs) do
        local first = name:sub(1, #label + 1) == label .. "." and name:sub(#label + 2):match("^([%w_]+)%.")
        local full = first and label .. "." .. first
        if full and not seen[full] and not docs[full] and type(resolve(full)) == "table" then
            seen[full] = true
            out[#out + 1] = full
        end
    end
    table.sort(out)
    return out
end

-- What a table holds: each documented member with its signature, in the groups help.groups gave
-- (the rest after them), or, for a big table (torch has about 90), just the names.
local function listing(label, list)
    if #list > 40 and not groups[label] then -- a table listed in groups is listed whatever its size
        return label .. tr(" — documented: ") .. wrap(table.concat(list, ", "), "  ", 78):sub(3)
            .. "\n  " .. tr("?name for one of them")
    end
    local lines, done, first = {}, {}, nil
    local function add(title, names)
        local any = false
        for _, n in ipairs(names) do
            if docs[n] and not done[n] then
                if not any and title then lines[#lines + 1] = tr(title) end
                any, done[n], first = true, true, first or n
                lines[#lines + 1] = wrap_sig(docs[n].sig, "  ", 78)
            end
        end
    end
    for _, g in ipairs(groups[label] or {}) do add(g[1], g[2]) end
    add(#lines > 0 and tr("Also:") or trf("%s holds:", label), list)
    for _, sub in ipairs(subtables(label, list)) do
        local short = {}
        for i, n in ipairs(members(sub)) do short[i] = n:sub(#sub + 2) end
        lines[#lines + 1] = wrap(sub .. ".{" .. table.concat(short, ", ") .. "}", "  ", 78)
    end
    lines[#lines + 1] = trf("?%s (or any of these) for its doc and an example", first)
    return table.concat(lines, "\n")
end

-- Lists the members of the table `name` in groups when help shows it: {{"title:", {names}}, ...}.
function help.groups(name, list)
    if type(name) ~= "string" or type(list) ~= "table" then
        errors.raise("help.groups: expected a table's name and a list of {title, {names...}}")
    end
    for i, g in ipairs(list) do
        if type(g) ~= "table" or type(g[1]) ~= "string" or type(g[2]) ~= "table" then
            errors.raisef("help.groups: group %d must be {title, {names...}}", i)
        end
    end
    groups[name] = list
end

-- Whether help lists what v holds: a plain table such as nn or attention, not a class, whose doc
-- already names its methods.
local function namespace(v)
    local mt = getmetatable(v)
    return type(v) == "table" and not (type(mt) == "table" and mt.__call)
end

-- The doc of the class of an instance, and what the instance is: a module (mha -> the doc of
-- nn.MultiHeadAttention; a class of the user's -> nn.Module's) or a tracer (attention.trace's).
class_doc = function(v)
    local mt = getmetatable(v)
    if type(v) ~= "table" or type(mt) ~= "table" then return nil end
    local cname = rawget(mt, "__name")
    if type(cname) ~= "string" then return nil end
    if cname == "attention.trace" and docs[cname] then return docs[cname], tr("a tracer made by attention.trace") end
    if type(v.parameters) ~= "function" then return nil end
    if docs["nn." .. cname] then return docs["nn." .. cname], trf("an instance of nn.%s", cname) end
    if docs["nn.Module"] then return docs["nn.Module"], trf("an instance of %s, an nn.Module", cname) end
end

-- Edit distance of a and b (insertions, deletions, substitutions), for "did you mean".
local function distance(a, b)
    local prev = {}
    for j = 0, #b do prev[j] = j end
    for i = 1, #a do
        local cur = {[0] = i}
        for j = 1, #b do
            local cost = a:sub(i, i) == b:sub(j, j) and 0 or 1
            cur[j] = math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
        end
        prev = cur
    end
    return prev[#b]
end

-- The documented name nearest to a misspelt one (torch.sofmax -> torch.softmax), or nil.
nearest = function(name)
    if not name or #name < 4 then return nil end
    local best, bestd = nil, math.min(2, #name // 4)
    for n in pairs(docs) do
        if math.abs(#n - #name) <= bestd then
            local d = distance(n:lower(), name:lower())
            if d <= bestd and (d < bestd or not best or n < best) then best, bestd = n, d end
        end
    end
    return best
end

-- What help(x) prints, without the final newline. A table's doc is followed by what it holds.
function help.text(x)
    if x == nil then return (tr(TOUR):gsub("\n$", "")) end
    if type(x) == "string" and trim(x) == "glossary" then return glossary.text() end
    if type(x) == "string" then -- ?tour, ?exact, ?safety, ?performance: the manual's pages (man attn-tour)
        local page = manual.text(trim(x))
        if page then return page end
    end
    local entry, name = help.lookup(x)
    local label = name or (type(x) == "string" and trim(x) or name_of(x))
    local v = type(x) == "string" and label and resolve(label) or x
    local list = (label and namespace(v)) and members(label) or {}
    if entry then
        if #list == 0 or (#list > 40 and not groups[label]) then return help.format(entry) end
        return help.format(entry) .. "\n" .. listing(label, list)
    end
    if #list > 0 then return listing(label, list) end
    if torch.is_tensor(v) then
        local shape = tostring(v.shape):match("%[.*%]")
        return label and trf("%s is a tensor of shape %s; ?Tensor lists what tensors can do, ?Tensor:view one method",
                             label, shape) or tr("a tensor value; ?Tensor lists what tensors can do, ?Tensor:view one method")
    end
    local e, what = class_doc(v)
    if e then return trf("(%s is %s)", label or "it", what) .. "\n" .. help.format(e) end
    local base, member = (label or ""):match("^(.-)[%.:]([%w_]+)$")
    e, what = class_doc(base and base ~= "" and resolve(base))
    if e then
        return trf("(%s is %s; %s is in its doc)", base, what, member) .. "\n" .. help.format(e)
    end
    local near = type(x) == "string" and resolve(label) == nil and nearest(label)
    if near then return trf("no help for %s; did you mean %s?", label, near) end
    return trf("no help for %s; try help() for a tour", label or tostring(x))
end

-- help() is the tour; help(nil) is usually a misspelt name (help(torch.sofmax)), so it says so.
function help.show(...)
    if select("#", ...) > 0 and (...) == nil then
        help.write(tr("no help for nil (is the name spelt right? ?torch.softmax asks by name)") .. "\n")
    else
        help.write(help.text((...)) .. "\n")
    end
end

return setmetatable(help, {__call = function(_, ...) return help.show(...) end})
