-- load.lua — pretrained weights into chapter 4's GPTModel (module attn.gpt.load):
--   gpt.load_weights_into_gpt(model, params)   chapter 5's function: params in OpenAI's names, nested
--                                              as the book's load_gpt2_params_from_tf_ckpt returns them
--                                              (params.wte, params.blocks[i].attn.c_attn.w, ...)
--   gpt.params_from_hf(state)                  a Hugging Face GPT-2 state (safetensors.load_file of
--                                              model.safetensors) in that nested form
--   gpt.GPTModel.from_pretrained(dir)          config.json + model.safetensors of a Hugging Face gpt2
--                                              directory -> a GPTModel in eval mode; "gpt2": found where
--                                              load.gpt2_dir looks
-- GPT-2's Conv1D layers store weights as [in, out], nn.Linear as [out, in]: each is transposed; the
-- fused c_attn ([emb, 3·emb]) is split into W_query, W_key and W_value, as the book does with np.split.
-- The output head shares the token embedding's tensor (GPT-2's weight tying), so the parameter count
-- is 124,412,160, not the 163,009,536 of an untied GPTModel.
local torch = require("attn.bind").torch
local bind = require("attn.bind")
local errors = require("attn.errors")
local check = require("attn.check")
local model = require("attn.gpt.model")
local nn_module = require("attn.nn.module")
local hf = require("attn.hf")
local places = require("attn.places")
local tr = require("attn.i18n").tr
local Parameter = nn_module.Parameter

local load = {}

local function shape_text(t)
    return check.shape(t)
end

-- The book's assign(left, right): right must have left's shape; it becomes the parameter.
local function assign(what, left, right)
    if not torch.is_tensor(right) then
        errors.raisef("load_weights_into_gpt: %s is missing from params (got %s)", what, check.describe(right))
    end
    if right.dtype ~= torch.float32 then right = right:float() end
    if tostring(left.shape) ~= tostring(right.shape) then
        errors.raisef("load_weights_into_gpt: shape mismatch for %s: the model has %s, the weights %s (is the "
                      .. "configuration the checkpoint's?)", what, shape_text(left), shape_text(right))
    end
    return Parameter(right:contiguous())
end

local function get(params, what, ...)
    local v = params
    for _, k in ipairs({...}) do
        if type(v) ~= "table" or torch.is_tensor(v) then v = nil break end
        v = v[k]
    end
    if v == nil then errors.raisef("load_weights_into_gpt: params has no %s", what) end
    return v
end

-- [in, 3·out] -> the three [in, out] blocks along the last dim (np.split(w, 3, axis=-1)).
local function split3(what, t)
    local n = t.shape[-1]
    if n % 3 ~= 0 then
        errors.raisef("load_weights_into_gpt: %s has last dim %d, not a multiple of 3 (query, key, value)", what, n)
    end
    local k = n // 3
    return t:narrow(-1, 1, k), t:narrow(-1, k + 1, k), t:narrow(-1, 2 * k + 1, k)
end

--- gpt.load_weights_into_gpt(gpt, params), chapter 5's function.
function load.load_weights_into_gpt(gpt, params)
    if not check.is_module(gpt) or not gpt.trf_blocks then
        errors.raisef("load_weights_into_gpt: expected a GPTModel, got %s", check.describe(gpt))
    end
    if type(params) ~= "table" then
        errors.raisef("load_weights_into_gpt: expected params (a table in OpenAI's names), got %s", check.describe(params))
    end
    local blocks = get(params, "blocks", "blocks")
    if #blocks ~= rawlen(gpt.trf_blocks) then
        errors.raisef("load_weights_into_gpt: the weights have %d transformer blocks, the model %d (cfg.n_layers)",
                      #blocks, rawlen(gpt.trf_blocks))
    end
    gpt.pos_emb.weight = assign("wpe", gpt.pos_emb.weight, get(params, "wpe", "wpe"))
    gpt.tok_emb.weight = assign("wte", gpt.tok_emb.weight, get(params, "wte", "wte"))
    for b = 1, #blocks do
        local blk, p = gpt.trf_blocks[b], "blocks[" .. b .. "]."
        local att, ff = blk.att, blk.ff.layers
        local w = get(params, p .. "attn.c_attn.w", "blocks", b, "attn", "c_attn", "w")
        local q_w, k_w, v_w = split3(p .. "attn.c_attn.w", w)
        att.W_query.weight = assign(p .. "attn.c_attn.w (query)", att.W_query.weight, q_w.T)
        att.W_key.weight = assign(p .. "attn.c_attn.w (key)", att.W_key.weight, k_w.T)
        att.W_value.weight = assign(p .. "attn.c_attn.w (value)", att.W_value.weight, v_w.T)
        local bias = get(params, p .. "attn.c_attn.b", "blocks", b, "attn", "c_attn", "b")
        local q_b, k_b, v_b = split3(p .. "attn.c_attn.b", bias)
        if not att.W_query.bias then
            errors.raise("load_weights_into_gpt: the weights have query/key/value biases, the model none: build it "
                         .. "with cfg.qkv_bias = true, as GPT-2 has them")
        end
        att.W_query.bias = assign(p .. "attn.c_attn.b (query)", att.W_query.bias, q_b)
        att.W_key.bias = assign(p .. "attn.c_attn.b (key)", att.W_key.bias, k_b)
        att.W_value.bias = assign(p .. "attn.c_attn.b (value)", att.W_value.bias, v_b)
        att.out_proj.weight = assign(p .. "attn.c_proj.w", att.out_proj.weight,
                                     get(params, p .. "attn.c_proj.w", "blocks", b, "attn", "c_proj", "w").T)
        att.out_proj.bias = assign(p .. "attn.c_proj.b", att.out_proj.bias,
                                   get(params, p .. "attn.c_proj.b", "blocks", b, "attn", "c_proj", "b"))
        ff[1].weight = assign(p .. "mlp.c_fc.w", ff[1].weight, get(params, p .. "mlp.c_fc.w", "blocks", b, "mlp", "c_fc", "w").T)
        ff[1].bias = assign(p .. "mlp.c_fc.b", ff[1].bias, get(params, p .. "mlp.c_fc.b", "blocks", b, "mlp", "c_fc", "b"))
        ff[3].weight = assign(p .. "mlp.c_proj.w", ff[3].weight,
                              get(params, p .. "mlp.c_proj.w", "blocks", b, "mlp", "c_proj", "w").T)
        ff[3].bias = assign(p .. "mlp.c_proj.b", ff[3].bias, get(params, p .. "mlp.c_proj.b", "blocks", b, "mlp", "c_proj", "b"))
        blk.norm1.scale = assign(p .. "ln_1.g", blk.norm1.scale, get(params, p .. "ln_1.g", "blocks", b, "ln_1", "g"))
        blk.norm1.shift = assign(p .. "ln_1.b", blk.norm1.shift, get(params, p .. "ln_1.b", "blocks", b, "ln_1", "b"))
        blk.norm2.scale = assign(p .. "ln_2.g", blk.norm2.scale, get(params, p .. "ln_2.g", "blocks", b, "ln_2", "g"))
        blk.norm2.shift = assign(p .. "ln_2.b", blk.norm2.shift, get(params, p .. "ln_2.b", "blocks", b, "ln_2", "b"))
    end
    gpt.final_norm.scale = assign("g", gpt.final_norm.scale, get(params, "g", "g"))
    gpt.final_norm.shift = assign("b", gpt.final_norm.shift, get(params, "b", "b"))
    gpt.out_head.weight = gpt.tok_emb.weight -- tied, as GPT-2's
    return gpt
end

-- Hugging Face's names (with or without the "transformer." prefix) -> OpenAI's nested params.
function load.params_from_hf(state, fn)
    fn = fn or "params_from_hf"
    local params = {blocks = {}}
    local LEAF = {weight = "w", bias = "b"}
    local LN = {weight = "g", bias = "b"}
    for name, t in pairs(state) do
        local key = name:gsub("^transformer%.", "")
        local i, rest = key:match("^h%.(%d+)%.(.+)$")
        if i then
            i = tonumber(i) + 1
            local block = params.blocks[i] or {attn = {c_attn = {}, c_proj = {}}, mlp = {c_fc = {}, c_proj = {}},
                                               ln_1 = {}, ln_2 = {}}
            params.blocks[i] = block
            local a, b, leaf = rest:match("^(%w+)%.([%w_]+)%.(%w+)$")
            local ln, ln_leaf = rest:match("^(ln_[12])%.(%w+)$")
            if a and block[a] and block[a][b] and LEAF[leaf] then
                block[a][b][LEAF[leaf]] = t
            elseif ln and LN[ln_leaf] then
                block[ln][LN[ln_leaf]] = t
            elseif rest ~= "attn.bias" and rest ~= "attn.masked_bias" then -- old checkpoints' mask buffers
                errors.raisef("%s: unexpected weight %q (not one of GPT-2's)", fn, name)
            end
        elseif key == "wte.weight" then params.wte = t
        elseif key == "wpe.weight" then params.wpe = t
        elseif key == "ln_f.weight" then params.g = t
        elseif key == "ln_f.bias" then params.b = t
        elseif key ~= "lm_head.weight" then -- tied to wte
            errors.raisef("%s: unexpected weight %q (not one of GPT-2's)", fn, name)
        end
    end
    for i = 1, #params.blocks do
        if not params.blocks[i] then errors.raisef("%s: block %d is missing", fn, i - 1) end
    end
    return params
end

local function read_config(fn, dir)
    local path = dir .. "/config.json"
    local f, err, present = bind.files.open(path) -- a FIFO refused before it blocks (core/safe_read.c)
    if not f and present then errors.raisef("%s: cannot read %s", fn, err) end
    if not f then
        errors.raisef("%s: %s has no config.json: expected a Hugging Face gpt2 directory (config.json and "
                      .. "model.safetensors)", fn, dir)
    end
    local text = f:read("a")
    f:close()
    local ok, c = pcall(bind.json.decode, text, path)
    if not ok or type(c) ~= "table" then errors.raisef("%s: %s is not a JSON object", fn, path) end
    if c.model_type and c.model_type ~= "gpt2" then
        errors.raisef('%s: %s describes a "%s" model; attn loads GPT-2 ("gpt2")', fn, path, tostring(c.model_type))
    end
    if c.activation_function and c.activation_function ~= "gelu_new" then
        errors.raisef('%s: %s: activation_function "%s"; GPTModel computes GPT-2\'s "gelu_new"', fn, path,
                      tostring(c.activation_function))
    end
    if c.layer_norm_epsilon ~= nil and type(c.layer_norm_epsilon) ~= "number" then
        errors.raisef("%s: %s: layer_norm_epsilon must be a number, got %s", fn, path, check.describe(c.layer_norm_epsilon))
    end
    if c.layer_norm_epsilon and math.abs(c.layer_norm_epsilon - 1e-5) > 1e-12 then
        errors.raisef("%s: %s: layer_norm_epsilon %s; GPTModel's LayerNorm uses 1e-5", fn, path,
                      tostring(c.layer_norm_epsilon))
    end
    -- each key checked by name (a missing one is nil, which a loop over the table would never see)
    local cfg = {drop_rate = 0.0, qkv_bias = true}
    for _, k in ipairs({{"vocab_size", "vocab_size"}, {"context_length", "n_positions", "n_ctx"}, {"emb_dim", "n_embd"},
                        {"n_heads", "n_head"}, {"n_layers", "n_layer"}}) do
        local v = c[k[2]]
        if v == nil and k[3] then v = c[k[3]] end
        if v == nil then errors.raisef("%s: %s has no %s", fn, path, k[2]) end
        cfg[k[1]] = check.size(fn, path .. ": " .. k[2], v)
    end
    return cfg
end

-- How to get GPT-2 small's two files (about 550 MB), into attn's place for them.
local GPT2_HOW = [[
    mkdir -p %s && cd %s
    curl -LO https://huggingface.co/openai-community/gpt2/resolve/main/config.json
    curl -LO https://huggingface.co/openai-community/gpt2/resolve/main/model.safetensors
    huggingface-cli download gpt2    %s]]

-- The folder of "gpt2": a folder of that name, attn's places for it ($ATTN_GPT2_DIR, ~/.cache/attn/gpt2,
-- build/gpt2 beside attn: places.lua), the Hugging Face cache's gpt2 or openai-community/gpt2; else an
-- error listing them all and how to get the files.
function load.gpt2_dir(fn, name)
    local function has(d) local f = io.open(d .. "/config.json", "rb") if f then f:close() end return f ~= nil end
    local looked = {}
    local function try(d, why)
        looked[#looked + 1] = "    " .. d .. (why and ("  (" .. why .. ")") or "")
        return has(d)
    end
    if try(name) then return name end
    for _, d in ipairs(places.dirs("gpt2")) do
        if try(d.dir, d.why) then return d.dir end
    end
    for _, repo in ipairs({"gpt2", "openai-community/gpt2"}) do
        local found, where = hf.find(repo, "config.json")
        if found then return found end
        looked[#looked + 1] = "    " .. where
    end
    local home = places.dirs("gpt2")
    local default = home[#home > 0 and (home[1].why and 2 or 1)].dir
    errors.raisef("%s: found no GPT-2 small (config.json and model.safetensors) for %s. attn looked in:\n%s\n"
                  .. "To get the files:\n%s", fn, name, table.concat(looked, "\n"),
                  string.format(GPT2_HOW, default, default, tr("(the same files, into the Hugging Face cache)")))
end

--- GPTModel.from_pretrained(dir): a Hugging Face gpt2 directory -> GPTModel (eval mode, tied head).
function load.from_pretrained(dir)
    local fn = "GPTModel.from_pretrained"
    if type(dir) ~= "string" then errors.raisef("%s: expected a directory name, got %s", fn, check.describe(dir)) end
    if dir == "gpt2" or dir == "openai-community/gpt2" then dir = load.gpt2_dir(fn, dir) end
    local cfg = read_config(fn, dir)
    local path = dir .. "/model.safetensors"
    local f, err, present = bind.files.open(path)
    if not f and present then errors.raisef("%s: cannot read %s", fn, err) end
    if not f then
        errors.raisef("%s: %s has no model.safetensors (attn reads safetensors only: a pytorch_model.bin is a "
                      .. "pickle, see ?torch.load)", fn, dir)
    end
    f:close()
    local ok, state = pcall(bind.safetensors.load_file, path)
    if not ok then errors.raise((errors.message(state):gsub("^safetensors%.load_file", fn))) end
    -- The configuration against the weights, before any block is built: an absurd n_layer or n_positions
    -- would otherwise build (and fill) gigabytes of layers only to find they do not fit.
    local wte = state["wte.weight"] or state["transformer.wte.weight"]
    if wte and (wte.shape[1] ~= cfg.vocab_size or wte.shape[2] ~= cfg.emb_dim) then
        errors.raisef("%s: config.json says vocab_size %d and n_embd %d, but wte.weight is %s", fn, cfg.vocab_size,
                      cfg.emb_dim, shape_text(wte))
    end
    local wpe = state["wpe.weight"] or state["transformer.wpe.weight"]
    if wpe and wpe.shape[1] ~= cfg.context_length then
        errors.raisef("%s: config.json says n_positions %d, but wpe.weight is %s", fn, cfg.context_length,
                      shape_text(wpe))
    end
    local params = load.params_from_hf(state, fn)
    if #params.blocks ~= cfg.n_layers then
        errors.raisef("%s: config.json says n_layer %d, but the weights have %d transformer blocks", fn, cfg.n_layers,
                      #params.blocks)
    end
    -- Built with the generator's state kept: loading a model draws nothing from the user's stream.
    local rng = torch.get_rng_state()
    local built, gpt = pcall(model.GPTModel, cfg)
    torch.set_rng_state(rng)
    if not built then errors.raisef("%s: %s", fn, errors.message(gpt)) end
    local loaded, err = pcall(load.load_weights_into_gpt, gpt, params)
    if not loaded then errors.raise((errors.message(err):gsub("^load_weights_into_gpt", fn))) end
    gpt:eval()
    return gpt
end

return load
