-- pipeline.lua — attention, described once (module attn.attention.pipeline).
--
-- pipeline.STAGES is the ordered list of the stages attention is made of. Everything that computes or
-- shows attention reads it: attention.forward (attention/forward.lua), the books' classes (through
-- nn/attend.lua), attention.trace (attention/stages.lua builds a trace's stages from it), GPT's trace and
-- overview (gpt/inspect.lua), and the choice of the fused pass (pipeline.fusable). A variant of attention
-- (a rotation of q and k, a key/value cache, grouped heads, a band mask, a bias on the scores) is a record
-- in this list, switched on by an option of the spec, not a new assembly.
--
-- A record:
--   key      the field the stage's tensor is kept in (tr.scores); keys = all of them, for a stage that
--            writes more than one tensor (split heads: split, split_k, split_v)
--   name     the name shown;  formula(spec, from) the line shown (from: role -> the key it reads)
--   reads    the roles it reads;  writes  the roles it writes. Roles: x (the input), q, k, v, s (the
--            scores as they go through scaling and masking), w (the weights), z (the context)
--   shape    its shape rule, in words (for the reader of this file and ?attention.pipeline)
--   rows, cols, heat   its display: rows labelled with the query tokens ("q"), columns with the key
--            tokens ("k"), drawn as a heatmap
--   lead     which leading dims it has: "x" (those of the input: batch) or "head" (batch, head)
--   on(spec)           whether the stage is part of this spec's attention
--   fused(spec, q, k)  whether attention.fused computes this stage too (absent: it does not)
--   compute(get, spec, t)  its tensor(s); get(role) is the tensor the role names at this point
--   sym      the symbol of its tensor(s) in formulas, one per key ("ω"; split heads: Q_h, K_h, V_h)
--   grad     role -> how the gradient reaching the tensor it read for that role is made from the
--            gradient of its own (the chain rule through this stage), a formula with {g} (∂L/∂ of its
--            first tensor), {gq} {gk} {gv} (∂L/∂ of the tensor it wrote for that role), {o} (its first
--            tensor's symbol) and {q} {k} {v} {w} {s} {x} (the symbols of what it read), or a function
--            (spec) -> such a formula. The backward tracer (attention/backward.lua) shows them.
--
-- The rule for a new stage: C (src/core, src/bind/attention.c) where speed needs it, that is where a
-- stage touches every score once per token and no existing op does it in one pass; Lua here where
-- existing tensor ops suffice (they then get whatever the ops get, gradients included).
--
-- A spec (one set of option names for every caller):
--   kv_heads   split k and v into this many heads instead (grouped-query attention)
--   heads      split q, k, v into this many heads (the stage "split heads"); merge = "short" | "view"
--              (how the merge is written) or nil (no merge stage); src = role -> field of the inputs
--   project    function(i, t, x) -> projection i (1 Q, 2 K, 3 V) of x (the tensor role x names: the
--              input, or in a block the normed stream); project_names, project_how ("matmul" |
--              "call"); input = the formula of an input stage shown first
--   scores     scores computed elsewhere (additive attention): not scaled, never fused
--   scale      nil/true: 1/√d_k (d_k = spec.d_k or k's last dim); false: none; a number: times it
--   hidden     the mask, true = hidden: a tensor or function(t, q, k) -> tensor; fill (-inf if nil)
--   mask_first mask before scaling (the book's ch. 3 classes), else after (forward, the annotated one)
--   dropout    p of the dropout on the weights (nil: no stage); dropout_fn(w, p) draws it
--   out        function(t, z) the output layer; out_name how the formula names it
--   plain      §3.3's attention without weights: Q = K = V = X in the formulas
--   latent     {dim =, names = {down, up_k, up_v}, down = f(x), up = f(i, c) (1 keys, 2 values), cache = the
--              module whose cache_c_kv holds the latents so far}: multi-head latent attention (MLA), keys and
--              values up-projected from a cached latent (stages "down-projection", "latent cache",
--              "up-projections", phase "latent": before the heads; the key/value projections are off)
--   rope       {theta_base =, interleaved =}: rotate q and k by position (stage "RoPE")
--   cache      the module whose cache_k, cache_v, ptr_current_pos hold the keys and values so far
--   window     the sliding window (the cache keeps that many tokens; the mask is a band)
--   kv_repeat  query heads per key/value head (GQA, MQA): stage "share KV"
--   alibi      true: ALiBi's bias on the scores (stage "ALiBi")
--   lead       {x = names, head = names}: the names of the leading dims in a trace
--   upto       the key of the last stage wanted (nil: all)
--   block      a Transformer block around the attention: its layer norms, shortcuts and feed-forward
--              network (attention/pipeline_block.lua); src = {x = "x", h = "x"}, input = its formula
--   display    key -> {key =, name =, formula =, note =, view =, lead =}: what a caller shows otherwise
--              (lead = false: no leading dims named)
local A = require("attn.bind").attention
local torch = require("attn.bind").torch
local V = require("attn.attention.variants")
local pipeline = {}

local function sqrt_formula(spec)
    if spec.scale == nil or spec.scale == true then
        return "ω / √d_k   (d_k = " .. tostring(spec.d_k) .. ")"
    end
    return "ω · " .. tostring(spec.scale)
end

-- True when the hidden positions of the [n, m] score matrix are exactly the causal ones, in every batch
-- element: then the fused causal pass computes the same weights (each row keeps its diagonal, so a
-- finite fill such as -1e9 gives the same zeros as -inf).
local function is_causal(hidden, n, m)
    if n ~= m or hidden.shape[-1] ~= m or (hidden.ndim >= 2 and hidden.shape[-2] ~= n) then
        return false
    end
    local causal = torch.triu(torch.ones(n, n), 1):bool()
    return torch.equal(hidden, causal:expand(hidden.shape))
end

local function hidden_of(spec, t, q, k)
    local h = spec.hidden
    if type(h) == "function" then return h(t, q, k) end
    return h
end

local PROJ = {{"queries", "Q", "q"}, {"keys", "K", "k"}, {"values", "V", "v"}}
local PROJ_NAMES = {"W_query", "W_key", "W_value"}

pipeline.STAGES = {
    {key = "x", name = "input", reads = {}, writes = {"x"}, lead = "x", rows = "q",
     shape = "[.., n, d]: the input, as the caller computed it",
     on = function(spec) return spec.input ~= nil end,
     formula = function(spec) return spec.input end,
     sym = {"X"}, compute = function(_, _, t) return t.x end},
}
-- a Transformer block's layer norm before its attention (spec.block: attention/pipeline_block.lua)
local block_records = require("attn.attention.pipeline_block")
for _, r in ipairs(block_records.BEFORE) do pipeline.STAGES[#pipeline.STAGES + 1] = r end
for i, p in ipairs(PROJ) do
    pipeline.STAGES[#pipeline.STAGES + 1] = {
        key = p[1], name = p[1], reads = {"x"}, writes = {p[3]}, lead = "x", rows = "q",
        shape = "[.., n, d_in] -> [.., n, d_out]", sym = {p[2]},
        -- X·W (a matrix): ∂L/∂X = ∂L/∂Q·Wᵀ; W(X) (a Linear, X·W.weightᵀ): ∂L/∂X = ∂L/∂Q·W.weight
        -- (project_weights: what to call that matrix, e.g. one head's rows); "chain": more than a product
        grad = {x = function(spec)
            local w = spec.project_names and spec.project_names[i] or PROJ_NAMES[i]
            if spec.project_how == "matmul" then return "{g}·" .. w .. "ᵀ" end
            if spec.project_how == "chain" then return "{g}·∂{o}/∂X" end
            return "{g}·" .. (spec.project_weights and spec.project_weights[i] or (w .. ".weight"))
        end},
        on = function(spec) return spec.project ~= nil and (i == 1 or spec.latent == nil) end,
        formula = function(spec)
            local w = spec.project_names[i]
            return spec.project_how == "matmul" and (p[2] .. " = X·" .. w) or (p[2] .. " = " .. w .. "(X)")
        end,
        compute = function(get, spec, t) return spec.project(i, t, get("x")) end}
end

-- Multi-head latent attention (the bonus chapter ch04/05_mla, DeepSeek's MLA): each token is projected down
-- to one small latent, and that is what the cache keeps; the keys and values of every head are projected
-- up from the latents at each step. The class runs these three (phase "latent") before it splits the heads.
local LATENT = {
    {key = "latent", name = "down-projection", reads = {"x"}, writes = {"c"}, lead = "x", rows = "q", phase = "latent",
     shape = "[.., n, d_in] -> [.., n, latent_dim]",
     note = "one latent per token, smaller than its keys and values together",
     on = function(spec) return spec.latent ~= nil end,
     formula = function(spec) return "C = " .. spec.latent.names[1] .. "(X)   (latent_dim = " .. spec.latent.dim .. ")" end,
     compute = function(get, spec) return spec.latent.down(get("x")) end},
    {key = "cached_latent", name = "latent cache", reads = {"c"}, writes = {"c"}, lead = "x", rows = "k",
     phase = "latent", shape = "[.., m_old, latent_dim] + [.., n, latent_dim] -> [.., m_old + n, latent_dim]",
     note = "shown: the cached latents, one row per token so far; the cache holds these, not the keys and values",
     on = function(spec) return spec.latent ~= nil and spec.latent.cache ~= nil end,
     formula = function() return "C = cat(cache_c_kv, C)" end,
     compute = function(get, spec, t)
         local all, q_start = V.append_latent(spec.latent.cache, get("c"))
         t.q_start = q_start
         return all
     end},
    {key = "up_k", keys = {"up_k", "up_v"}, name = "up-projections", reads = {"c"}, writes = {"k", "v"}, lead = "x",
     rows = "k", phase = "latent", shape = "[.., m, latent_dim] -> [.., m, d_out] each",
     note = "shown: the keys, one row per token so far; the values are tr.up_v",
     on = function(spec) return spec.latent ~= nil end,
     formula = function(spec)
         local n = spec.latent.names
         return "K = " .. n[2] .. "(C), V = " .. n[3] .. "(C)"
     end,
     compute = function(get, spec)
         local c = get("c")
         return spec.latent.up(1, c), spec.latent.up(2, c)
     end},
}
for _, r in ipairs(LATENT) do pipeline.STAGES[#pipeline.STAGES + 1] = r end

local REST = {
    {key = "split", keys = {"split", "split_k", "split_v"}, name = "split heads", reads = {"q", "k", "v"},
     writes = {"q", "k", "v"}, lead = "head", rows = "q", fused = true,
     shape = "[.., n, d] -> [.., h, n, d/h] each (a view)", sym = {"Q_h", "K_h", "V_h"},
     grad = {q = "{gq} → [.., n, d]", k = "{gk} → [.., n, d]", v = "{gv} → [.., n, d]"}, -- heads side by side again
     note = "view + transpose, no copy; shown: the queries; keys and values are tr.split_k, tr.split_v",
     on = function(spec) return (spec.heads or 1) > 1 end,
     formula = function(spec)
         if spec.kv_heads then
             return "Q → [.., " .. spec.heads .. ", n, d_h], K, V → [.., " .. spec.kv_heads .. ", n, d_h]"
         end
         return "Q, K, V → [.., " .. spec.heads .. ", n, d/" .. spec.heads .. "]"
     end,
     compute = function(get, spec)
         local h, g = spec.heads, spec.kv_heads or spec.heads -- g key/value heads (GQA, MQA)
         return A.split_heads(get("q"), h), A.split_heads(get("k"), g), A.split_heads(get("v"), g)
     end},
    -- the variants of today's models, between the heads and the scores (phase "prepare": the fused pass
    -- runs after them, on what they give)
    {key = "rotated_q", keys = {"rotated_q", "rotated_k"}, name = "RoPE", reads = {"q", "k"}, writes = {"q", "k"},
     lead = "head", rows = "q", fused = true, phase = "prepare",
     shape = "[.., n, d] -> [.., n, d] each: pairs of dims rotated by position · θ_base^(-2i/d)",
     sym = {"Q_r", "K_r"}, grad = {q = "RoPE⁻¹({gq})", k = "RoPE⁻¹({gk})"}, -- rotated back
     note = "shown: the rotated queries; the rotated keys are tr.rotated_k",
     on = function(spec) return spec.rope ~= nil end,
     formula = function(spec)
         return (spec.rope.interleaved and "Q, K rotated (interleaved pairs), θ_base = " or
                 "Q, K rotated (split halves), θ_base = ") .. tostring(spec.rope.theta_base or 10000)
     end,
     compute = function(get, spec)
         local o = {theta_base = spec.rope.theta_base, interleaved = spec.rope.interleaved,
                    freq_config = spec.rope.freq_config, -- Llama 3's frequency scaling (llm/model.lua)
                    offset = spec.cache and spec.cache.ptr_current_pos or 0}
         return V.rope(get("q"), o), V.rope(get("k"), o)
     end},
    {key = "cached_k", keys = {"cached_k", "cached_v"}, name = "KV cache", reads = {"k", "v"}, writes = {"k", "v"},
     lead = "head", rows = "k", fused = true, phase = "prepare",
     shape = "[.., m_old, d] + [.., n, d] -> [.., m_old + n, d] (with a window: the last window + n - 1)",
     sym = {"K_c", "V_c"}, grad = {k = "{gk}[-n:]", v = "{gv}[-n:]"}, -- the rows of the new tokens
     note = "shown: the cached keys, one row per token so far; the values are tr.cached_v",
     on = function(spec) return spec.cache ~= nil end,
     formula = function(spec)
         return spec.window and ("K, V = cat(cache, new)[-(" .. spec.window .. "+n-1):]") or "K, V = cat(cache, new)"
     end,
     compute = function(get, spec, t)
         local k, v, qs, ks = V.append(spec.cache, get("k"), get("v"), spec.window)
         t.q_start, t.k_start = qs, ks
         return k, v
     end},
    {key = "repeated_k", keys = {"repeated_k", "repeated_v"}, name = "share KV", reads = {"k", "v"},
     writes = {"k", "v"}, lead = "head", rows = "k", fused = true, phase = "prepare",
     shape = "[.., g, m, d] -> [.., g·r, m, d]: each key/value head repeated r times in place",
     sym = {"K_g", "V_g"}, grad = {k = "Σ_r {gk}", v = "Σ_r {gv}"}, -- each head's r copies summed
     on = function(spec) return (spec.kv_repeat or 1) > 1 end,
     formula = function(spec) return "K, V = repeat_interleave(K, V, " .. spec.kv_repeat .. ", dim=head)" end,
     compute = function(get, spec)
         local k, v = get("k"), get("v")
         return V.repeat_interleave(k, spec.kv_repeat, k.ndim - 2), V.repeat_interleave(v, spec.kv_repeat, v.ndim - 2)
     end},
    {key = "scores", name = "scores", reads = {"q", "k"}, writes = {"s"}, lead = "head", rows = "q", cols = "k",
     shape = "[.., n, d] · [.., m, d]ᵀ -> [.., n, m]", sym = {"ω"}, grad = {q = "{g}·{k}", k = "{g}ᵀ·{q}"},
     on = function() return true end,
     fused = function(spec) return spec.scores == nil end,
     formula = function(spec) return spec.plain and "ω = X·Xᵀ" or "ω = Q·Kᵀ" end,
     compute = function(get, spec) return spec.scores or A.scores(get("q"), get("k")) end},
    {key = "scaled", name = "scaled", reads = {"s"}, writes = {"s"}, lead = "head", rows = "q", cols = "k",
     shape = "[.., n, m] -> [.., n, m]", sym = {"ω_s"},
     grad = {s = function(spec)
         return type(spec.scale) == "number" and ("{g} · " .. tostring(spec.scale)) or "{g} / √d_k"
     end},
     on = function(spec) return spec.scores == nil and spec.scale ~= false end,
     fused = function(spec) return spec.scale == nil or spec.scale == true end,
     formula = sqrt_formula,
     compute = function(get, spec)
         local s, scale = get("s"), spec.scale
         if scale == nil or scale == true then return A.scale(s, spec.d_k or get("k").shape[-1]) end
         if type(scale) == "number" then return s * scale end
         spec.fail("scale must be true (1/sqrt(d_k)), false or a number, got %s", type(scale))
     end},
    {key = "biased", name = "ALiBi", reads = {"s"}, writes = {"s"}, lead = "head", rows = "q", cols = "k",
     shape = "[.., h, n, m] + [h, n, m] -> [.., h, n, m]", sym = {"ω_b"}, grad = {s = "{g}"}, -- a constant bias
     on = function(spec) return spec.alibi ~= nil end,
     formula = function() return "ω + m_h·(j - i)   (m_h = 2^(-8h/H))" end,
     compute = function(get, _, t)
         local s = get("s")
         return s + V.alibi_bias(s.shape[-3], s.shape[-2], s.shape[-1], t.q_start)
     end},
    {key = "masked", name = "masked", reads = {"s", "q", "k"}, writes = {"s"}, lead = "head", rows = "q",
     cols = "k", shape = "[.., n, m] -> [.., n, m]; the mask broadcasts to the scores", sym = {"ω_m"},
     grad = {s = "{g} ⊙ (1 − mask)"}, -- the hidden scores get no gradient
     on = function(spec) return spec.hidden ~= nil end,
     fused = function(spec, q, k)
         local h = hidden_of(spec, nil, q, k)
         if h == nil or h:sum():item() == 0 then return true end -- a padding mask may hide nothing
         return spec.causal == true or is_causal(h, q.shape[-2], k.shape[-2])
     end,
     formula = function(spec)
         local fill = tostring(spec.fill or -math.huge)
         if spec.window then return "ω.masked_fill(band mask, " .. fill .. "), window " .. spec.window end
         return "ω.masked_fill(mask, " .. fill .. ")"
     end,
     compute = function(get, spec, t) return A.mask(get("s"), hidden_of(spec, t, get("q"), get("k")), spec.fill) end},
    {key = "weights", name = "weights", reads = {"s"}, writes = {"w"}, lead = "head", rows = "q", cols = "k",
     heat = true, fused = true, shape = "[.., n, m] -> [.., n, m], rows summing to 1", sym = {"α"},
     grad = {s = "{o} ⊙ ({g} − Σⱼ {o}·{g})"}, -- softmax's Jacobian, row by row
     on = function() return true end,
     formula = function(_, from) return "α = softmax(" .. (from.s == "scores" and "ω" or "ω'") .. ", dim=-1)" end,
     compute = function(get) return A.softmax(get("s"), -1) end},
    {key = "dropped", name = "dropout", reads = {"w"}, writes = {"w"}, lead = "head", rows = "q", cols = "k",
     heat = true, shape = "[.., n, m] -> [.., n, m]", sym = {"α_d"},
     grad = {w = "{g} ⊙ m_keep / (1 − p)"}, -- the same cells dropped, the same scaling
     on = function(spec) return spec.dropout ~= nil end,
     fused = function(spec) return spec.dropout == 0 end,
     formula = function(spec) return "α = dropout(α, p=" .. spec.dropout .. ")   (training)" end,
     compute = function(get, spec) return (spec.dropout_fn or A.dropout)(get("w"), spec.dropout) end},
    {key = "context", name = "context", reads = {"w", "v"}, writes = {"z"}, lead = "head", rows = "q", fused = true,
     shape = "[.., n, m] · [.., m, dv] -> [.., n, dv]", sym = {"Z"}, grad = {w = "{g}·{v}ᵀ", v = "{w}ᵀ·{g}"},
     on = function() return true end,
     formula = function(spec) return spec.plain and "Z = α·X" or "Z = α·V" end,
     compute = function(get) return A.weighted_sum(get("w"), get("v")) end},
    {key = "merged", name = "merge heads", reads = {"z"}, writes = {"z"}, lead = "x", rows = "q",
     shape = "[.., h, n, dv] -> [.., n, h·dv]", sym = {"Z_m"}, grad = {z = "{g} → [.., h, n, dv]"},
     on = function(spec) return spec.merge ~= nil end,
     formula = function(spec)
         return spec.merge == "view" and "Z.transpose(2, 3):contiguous():view(b, n, d_out)" or "Z → [..., n, d]"
     end,
     compute = function(get, spec) return (spec.merge_fn or A.merge_heads)(get("z")) end},
    {key = "output", name = "output", reads = {"z"}, writes = {"z"}, lead = "x", rows = "q",
     shape = "[.., n, d_out] -> [.., n, d_out]", sym = {"out"},
     grad = {z = function(spec) return "{g}·" .. tostring(spec.out_name) .. ".weight" end}, -- a Linear
     on = function(spec) return spec.out ~= nil end,
     formula = function(spec) return spec.out_name .. "(Z)" end,
     compute = function(get, spec) return spec.out(get("z")) end},
}
for _, r in ipairs(REST) do pipeline.STAGES[#pipeline.STAGES + 1] = r end
-- a Transformer block's shortcut connections, second layer norm and feed-forward network after it
for _, r in ipairs(block_records.AFTER) do pipeline.STAGES[#pipeline.STAGES + 1] = r end

local BY_KEY = {}
for _, r in ipairs(pipeline.STAGES) do BY_KEY[r.key] = r end
pipeline.by_key = BY_KEY

-- The records this spec switches on, in order (masked before scaled when spec.mask_first).
local function records_of(spec, phase)
    local list = {}
    for _, r in ipairs(pipeline.STAGES) do
        if r.on(spec) and (phase == nil or (r.phase or "attend") == phase) then list[#list + 1] = r end
    end
    if spec.mask_first then
        for i = 2, #list do
            if list[i].key == "masked" and list[i - 1].key == "scaled" then
                list[i - 1], list[i] = list[i], list[i - 1]
            end
        end
    end
    for i, r in ipairs(list) do -- spec.upto: the stages up to that one only (an overview needs the weights)
        if r.key == spec.upto then return {table.unpack(list, 1, i)} end
    end
    return list
end

-- The gradient formulas of record r (its grad field) with their symbols filled in: role -> text.
-- sym_of: key -> the symbol of that tensor; from: role -> the key r reads.
local function grad_texts(r, spec, from, sym_of)
    if not r.grad or not r.sym then return nil end
    local out = {}
    for role, g in pairs(r.grad) do
        local text = type(g) == "function" and g(spec) or g
        out[role] = text:gsub("{(%a+)}", function(name)
            if name == "g" then return "∂L/∂" .. r.sym[1] end
            if name == "o" then return r.sym[1] end
            local written = name:match("^g(%a)$")
            if written then
                for i, w in ipairs(r.writes) do
                    if w == written then return "∂L/∂" .. r.sym[i] end
                end
            end
            return sym_of[from[name]] or name
        end)
    end
    return out
end

local INPUT_SYM = {x = "X", q = "Q", k = "K", v = "V"} -- the inputs' symbols, before any stage

--- pipeline.build(spec) -> the stages of this attention, each {key, name, formula, note, rows, cols, heat,
--- lead, view, compute = function(t) -> tensor}: compute reads the fields of t its record reads (the
--- tensors of the stages before it, or the inputs named by spec.src) and returns the stage's tensor;
--- a stage with more than one tensor stores the others in t itself. attention.trace steps through these.
function pipeline.build(spec)
    local at = {}                                  -- role -> the key of the tensor it names now
    for role, key in pairs(spec.src or {q = "q", k = "k", v = "v", x = "x"}) do at[role] = key end
    local sym_of = {}                              -- key -> the symbol of its tensor
    for key, sym in pairs(INPUT_SYM) do sym_of[key] = sym end
    local lead = spec.lead or {}
    local out = {}
    for _, r in ipairs(records_of(spec)) do
        local from = {}
        for _, role in ipairs(r.reads) do from[role] = at[role] end
        for _, role in ipairs({"q", "k", "v"}) do from[role] = from[role] or at[role] end -- a mask reads q, k
        local disp = (spec.display or {})[r.key] or {}
        local key = disp.key or r.key
        local keys = r.keys or {key}
        for i, role in ipairs(r.writes) do at[role] = keys[i] or key end
        local grad = grad_texts(r, spec, from, sym_of) -- with the symbols of what it reads, before its own
        for i, k in ipairs(keys) do sym_of[k] = r.sym and r.sym[i] or k end -- a record without sym: its key
        local get = function(t) return function(role) return t[from[role]] end end
        out[#out + 1] = {
            key = key, name = disp.name or r.name, note = disp.note or r.note, view = disp.view,
            formula = disp.formula or r.formula(spec, from), rows = r.rows, cols = r.cols, heat = r.heat,
            lead = (disp.lead == nil and lead[r.lead]) or disp.lead or nil, record = r,
            -- for the backward tracer: the keys it writes, the key each role reads, its tensor's
            -- symbol, and the gradient it sends back to each role it reads (grad_texts)
            keys = keys, from = from, sym = sym_of[key], grad = grad,
            compute = function(t)
                local first, k2, k3 = r.compute(get(t), spec, t)
                if r.keys then
                    t[r.keys[2]] = k2
                    if r.keys[3] then t[r.keys[3]] = k3 end
                end
                return first
            end,
        }
    end
    return out
end

--- pipeline.run(spec, t [, phase]) computes every stage of spec on the tensors in t (q, k, v or x, as
--- spec.src names them), storing each stage's tensor in t under its key; returns t and the map from
--- each role to the key of its last tensor. phase: "prepare" (the stages before the scores that the
--- fused pass does not replace: RoPE, the cache, shared heads), "latent" (multi-head latent attention's
--- latent, its cache and the keys and values projected up from it) or "attend" (the others) only. The same records as
--- pipeline.build, without what only a trace shows (formulas, labels): a forward pays for its tensors only.
function pipeline.run(spec, t, phase)
    local at = {q = "q", k = "k", v = "v", x = "x"}  -- role -> the key of the tensor it names now
    for role, key in pairs(spec.src or {}) do at[role] = key end
    local get = function(role) return t[at[role]] end
    for _, r in ipairs(records_of(spec, phase)) do
        local a, b, c = r.compute(get, spec, t)
        t[r.key] = a
        if r.keys then
            t[r.keys[2]] = b
            if r.keys[3] then t[r.keys[3]] = c end
        end
        for i, role in ipairs(r.writes) do at[role] = r.keys and r.keys[i] or r.key end
    end
    return t, at
end

--- pipeline.fusable(spec, q, k) -> true when attention.fused computes what the stages of spec from
--- scores to context compute (every record switched on says it does), and the options for it.
function pipeline.fusable(spec, q, k)
    if not A.fused then return false end
    local causal = spec.causal == true -- a causal buffer is taken to be the triu mask it was made as
    for _, r in ipairs(records_of(spec, "attend")) do
        if r.key ~= "x" and r.reads[1] ~= "x" and r.key ~= "merged" and r.key ~= "output" then
            local f = r.fused
            if f == nil or f == false or (type(f) == "function" and not f(spec, q, k)) then return false end
            if r.key == "masked" then
                local h = hidden_of(spec, nil, q, k)
                causal = causal or (h ~= nil and h:sum():item() > 0)
            end
        end
    end
    return true, {causal = causal}
end

return pipeline
