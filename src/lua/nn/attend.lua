-- attend.lua — how the books' attention classes (nn/attention.lua) compute attention, and the checks
-- their forwards share (module attn.nn.attend).
--
-- attend.attend(m, q, k, v, spec) takes one of two paths:
--   staged  scores, scale, mask, softmax, dropout, weighted sum, one operation each, exactly the
--           operations of the book's forward, so the numbers are PyTorch's to the last bit; the weights
--           stay in m.last_weights (and in m.attn for the annotated transformer, whose field it is);
--   fused   attention.fused(q, k, v, {causal = ...}): one pass that never holds the score matrix, on
--           all cores, within 1e-5 of the stages (it adds in another order).
-- The rule: the stages, always, unless the user asks for the fused pass (m.use_fused = true) and it
-- computes the same thing (pipeline.fusable asks each stage: no dropout (eval mode or p = 0), the causal
-- mask or none, plain dot-product scores). attn never switches by itself: a switch at some size would
-- change the last bits of a result that is PyTorch's at every other size (chapter 5's evaluation batch
-- crossed the old 2^20-score threshold, and 81% of its logits moved by up to 1.9e-6).
local torch = require("attn.bind").torch
local errors = require("attn.errors") -- errors point at the user's line, not at this file
local check = require("attn.check")
local fail = errors.raisef
local i18n = require("attn.i18n")
local dims, describe = check.shape, check.describe
-- The stage operations: the table attention (module attn.attention), not the global `attention`,
-- which a user may replace.
local A = require("attn.attention")
local pipeline = require("attn.attention.pipeline") -- the stages, described once
local V = require("attn.attention.variants")
local attend = {}

-- ---- arguments and checks ---------------------------------------------------------------------------

-- A tensor's sizes as a Lua list.
local function sizes(t)
    local out = {}
    for i = 1, t.ndim do out[i] = t.shape[i] end
    return out
end

-- x of shape [batch, num_tokens, d_in] (ranks = 3), or also [num_tokens, d_in] (ranks = 2).
function attend.check_input(class, x, d_in, ranks, context_length)
    local want = ranks == 3 and string.format("[batch, num_tokens, %d]", d_in)
                 or i18n.trf("[num_tokens, %d] or [batch, num_tokens, %d]", d_in, d_in)
    if not torch.is_tensor(x) then
        fail("%s: x must be a tensor of shape %s, got %s", class, want, describe(x))
    end
    if x.ndim ~= 3 and not (ranks == 2 and x.ndim == 2) then
        local hint = (ranks == 3 and x.ndim == 2) and i18n.tr("; for one text add the batch dim: x:unsqueeze(1)") or ""
        fail("%s: x must have shape %s, got %s%s", class, want, dims(x), hint)
    end
    if x.shape[-1] ~= d_in then
        fail("%s: x's last dim must be d_in = %d, got shape %s", class, d_in, dims(x))
    end
    if context_length and x.shape[-2] > context_length then
        fail("%s: x has %d tokens but context_length is %d (shape %s)", class, x.shape[-2],
             context_length, dims(x))
    end
    return table.unpack(sizes(x))
end

-- queries [b, n, dq], keys [b, m, dk], values [b, m, dv] (d2l and Python Deep Learning).
function attend.check_qkv(class, q, k, v, dq, dk)
    for _, arg in ipairs({{"queries", q}, {"keys", k}, {"values", v}}) do
        local t = arg[2]
        if not torch.is_tensor(t) or t.ndim ~= 3 then
            fail("%s: %s must be a 3-D tensor [batch, count, dim], got %s", class, arg[1], describe(t))
        end
    end
    local b, n, m = q.shape[1], q.shape[2], k.shape[2]
    if k.shape[1] ~= b or v.shape[1] ~= b or v.shape[2] ~= m then
        fail("%s: queries %s, keys %s and values %s must share the batch dim, and keys and values "
             .. "the count", class, dims(q), dims(k), dims(v))
    end
    if dq and q.shape[3] ~= dq then
        fail("%s: queries' last dim must be %d, got shape %s", class, dq, dims(q))
    end
    if dk and k.shape[3] ~= dk then
        fail("%s: keys' last dim must be %d, got shape %s", class, dk, dims(k))
    end
    if not dq and not dk and q.shape[3] ~= k.shape[3] then
        fail("%s: queries %s and keys %s must have the same last dim", class, dims(q), dims(k))
    end
    return b, n, m
end

-- d2l's valid lengths as a hidden mask: key position j of batch element i (or of query (i, r)) is
-- hidden when j > valid_lens[i] (or [i][r]). lens: a table or tensor, [b] or [b, n].
function attend.valid_len_hidden(class, lens, b, n, m)
    if type(lens) == "table" and getmetatable(lens) == nil then
        local ok, t = pcall(torch.tensor, lens)
        if not ok then
            fail("%s: valid_lens must be a list of numbers or a tensor: %s", class, errors.message(t))
        end
        lens = t
    end
    if not torch.is_tensor(lens) then
        fail("%s: valid_lens must be a tensor or a list of lengths, got %s", class, describe(lens))
    end
    if lens.dtype == torch.bool then
        fail("%s: valid_lens must hold lengths (numbers), got a bool tensor", class)
    end
    if lens.ndim < 1 or lens.ndim > 2 or lens.shape[1] ~= b or (lens.ndim == 2 and lens.shape[2] ~= n) then
        fail("%s: valid_lens must have shape [%d] (one per batch) or [%d, %d] (one per query), "
             .. "got %s", class, b, b, n, dims(lens))
    end
    for _, len in ipairs(lens:reshape(-1):tolist()) do
        if len ~= math.floor(len) or len < 0 then
            fail("%s: valid lengths must be whole numbers >= 0, got %s", class, describe(len))
        elseif len > m then
            fail("%s: valid length %s is longer than the sequence of %d keys", class, describe(len), m)
        end
    end
    return A.valid_len_mask(m, lens) -- [b, 1, m] or [b, n, m]
end

-- forward's options {use_cache = true}: whether to use (and fill) the module's KV cache.
function attend.use_cache(class, opts)
    if opts == nil then return false end
    if type(opts) ~= "table" or torch.is_tensor(opts) then
        fail("%s: forward's options must be a table such as {use_cache = true}, got %s", class, describe(opts))
    end
    for key in pairs(opts) do
        if key ~= "use_cache" then fail("%s: unknown option %s of forward (known: use_cache)", class, tostring(key)) end
    end
    if opts.use_cache ~= nil and type(opts.use_cache) ~= "boolean" then
        fail("%s: use_cache must be true or false, got %s", class, describe(opts.use_cache))
    end
    return opts.use_cache == true
end

-- With the cache, the tokens so far plus the new ones must fit the context length (the mask's rows).
function attend.check_room(class, m, n, context_length)
    local pos = m.ptr_current_pos or 0
    if context_length and pos + n > context_length then
        fail("%s: the cache holds %d tokens; %d more exceed the context length of %d (m:reset_cache() empties it)",
             class, pos, n, context_length)
    end
end

-- ---- the two paths ----------------------------------------------------------------------------------

-- The attention of q [..., n, d] over k [..., m, d], v [..., m, dv] -> [..., n, dv]: the stages of
-- attention/pipeline.lua from scores to context. spec:
--   hidden   bool mask broadcastable to the scores [..., n, m], true = hidden; or
--   causal   a causal-mask buffer (ch. 3's self.mask, 1 = hidden), cut to [n, m] when needed; the
--            fused path (m.use_fused = true) takes it to be the triu mask it was made as
--   fill     the value of hidden scores: -inf (ch. 3), -1e9 (annotated transformer), -1e6 (d2l)
--   scores   scores computed elsewhere (MLPAttention's additive ones): not scaled, never fused
--   dropout  the module's nn.Dropout, applied to the weights
--   positions  true: the causal (or, with window, band) mask made from the positions of the queries and keys
--   rope, cache, window, kv_repeat, alibi   the variants' options of attention/pipeline.lua's spec
--   q_start  the position of the first query (0-based) when the caller keeps the cache itself (MLA's latent)
function attend.attend(self, q, k, v, spec)
    local drop = spec.dropout
    local p = {scores = spec.scores, fill = spec.fill, dropout = (drop and drop.training) and drop.p or nil,
               rope = spec.rope, cache = spec.cache, window = spec.window, kv_repeat = spec.kv_repeat,
               alibi = spec.alibi}
    -- 0. the variants' stages before the scores: RoPE, the KV cache, keys and values shared by heads
    local t, at = pipeline.run(p, {q = q, k = k, v = v, q_start = spec.q_start}, "prepare")
    q, k, v = t[at.q], t[at.k], t[at.v]
    local n, m = (q or spec.scores).shape[-2], k.shape[-2]
    local qs, ks = t.q_start or 0, t.k_start or 0 -- the positions of the first query and key (0-based)
    local hidden = spec.hidden
    if spec.causal and n > 0 and m > 0 then
        hidden = spec.causal[{{qs + 1, qs + n}, {1, m}}]:bool() -- the module's buffer, as the book slices it
    elseif spec.positions then
        hidden = V.band_mask(n, m, {q_start = qs, k_start = ks, window = spec.window})
    end
    p.hidden, p.causal = hidden, spec.causal ~= nil and qs == 0
    -- 1. scores ω = q·kᵀ, 2. scaled by √d, 3. hidden scores get `fill`, so that 4. softmax gives them
    -- weight 0, 5. dropout (training mode only; draws as nn.Dropout does), 6. the weighted sum of the values
    if self.use_fused == true then
        local fusable, opts = pipeline.fusable(p, q, k)
        if fusable then
            rawset(self, "last_weights", nil) -- none on this path; stale ones would mislead
            return A.fused(q, k, v, opts)
        end
    end
    t = pipeline.run(p, {q = q, k = k, v = v, q_start = t.q_start}, "attend")
    rawset(self, "last_weights", t.dropped or t.weights)
    return t.context
end

-- [b, h, n, dh] -> [b, n, h * dh]. The fused path already lays its result out as [b, n, h, dh] in
-- memory (a transposed view): then the book's transpose + view copies nothing.
function attend.merge_heads(context)
    local t = context:transpose(2, 3)
    if t:is_contiguous() then
        return t:view(t.shape[1], t.shape[2], t.shape[3] * t.shape[4])
    end
    return A.merge_heads(context)
end

return attend
