-- trace.lua — attention.trace: a stepper that computes and shows attention one stage at a time
-- (module attn.attention.trace; the stages themselves are attention/stages.lua's, or a class's own).
--
--   tr = attention.trace{x = inputs, tokens = {...}}           §3.3: ω = X·Xᵀ, α = softmax(ω), Z = α·X
--   tr = attention.trace{q = q, k = k, v = v [, mask =, scale =, dropout =, heads =, fill =]}
--   tr = attention.trace{module = m, x = batch [, tokens =]}   the book's attention classes, and the
--        Transformer blocks (attention/block_stages.lua: the layer norms, shortcuts, feed-forward too)
--   (options: write = f receives each piece of output, a string without the final newline; the
--    default writes it and a newline with io.write; color = true/false overrides attn.term's)
--   tr:step()   computes the next stage and prints it: "[i/N] name  formula  shape [..]", the matrix
--   tr:step(s)  goes to stage s (number or field name, e.g. "weights") and prints it
--   tr:run()    the remaining stages;  tr:back()  shows the previous stage again (nothing recomputed)
--   tr:save(path)   every stage as a web page (html/trace_page.lua); tr stays where it is
--   tr.scores, tr.weights, tr.context, ...   each stage's tensor, once it has been computed
--   with loss = function(out) ... end (out: the last stage's tensor): tr:backward(), tr:run_backward()
--   step back through the same stages, showing each one's gradient (attention/backward.lua); tr.grads
--
-- Every number shown is computed here by the attention stages (or by the module's own layers);
-- weight matrices are drawn with attn.heatmap. A stage with leading dims (batch, heads) is shown one
-- matrix per batch item and head.
local heatmap = require("attn.draw.heatmap")
local width = require("attn.text.width").of
local errors = require("attn.errors") -- errors point at the user's line, not at this file
local check = require("attn.check")
local stages = require("attn.attention.stages")
local torch = require("attn.bind").torch
local trace_page = require("attn.html.trace_page")
local backward = require("attn.attention.backward") -- tr:backward, tr:run_backward (loss =)
local tr_, trf = require("attn.i18n").tr, require("attn.i18n").trf

-- What a trace shows is translated where it is shown (attn.i18n): the stages' names and notes come
-- from stages.lua as data, so they are marked here for the catalogs (N returns its argument).
local function N(msgid) return msgid end
local SHOWN = {N("scores"), N("scaled"), N("masked"), N("weights"), N("dropout"), N("context"), N("split heads"),
               N("merge heads"), N("concat"), N("output"), N("queries"), N("keys"), N("values"), N("batch"),
               N("head"), N("view + transpose, no copy; shown: the queries; keys and values are tr.split_k, tr.split_v"),
               N("RoPE"), N("KV cache"), N("share KV"), N("ALiBi"),
               N("shown: the rotated queries; the rotated keys are tr.rotated_k"),
               N("shown: the cached keys, one row per token so far; the values are tr.cached_v"), N("input"),
               N("down-projection"), N("latent cache"), N("up-projections"),
               N("one latent per token, smaller than its keys and values together"),
               N("shown: the cached latents, one row per token so far; the cache holds these, not the keys and values"),
               N("shown: the keys, one row per token so far; the values are tr.up_v"),
               N("norm"), N("shortcut"), N("feed-forward")} -- a Transformer block's (attention/pipeline_block.lua)
local KINDS = {[N("attention")] = true, [N("self-attention without weights")] = true}  -- the rest are class names
-- SHOWN: the names shown, for xgettext only. A note with numbers in it is {format, ...}, the format marked
-- where it is written (gpt/inspect.lua, llm/inspect.lua), so that it is translated before it is filled in.
local function shown(s)
    if type(s) == "table" then return trf(s[1], table.unpack(s, 2)) end
    return tr_(s)
end

local Trace = {}
Trace.__index = Trace
Trace.__name = "attention.trace"

local FIELDS = {"x", "q", "k", "v", "module", "tokens", "key_tokens", "mask", "scale", "fill", "dropout",
                "heads", "color", "write", "layer", "head", "text", "ids", "tokenizer", "use_cache", "loss"}

-- fail(fmt, ...): the error of attention.trace, its format translated (scripts/po.sh extracts fail's first argument)
local function fail(fmt, ...)
    errors.raisef("%s: %s", "attention.trace", trf(fmt, ...))
end

-- The options each kind of trace uses, besides tokens, key_tokens, color and write; any other is refused
-- rather than ignored (a trace of x alone would otherwise show no mask and no heads without saying so).
local KIND_OPTIONS = {
    x = {x = true},
    qkv = {q = true, k = true, v = true, mask = true, scale = true, fill = true, dropout = true, heads = true},
    module = {module = true, x = true},
}
-- marked with N for the catalogs, translated where they are raised
local function N(msgid) return msgid end
local KIND_HINT = {
    x = N("a trace of x alone is §3.3's attention without weights; for masks, scaling, dropout or heads " ..
        "trace q = x, k = x, v = x"),
    qkv = N("a trace of q, k, v takes mask, scale, fill, dropout and heads"),
    module = N("a module's trace computes what the module computes, with its own mask, scale and dropout " ..
             "(only Python Deep Learning's MultiHeadedAttention and the EncoderBlock around it take mask =, as " ..
             "their forwards do)"),
}

-- takes: the options a module's stages take beside module and x ({mask = true}), or nil.
local function check_kind_options(args, kind, takes)
    local allowed = KIND_OPTIONS[kind]
    for _, f in ipairs({"x", "q", "k", "v", "module", "mask", "scale", "fill", "dropout", "heads", "layer", "head",
                        "text", "ids", "tokenizer", "use_cache"}) do
        if args[f] ~= nil and not allowed[f] and not (takes and takes[f]) then
            fail("option %s does not apply here: %s", f, tr_(KIND_HINT[kind]))
        end
    end
    if args.dropout ~= nil then check.probability("attention.trace", "dropout", args.dropout) end
end

-- ---- the stepper ---------------------------------------------------------------------------------

local function check_tokens(tokens, n, what)
    if tokens == nil then return nil end
    if type(tokens) ~= "table" then fail("%s must be a list of strings, got %s", what, type(tokens)) end
    if #tokens ~= n then fail("%d %s for %d rows", #tokens, what, n) end
    return tokens
end

-- The stages of a module's trace: the class says what they are (m:trace_stages(tr), as the books'
-- classes of nn/attention.lua and the Transformer blocks do, or m:trace_spec(tr), the spec of its
-- attention and its parameters, as nn/attention_variants.lua's do); a class without either, written
-- the book's way, is read by its field names. Returns the stages and the options they take beside module and x.
local function module_stages(tr)
    local m, x = tr.module, tr.x
    -- a whole model (GPTModel) reads its own input (text = or ids =) and makes x itself
    if type(m.attention_maps) == "function" and type(m.trace_stages) == "function" then return m:trace_stages(tr) end
    if not torch.is_tensor(x) then fail("x must be the input tensor for the module, got %s", type(x)) end
    if type(m.trace_stages) == "function" then return m:trace_stages(tr) end
    if type(m.trace_spec) == "function" then return stages.from_spec(m:trace_spec(tr)) end
    return stages.by_fields(tr, m)
end

-- The stages of the trace that args ask for, and the name of its kind.
local function stages_of(tr, args)
    if args.module ~= nil then
        if not check.is_module(args.module) then fail("module must be an nn.Module, got %s", check.describe(args.module)) end
        local list, takes = module_stages(tr)
        check_kind_options(args, "module", takes)
        return list, tostring(args.module.__name)
    elseif args.q ~= nil or args.k ~= nil or args.v ~= nil then
        check_kind_options(args, "qkv")
        return stages.qkv(tr), "attention"
    elseif torch.is_tensor(args.x) then
        if args.x:dim() ~= 2 and args.x:dim() ~= 3 then
            fail("x must be [n, d] or [b, n, d], got %s", check.shape(args.x))
        end
        check_kind_options(args, "x")
        return stages.plain(tr), "self-attention without weights"
    end
    fail("give x = inputs, or q =, k =, v =, or module = m with x =")
end

-- The checks every trace's arguments pass, whatever its kind.
local function check_args(args)
    if type(args) ~= "table" or torch.is_tensor(args) then
        fail("expected a table such as {x = inputs, tokens = {...}}, got %s", type(args))
    end
    local known = {}
    for _, f in ipairs(FIELDS) do known[f] = true end
    for k in pairs(args) do
        if not known[k] then fail("unknown option %s (known: %s)", tostring(k), table.concat(FIELDS, ", ")) end
    end
    if args.write ~= nil and type(args.write) ~= "function" then
        fail("write must be a function that receives each piece of output, got %s", type(args.write))
    end
    if args.color ~= nil and type(args.color) ~= "boolean" then
        fail("color must be true or false, got %s", tostring(args.color))
    end
end

--- attention.trace{...} -> a stepper (see the top of this file).
local function trace(args)
    check_args(args)
    local tr = setmetatable({pos = 0, computed = 0}, Trace)
    for _, f in ipairs(FIELDS) do tr[f] = args[f] end
    tr.write = nil -- kept as _write, so that Tab after tr: offers only its methods
    tr._write = args.write or function(s) io.write(s, "\n") end -- to io.output() at call time
    local list, kind = stages_of(tr, args)
    local first = args.q or tr.x
    local n = first:dim() >= 2 and first.shape[-2] or 1
    tr.tokens = check_tokens(args.tokens or tr.tokens, n, "tokens")
    -- keys: those of k, or with a module's KV cache the tokens so far (as many as key_tokens says)
    local m = args.k and args.k.shape[-2] or (args.use_cache and args.key_tokens and #args.key_tokens) or n
    tr.key_tokens = check_tokens(args.key_tokens or (m == n and args.tokens or nil), m, "key_tokens")
    rawset(tr, "_stages", list)
    rawset(tr, "_kind", kind)
    backward.prepare_inputs(tr, args.module ~= nil and "module" or "inputs") -- loss =: the inputs in the graph
    return tr
end

-- The 2-D matrices of t with their titles: {{title, matrix}, ...}.
local function matrices(t, lead)
    if t:dim() <= 2 then return {{nil, t:dim() == 2 and t or t:view(1, -1)}} end
    local out = {}
    local function walk(x, prefix, d)
        if x:dim() == 2 then
            out[#out + 1] = {table.concat(prefix, tr_(", ")), x}
            return
        end
        local name = lead and shown(lead[d]) or trf("dim %d", d)
        for i = 1, x.shape[1] do
            prefix[d] = name .. " " .. i
            walk(x[i], prefix, d + 1)
        end
        prefix[d] = nil
    end
    walk(t, {}, 1)
    return out
end

-- "[i/N] name  formula   shape [..]": "[9/11] " as wide as "[10/11]", the names padded to the longest of this trace's stages, so the
-- formulas line up with at least two spaces before them ("merge heads", "split heads" are 11 wide).
-- mark: "" for a forward step, "←" for a backward one (attention/backward.lua), before i.
local function header(tr, mark, i, st, formula, t)
    local list = tr._stages
    local namew = 0
    for _, s in ipairs(list) do namew = math.max(namew, width(shown(s.name))) end
    local count = string.format("[%s%d/%d]", mark, i, #list)
    local name = shown(st.name)
    local left = string.format("%s%s %s%s  %s", count, string.rep(" ", 2 * #tostring(#list) + 3 + width(mark) - width(count)),
                               name, string.rep(" ", namew - width(name)), formula)
    local w = width(left)
    return left .. string.rep(" ", math.max(2, 58 - w)) .. tr_("shape") .. " " .. check.shape(t)
end

-- The lines that show tensor t of stage st: each matrix, labelled with the tokens where the stage says
-- (rows of queries, columns of keys), a heatmap where heat is true. Shared with attention/backward.lua.
function Trace:_matrices(st, t, heat)
    local out = {}
    for _, mt in ipairs(matrices(t, st.lead)) do
        local title, mat = mt[1], mt[2]
        if title then out[#out + 1] = "  " .. trf("%s:", title) end
        local rows = st.rows == "q" and mat.shape[1] == (self.tokens and #self.tokens) and self.tokens or nil
        if st.rows == "k" and mat.shape[1] == (self.key_tokens and #self.key_tokens) then rows = self.key_tokens end
        local cols = st.cols == "k" and mat.shape[2] == (self.key_tokens and #self.key_tokens) and self.key_tokens or nil
        local text = heatmap.render(mat, {rows = rows, cols = cols, shade = heat or false, color = self.color})
        out[#out + 1] = "  " .. text:gsub("\n", "\n  ")
    end
    return out
end

function Trace:_show(i)
    local st = self._stages[i]
    local t = rawget(self, st.key)
    local out = {header(self, "", i, st, st.formula, t)}
    if st.view then t = st.view(t) end -- a long vector shown in part (the stage's note says so)
    if st.note then out[2] = "  " .. trf("(%s)", shown(st.note)) end
    for _, line in ipairs(self:_matrices(st, t, st.heat)) do out[#out + 1] = line end
    self._write(table.concat(out, "\n"))
end

-- The number of the stage `which` names: its number, or its field name ("weights", "split", ...).
local function stage_index(list, which)
    if math.type(which) == "float" and which == math.floor(which) then which = math.tointeger(which) end
    if math.type(which) == "integer" and which >= 1 and which <= #list then return which end
    local names = {}
    for i, st in ipairs(list) do
        if st.key == which then return i end
        names[i] = st.key
    end
    fail("no stage %s: give 1..%d or one of %s", type(which) == "string" and string.format("%q", which) or tostring(which),
         #list, table.concat(names, ", "))
end

-- Computes the stages up to i that are not computed yet. An error in one names it, at the user's
-- line: "attention.trace: stage 4 (masked): attention.mask: the mask [2, 2] does not fit ...".
local function compute_to(tr, i)
    local list = tr._stages
    while tr.computed < i do
        local k = tr.computed + 1
        local st = list[k]
        rawset(tr, st.key, errors.call(trf("attention.trace: stage %d (%s)", k, shown(st.name)), st.compute, tr))
        tr.computed = k
    end
end

--- tr:step() computes the next stage (if it has not been computed yet) and prints it.
--- tr:step(which) goes to stage `which` (a number or a field name such as "weights"), computing the
--- stages before it that are not computed yet, without printing them, and prints it: showing a stage
--- again this way is the same however often it is done (a lesson step that is repeated).
-- tr.step() (a dot for the colon) calls the method without the tracer.
local function check_self(self, method)
    if getmetatable(self) ~= Trace then
        errors.raisef("attention.trace: call it as tr:%s() with a colon (tr.%s() passes no tracer)", method, method)
    end
end

function Trace:step(which)
    check_self(self, "step")
    local list = self._stages
    if which ~= nil then
        local i = stage_index(list, which)
        compute_to(self, i)
        self.pos = i
        self:_show(i)
        return
    end
    if self.pos >= #list then
        self._write(trf("(all %d stages shown: tr.%s holds the result; tr:back() goes back)", #list,
                        list[#list].key))
        return
    end
    compute_to(self, self.pos + 1)
    self.pos = self.pos + 1
    self:_show(self.pos)
end

--- tr:run() steps through every stage not shown yet.
function Trace:run()
    check_self(self, "run")
    while self.pos < #self._stages do self:step() end
end

--- tr:back() shows the previous stage again.
function Trace:back()
    check_self(self, "back")
    if self.pos <= 1 then
        self._write(self.pos == 0 and tr_("(nothing shown yet: tr:step() shows the first stage)")
                                  or tr_("(this is the first stage)"))
        self.pos = math.min(self.pos, 1)
        if self.pos == 1 then self:_show(1) end
        return
    end
    self.pos = self.pos - 1
    self:_show(self.pos)
end

--- tr:save(path) writes every stage, as tr:step(i) prints it, as a web page; tr stays where it is.
function Trace:save(path)
    check_self(self, "save")
    if type(path) ~= "string" or path == "" then
        fail("tr:save needs the name of the page to write, such as \"trace.html\", got %s", check.describe(path))
    end
    local size, err = trace_page.save(self, path)
    if not size then errors.raisef("%s: %s", "attention.trace", err) end -- the system's reason, as it is
end

backward.install(Trace, {compute_to = compute_to, header = header, check_self = check_self})

function Trace:__tostring()
    local names = {}
    for i, st in ipairs(self._stages) do
        names[i] = i == self.pos and ("[" .. shown(st.name) .. "]") or shown(st.name)
    end
    local next = self.pos < #self._stages and tr_("next: tr:step()") or tr_("done")
    local kind = KINDS[self._kind] and tr_(self._kind) or self._kind
    local out = {trf("attention.trace of %s: %d of %d stages shown, %s", kind, self.pos, #self._stages, next)}
    local cur = " " -- the stages on lines of at most 78 columns, the one shown last in brackets
    for i, name in ipairs(names) do
        local piece = (i > 1 and " → " or " ") .. name
        if width(cur .. piece) > 78 then
            out[#out + 1] = cur
            cur = " "
        end
        cur = cur .. piece
    end
    out[#out + 1] = cur
    return table.concat(out, "\n")
end

return trace
