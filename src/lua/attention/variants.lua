-- variants.lua — the pieces the attention of today's models adds to chapter 3's (module
-- attn.attention.variants), each made of existing tensor ops (so each gets what the ops get, gradients
-- included): the KV cache, grouped key/value heads (GQA, MQA), rotary positions (RoPE), the band mask of
-- sliding-window attention, ALiBi's biases, and the KV cache's size. attention/pipeline.lua's records
-- call these; the user calls attention.rope, attention.alibi_slopes, attention.band_mask and
-- attention.kv_cache_bytes.
--
-- Sources: Sebastian Raschka's bonus material to "Build a Large Language Model (From Scratch)" (the
-- repository rasbt/LLMs-from-scratch: ch04/03_kv-cache, 04_gqa, 05_mla, 06_swa, ch05/07_gpt_to_llama);
-- ALiBi: Press, Smith and Lewis, "Train Short, Test Long" (2022).
local torch = require("attn.bind").torch
local errors = require("attn.errors")
local i18n = require("attn.i18n")
local check = require("attn.check")
local variants = {}

-- fail_at(fn, fmt, ...): "fn: " and fmt translated (scripts/po.sh extracts fail_at's second argument)
local function fail_at(fn, fmt, ...) errors.raisef("%s: %s", fn, i18n.trf(fmt, ...)) end

-- ---- grouped key/value heads -------------------------------------------------------------------

--- repeat_interleave(t, r, dim): each slice of t along dim repeated r times in place, [K1, K1, K2, K2]
--- (PyTorch's repeat_interleave; plain repeat would give [K1, K2, K1, K2] and pair the wrong heads).
-- A view that inserts a dim of r after `dim`, expanded and copied: no arithmetic, so exact.
function variants.repeat_interleave(t, r, dim)
    local fn = "attention.repeat_interleave"
    check.tensor(fn, "t", t)
    r = check.size(fn, "repeats", r)
    if math.type(dim) ~= "integer" or dim < 1 or dim > t.ndim then
        fail_at(fn, "dim must be a dim of t, 1 to %d, got %s", t.ndim, check.describe(dim))
    end
    if r == 1 then return t end
    local sizes = {}
    for i = 1, t.ndim do sizes[i] = t.shape[i] end
    local shape = {}
    for i = 1, t.ndim do
        shape[#shape + 1] = sizes[i]
        if i == dim then shape[#shape + 1] = r end
    end
    local out = {}
    for i = 1, t.ndim do out[i] = sizes[i] end
    out[dim] = sizes[dim] * r
    return t:unsqueeze(dim + 1):expand(shape):reshape(out)
end

--- The query heads that share each key/value head: {[g] = {first, ..., last}} for h query heads in
--- groups of h / g (repeat_interleave's order: query heads 1..h/g read key/value head 1, and so on).
function variants.kv_groups(num_heads, num_kv)
    local fn = "attention.kv_groups"
    num_heads, num_kv = check.size(fn, "num_heads", num_heads), check.size(fn, "num_kv_groups", num_kv)
    if num_heads % num_kv ~= 0 then
        fail_at(fn, "num_heads (%d) must be divisible by num_kv_groups (%d)", num_heads, num_kv)
    end
    local size, out = num_heads // num_kv, {}
    for g = 1, num_kv do
        out[g] = {}
        for j = 1, size do out[g][j] = (g - 1) * size + j end
    end
    return out
end

-- ---- the KV cache ------------------------------------------------------------------------------

--- append(m, k, v, window): the new keys and values [b, h, n, d] added to the module's cache
--- (m.cache_k, m.cache_v, m.ptr_current_pos: the bonus chapter's names); returns the keys and values to
--- attend over, the position of the first query and the position of the first key (0-based, as the
--- chapter counts). With a sliding window the cache keeps the last `window` positions and a chunk of n
--- new tokens attends over the last window + n - 1 keys (so its first query still sees a whole window:
--- the fix of rasbt/LLMs-from-scratch#1013).
function variants.append(m, k, v, window)
    local old_len = m.cache_k and m.cache_k.shape[-2] or 0
    local all_k = m.cache_k and torch.cat({m.cache_k, k}, -2) or k
    local all_v = m.cache_v and torch.cat({m.cache_v, v}, -2) or v
    local n, total = k.shape[-2], all_k.shape[-2]
    local keys, values = all_k, all_v
    if window then
        local keep = math.min(total, window + n - 1)
        keys, values = all_k:narrow(-2, total - keep + 1, keep), all_v:narrow(-2, total - keep + 1, keep)
        local cache_keep = math.min(total, window)
        rawset(m, "cache_k", all_k:narrow(-2, total - cache_keep + 1, cache_keep))
        rawset(m, "cache_v", all_v:narrow(-2, total - cache_keep + 1, cache_keep))
    else
        rawset(m, "cache_k", all_k) -- rawset: a cache is no field of a module's state (no buffer)
        rawset(m, "cache_v", all_v)
    end
    local q_start = m.ptr_current_pos or 0
    local k_start = q_start - old_len + (total - keys.shape[-2])
    rawset(m, "ptr_current_pos", q_start + n)
    return keys, values, q_start, k_start
end

--- append_latent(m, c): multi-head latent attention's cache (the bonus chapter ch04/05_mla): the new
--- latents c [b, n, latent_dim] added to m.cache_c_kv (the chapter's name) along the tokens; returns all
--- the latents so far and the position of the first new token (0-based), and moves m.ptr_current_pos on.
--- The keys and values are not cached: they are up-projected from these latents at every step.
function variants.append_latent(m, c)
    local all = m.cache_c_kv and torch.cat({m.cache_c_kv, c}, -2) or c
    rawset(m, "cache_c_kv", all) -- rawset: a cache is no field of a module's state (no buffer)
    local q_start = m.ptr_current_pos or 0
    rawset(m, "ptr_current_pos", q_start + c.shape[-2])
    return all, q_start
end

--- attention.band_mask(n, m [, {q_start = 0, k_start = 0, window = nil}]) -> bool [n, m], true = hidden:
--- query i (at position q_start + i - 1) sees key j (at k_start + j - 1) when 0 <= i - j < window (no
--- window: the causal mask, shifted by the positions).
function variants.band_mask(n, m, opts)
    local fn = "attention.band_mask"
    n, m = check.size(fn, "n", n), check.size(fn, "m", m)
    opts = check.options(fn, opts, "{window = 3}", {"window", "q_start", "k_start"})
    local qs, ks, w = opts.q_start or 0, opts.k_start or 0, opts.window
    if w ~= nil then w = check.size(fn, "window", w) end
    local q = torch.arange(qs, qs + n):unsqueeze(2)
    local k = torch.arange(ks, ks + m):unsqueeze(1)
    local diff = q - k
    local hidden = diff:lt(0)
    if w then hidden = hidden:logical_or(diff:ge(w)) end
    return hidden
end

--- The layer pattern of models that mix sliding-window and full layers ("5:1": five sliding, one
--- full, repeated): a list of n_layers booleans, true = sliding. The bonus chapter's distribution.
function variants.layer_pattern(n_layers, sliding, full)
    local fn = "attention.layer_pattern"
    n_layers = check.size(fn, "n_layers", n_layers)
    if math.type(sliding) ~= "integer" or math.type(full) ~= "integer" or sliding < 0 or full < 0
       or sliding + full == 0 then
        fail_at(fn, "sliding and full must be whole numbers >= 0, not both 0, got %s and %s", check.describe(sliding),
             check.describe(full))
    end
    local out = {}
    for i = 1, n_layers do out[i] = ((i - 1) % (sliding + full)) < sliding end
    return out
end

-- ---- rotary position embedding (RoPE) --------------------------------------------------------------

--- Llama 3's frequency scaling (the Llama 3.2 notebook's compute_rope_params, freq_config =
--- {factor, low_freq_factor, high_freq_factor, original_context_length}): frequencies whose wavelength is
--- longer than original_context_length / low_freq_factor are divided by factor, those shorter than
--- original_context_length / high_freq_factor kept, those between blended smoothly.
function variants.llama3_inv_freq(inv_freq, f)
    local low_wavelen = f.original_context_length / f.low_freq_factor
    local high_wavelen = f.original_context_length / f.high_freq_factor
    local wavelen = 2 * math.pi / inv_freq
    local scaled = torch.where(wavelen:gt(low_wavelen), inv_freq / f.factor, inv_freq)
    local smooth = (f.original_context_length / wavelen - f.low_freq_factor) / (f.high_freq_factor - f.low_freq_factor)
    local smoothed = (1 - smooth) * (inv_freq / f.factor) + smooth * inv_freq
    local medium = wavelen:le(low_wavelen):logical_and(wavelen:ge(high_wavelen))
    return torch.where(medium, smoothed, scaled)
end

--- cos, sin [context_length, head_dim] of the rotation angles: position p times the inverse frequency
--- θ_base^(-2i/head_dim) of pair i, each angle twice (the split-half layout), as the bonus chapter's
--- compute_rope_params computes them.
function variants.rope_params(head_dim, theta_base, context_length, freq_config)
    local fn = "attention.rope_params"
    head_dim = check.size(fn, "head_dim", head_dim)
    if head_dim % 2 ~= 0 then fail_at(fn, "head_dim must be even, got %d", head_dim) end
    if type(theta_base) ~= "number" or not (theta_base > 1) then
        fail_at(fn, "theta_base must be a number > 1, got %s", check.describe(theta_base))
    end
    context_length = check.size(fn, "context_length", context_length)
    local inv_freq = 1.0 / (theta_base ^ (torch.arange(0, head_dim, 2):float() / head_dim))
    if freq_config then inv_freq = variants.llama3_inv_freq(inv_freq, freq_config) end
    local positions = torch.arange(0, context_length):float()
    local angles = positions:unsqueeze(2) * inv_freq:unsqueeze(1)
    angles = torch.cat({angles, angles}, 2)
    return torch.cos(angles), torch.sin(angles)
end


--- attention.rope(x, opts) -> x rotated: x [..., tokens, head_dim], token t (1-based) at position
--- offset + t - 1. Split-half (Llama's and the bonus chapter's apply_rope): dim i pairs with i + d/2,
--- x·cos + (-x₂, x₁)·sin. interleaved = true: dims 2i-1 and 2i pair (the RoPE paper's, GPT-J's).
function variants.rope(x, opts)
    local fn = "attention.rope"
    check.tensor(fn, "x", x)
    opts = check.options(fn, opts, "{offset = 4}", {"theta_base", "offset", "interleaved", "freq_config"})
    if x.ndim < 2 then fail_at(fn, "x must be [..., tokens, head_dim], got %s", check.shape(x)) end
    local d, n = x.shape[-1], x.shape[-2]
    if d % 2 ~= 0 then fail_at(fn, "head_dim must be even (dims are rotated in pairs), got %s", check.shape(x)) end
    local theta = opts.theta_base or 10000
    if type(theta) ~= "number" or not (theta > 1) then fail_at(fn, "theta_base must be a number > 1, got %s", check.describe(theta)) end
    local offset = opts.offset or 0
    if math.type(offset) ~= "integer" or offset < 0 then
        fail_at(fn, "offset must be a whole number >= 0 (the position of the first token), got %s", check.describe(offset))
    end
    local cos, sin = variants.rope_params(d, theta, offset + n, opts.freq_config)
    cos, sin = cos:narrow(1, offset + 1, n), sin:narrow(1, offset + 1, n)
    if opts.interleaved then
        -- pair (2i-1, 2i): the same angles, laid out pairwise: cos of pair i at dims 2i-1 and 2i
        local half = d // 2
        local c = cos:narrow(2, 1, half):unsqueeze(3):expand(n, half, 2):reshape(n, d)
        local s = sin:narrow(2, 1, half):unsqueeze(3):expand(n, half, 2):reshape(n, d)
        local pairs_ = x:reshape(-1, n, half, 2)
        local x1, x2 = pairs_:select(4, 1), pairs_:select(4, 2)
        local rotated = torch.stack({-x2, x1}, 4):reshape(x.shape)
        return x * c + rotated * s
    end
    local x1, x2 = x:narrow(-1, 1, d // 2), x:narrow(-1, d // 2 + 1, d // 2)
    local rotated = torch.cat({-x2, x1}, -1)
    return x * cos + rotated * sin
end

-- ---- ALiBi -------------------------------------------------------------------------------------------

--- attention.alibi_slopes(h): head i's slope 2^(-8i/h) (for h a power of two, as the paper defines them;
--- other h: the paper's rule, the slopes of the next lower power of two and every other one of the next
--- higher).
function variants.alibi_slopes(h)
    h = check.size("attention.alibi_slopes", "h", h)
    local function pow2(k)
        local out = {}
        for i = 1, k do out[i] = 2 ^ (-8 * i / k) end
        return out
    end
    local p = 1
    while p * 2 <= h do p = p * 2 end
    local slopes = pow2(p)
    if p < h then
        local more = pow2(2 * p)
        for i = 1, h - p do slopes[#slopes + 1] = more[2 * i - 1] end
    end
    return torch.tensor(slopes)
end

--- The bias ALiBi adds to the scores of h heads, [h, n, m]: -slope_h · (i - j) for query position i and
--- key position j (0 on the diagonal, more negative further back; the causal mask hides j > i).
function variants.alibi_bias(h, n, m, q_start)
    local slopes = variants.alibi_slopes(h)
    local qs = q_start or (m - n)
    local dist = torch.arange(qs, qs + n):unsqueeze(2) - torch.arange(0, m):unsqueeze(1)
    return -(slopes:view(h, 1, 1) * dist:float())
end

-- ---- FlashAttention's online softmax --------------------------------------------------------------

--- attention.online_softmax(scores, v [, {tile = 2}]) -> context, steps: softmax(scores)·v computed as
--- FlashAttention does, the keys a tile at a time, never holding a whole row of weights: per query row
--- a running max m, a running sum l of exp(score - m) and a running output o; a tile with a larger max
--- rescales l and o by exp(m_old - m_new) before adding its own part. context = o / l at the end.
--- steps[t] = {m =, l =, o =, scale =} after tile t (scale: the rescaling factor that tile applied).
--- scores [..., n, m] (masked with -inf where hidden; a row hidden entirely gives nan, as softmax does),
--- v [..., m, dv]. Not bit for bit the staged softmax: the sum is added tile by tile, and rescaled, in
--- another order (within a few float32 roundings; tests/lua/variants_spec.lua states the bound).
function variants.online_softmax(scores, v, opts)
    local fn = "attention.online_softmax"
    check.tensor(fn, "scores", scores)
    check.tensor(fn, "v", v)
    opts = check.options(fn, opts, "{tile = 2}", {"tile"})
    if scores.ndim < 2 or v.ndim < 2 or scores.shape[-1] ~= v.shape[-2] then
        fail_at(fn, "scores [..., n, m] and v [..., m, dv] must agree on m, got %s and %s", check.shape(scores), check.shape(v))
    end
    local tile = check.size(fn, "tile", opts.tile or 2)
    local m_keys = scores.shape[-1]
    local m, l, o
    local steps = {}
    for start = 1, m_keys, tile do
        local w = math.min(tile, m_keys - start + 1)
        local s = scores:narrow(-1, start, w)
        local vt = v:narrow(-2, start, w)
        local tile_max = s:max{dim = -1, keepdim = true}
        local m_new = m and torch.maximum(m, tile_max) or tile_max
        -- exp(-inf - -inf) would be nan: a row that has seen only hidden keys so far keeps 0
        local safe = m_new:masked_fill(m_new:eq(-math.huge), 0)
        local p = torch.exp(s - safe)
        local scale = m and torch.exp(m - safe) or nil
        l = m and (l * scale + p:sum{dim = -1, keepdim = true}) or p:sum{dim = -1, keepdim = true}
        o = m and (o * scale + p:matmul(vt)) or p:matmul(vt)
        m = m_new
        steps[#steps + 1] = {m = m, l = l, o = o, scale = scale}
    end
    return o / l, steps
end

-- ---- the KV cache's size ---------------------------------------------------------------------------

local DTYPE_BYTES = {fp32 = 4, bf16 = 2, fp16 = 2, fp8 = 1, int8 = 1}

--- attention.kv_cache_bytes{context_length =, emb_dim =, n_heads =, n_layers =, n_kv_heads = n_heads,
--- batch_size = 1, dtype = "fp16", latent_dim =, sliding_window =, swa_ratio = {sliding, full}}
--- -> bytes, as the bonus chapters' memory estimators count them: per layer batch × tokens × head_dim
--- × n_kv_heads × 2 (keys and values) × bytes per number (head_dim = ⌈emb_dim / n_heads⌉); with
--- latent_dim (MLA): batch × tokens × latent_dim × bytes per layer (one latent, no separate K and V);
--- with sliding_window and swa_ratio: the sliding layers hold min(window, tokens) tokens.
function variants.kv_cache_bytes(cfg)
    local fn = "attention.kv_cache_bytes"
    if type(cfg) ~= "table" or torch.is_tensor(cfg) then
        fail_at(fn, "expected a table such as {context_length = 32768, emb_dim = 4096, n_heads = 32, n_layers = 32}, got %s",
             check.describe(cfg))
    end
    local known = {context_length = true, emb_dim = true, n_heads = true, n_layers = true, n_kv_heads = true,
                   batch_size = true, dtype = true, latent_dim = true, sliding_window = true, swa_ratio = true}
    for k in pairs(cfg) do
        if not known[k] then fail_at(fn, "unknown option %s", tostring(k)) end
    end
    local L = check.size(fn, "context_length", cfg.context_length)
    local layers = check.size(fn, "n_layers", cfg.n_layers)
    local batch = check.size(fn, "batch_size", cfg.batch_size or 1)
    local per = DTYPE_BYTES[cfg.dtype or "fp16"]
    if not per then fail_at(fn, "dtype must be one of fp32, bf16, fp16, fp8, int8, got %s", check.describe(cfg.dtype)) end
    if cfg.latent_dim ~= nil then
        return batch * L * layers * check.size(fn, "latent_dim", cfg.latent_dim) * per
    end
    local heads = check.size(fn, "n_heads", cfg.n_heads)
    local head_dim = -(-check.size(fn, "emb_dim", cfg.emb_dim) // heads)
    local kv = check.size(fn, "n_kv_heads", cfg.n_kv_heads or heads)
    local function per_layer(tokens) return batch * tokens * head_dim * kv * 2 * per end
    if cfg.sliding_window == nil then return per_layer(L) * layers end
    local w = check.size(fn, "sliding_window", cfg.sliding_window)
    local ratio = cfg.swa_ratio or {1, 0}
    if type(ratio) ~= "table" or math.type(ratio[1]) ~= "integer" or math.type(ratio[2]) ~= "integer"
       or ratio[1] < 0 or ratio[2] < 0 or ratio[1] + ratio[2] == 0 then
        fail_at(fn, "swa_ratio must be {sliding, full} layers, such as {5, 1}, got %s", check.describe(ratio))
    end
    -- the estimator's distribution: whole blocks of a + b layers, then the rest sliding first
    local a, b = ratio[1], ratio[2]
    local blocks, rem = layers // (a + b), layers % (a + b)
    local swa = blocks * a + math.min(a, rem)
    local full = blocks * b + math.max(0, rem - a)
    return swa * per_layer(math.min(L, w)) + full * per_layer(L), swa, full
end

return variants
