-- load.lua — Qwen3 and Llama 3 from a Hugging Face directory (module attn.llm.load):
--   config.json                      Hugging Face's keys (hidden_size, num_key_value_heads, rope_theta,
--                                    rope_scaling, tie_word_embeddings, ...) -> the notebooks' cfg
--   model.safetensors                the weights, memory-mapped (safetensors.load_file); BF16 and F16
--   or model.safetensors.index.json  weights widened to float32 as they are read; an index's weight_map
--     + its shards                   names the shard of every tensor
-- and the weights into the model under the notebooks' load_weights_into_qwen / load_weights_into_llama
-- correspondence (q_proj -> W_query, gate_proj -> fc1, up_proj -> fc2, down_proj -> fc3, ...), the output
-- head tied to the token embedding when the file has no lm_head (tie_word_embeddings). A directory
-- that does not hold such a model is refused with the file and the reason, before any weight is made;
-- a model larger than the memory available is refused by safetensors.load_file before it maps it.
local torch = require("attn.bind").torch
local bind = require("attn.bind")
local errors = require("attn.errors")
local check = require("attn.check")
local trf = require("attn.i18n").trf
local Parameter = require("attn.nn.module").Parameter
local layers = require("attn.nn.layers")
local Embedding = require("attn.nn.transformer").Embedding

local load = {}

local function fail(fn, msg) errors.raise(fn .. ": " .. msg) end -- msg: trf(...), so xgettext finds it

local function read_json(fn, path)
    local f, err, present = bind.files.open(path) -- a FIFO refused before it blocks (core/safe_read.c)
    if not f then
        if present then fail(fn, trf("cannot read %s", err)) end
        return nil
    end
    local text = f:read("a")
    f:close()
    local ok, c = pcall(bind.json.decode, text or "", path)
    if not ok or type(c) ~= "table" or c[1] ~= nil then fail(fn, trf("%s is not a JSON object", path)) end
    return c
end

-- config.json -> the notebooks' cfg for this flavour.
local function read_config(fn, dir, flavour)
    local path = dir .. "/config.json"
    local c = read_json(fn, path)
    if not c then fail(fn, trf("%s has no config.json: expected a Hugging Face model directory", dir)) end
    if c.model_type ~= flavour.model_type then
        fail(fn, trf('%s describes a "%s" model; %s loads "%s" models', path, tostring(c.model_type), flavour.name,
             flavour.model_type))
    end
    if c.hidden_act ~= nil and c.hidden_act ~= "silu" then
        fail(fn, trf('%s: hidden_act "%s"; the FeedForward computes SwiGLU ("silu")', path, tostring(c.hidden_act)))
    end
    if c.attention_bias == true then fail(fn, trf("%s: attention_bias is true; the attention has no biases", path)) end
    if c.use_sliding_window == true then
        fail(fn, trf("%s: use_sliding_window is true; %s attends to every earlier position (no sliding window)", path,
             flavour.name))
    end
    if c.rms_norm_eps ~= nil and (type(c.rms_norm_eps) ~= "number" or math.abs(c.rms_norm_eps - flavour.eps) > 1e-12) then
        fail(fn, trf("%s: rms_norm_eps %s; %s's RMSNorm uses %s", path, tostring(c.rms_norm_eps), flavour.name,
             tostring(flavour.eps)))
    end
    local cfg = {vocab_size = c.vocab_size, context_length = c.max_position_embeddings, emb_dim = c.hidden_size,
                 n_heads = c.num_attention_heads, n_layers = c.num_hidden_layers, hidden_dim = c.intermediate_size,
                 n_kv_groups = c.num_key_value_heads or c.num_attention_heads, rope_base = c.rope_theta or 10000.0}
    local HF = {vocab_size = "vocab_size", context_length = "max_position_embeddings", emb_dim = "hidden_size",
                n_heads = "num_attention_heads", n_layers = "num_hidden_layers", hidden_dim = "intermediate_size"}
    for k, hf_key in pairs(HF) do
        if cfg[k] == nil then fail(fn, trf("%s has no %s", path, hf_key)) end
        if math.type(cfg[k]) ~= "integer" or cfg[k] < 1 then
            fail(fn, trf("%s: %s must be a whole number >= 1, got %s", path, hf_key, check.describe(cfg[k])))
        end
    end
    if flavour.qwen3 then
        cfg.head_dim, cfg.qk_norm = c.head_dim, true
    elseif c.head_dim ~= nil and c.head_dim * c.num_attention_heads ~= c.hidden_size then
        fail(fn, trf("%s: head_dim %s is not hidden_size / num_attention_heads", path, tostring(c.head_dim)))
    end
    local rs = c.rope_scaling
    if rs ~= nil then
        if flavour.qwen3 or type(rs) ~= "table" or rs.rope_type ~= "llama3" then
            local kind = type(rs) == "table" and tostring(rs.rope_type or rs.type) or tostring(rs)
            if flavour.qwen3 then
                fail(fn, trf("%s: rope_scaling %s is not supported (%s reads none)", path, kind, flavour.name))
            end
            fail(fn, trf('%s: rope_scaling %s is not supported (%s reads none, or "llama3")', path, kind, flavour.name))
        end
        cfg.rope_freq = {factor = rs.factor, low_freq_factor = rs.low_freq_factor,
                         high_freq_factor = rs.high_freq_factor,
                         original_context_length = rs.original_max_position_embeddings}
    end
    -- Qwen3Config's and LlamaConfig's default is false (PretrainedConfig's true is not theirs): a
    -- config.json without the key and weights with lm_head.weight use that head, never the embedding
    cfg.tied = c.tie_word_embeddings == true
    return cfg, path
end

-- The weight files: {path, ...} and, for an index, the file that should hold each tensor.
local function weight_files(fn, dir)
    local single = dir .. "/model.safetensors"
    local f, err, present = bind.files.open(single)
    if f then
        f:close()
        return {single}
    end
    if present then fail(fn, trf("cannot read %s", err)) end
    local index_path = dir .. "/model.safetensors.index.json"
    local index = read_json(fn, index_path)
    if not index then
        fail(fn, trf("%s has neither model.safetensors nor model.safetensors.index.json (attn reads safetensors only)", dir))
    end
    if type(index.weight_map) ~= "table" or next(index.weight_map) == nil then
        fail(fn, trf("%s has no weight_map (tensor name -> shard file)", index_path))
    end
    local files, seen, where = {}, {}, {}
    for name, file in pairs(index.weight_map) do
        if type(file) ~= "string" or file:find("/", 1, true) or file:find("..", 1, true) then
            fail(fn, trf("%s: the shard of %s must be a file name in the directory, got %s", index_path, tostring(name),
                 check.describe(file)))
        end
        where[name] = file
        if not seen[file] then
            seen[file] = true
            files[#files + 1] = dir .. "/" .. file
        end
    end
    table.sort(files)
    return files, where, index_path
end

-- Every tensor of every file, by name; a name in two files, or not where the index says, is refused.
local function read_weights(fn, dir)
    local files, where, index_path = weight_files(fn, dir)
    local state, from = {}, {}
    for _, path in ipairs(files) do
        local fh, err, present = bind.files.open(path)
        if not fh and present then fail(fn, trf("cannot read %s", err)) end
        if not fh then fail(fn, trf("%s names the shard %s, which is missing", index_path, path)) end
        fh:close()
        local ok, tensors = pcall(bind.safetensors.load_file, path)
        if not ok then errors.raise((errors.message(tensors):gsub("^safetensors%.load_file", fn))) end
        for name, t in pairs(tensors) do
            if state[name] then fail(fn, trf("the tensor %s is in both %s and %s", name, from[name], path)) end
            if where and where[name] and dir .. "/" .. where[name] ~= path then
                fail(fn, trf("%s says %s is in %s, but it is in %s", index_path, name, where[name], path))
            end
            state[name], from[name] = t, path
        end
    end
    if where then
        for name, file in pairs(where) do
            if not state[name] then fail(fn, trf("%s lists %s in %s, which does not hold it", index_path, name, file)) end
        end
    end
    return state, from
end

-- The model's parameter each Hugging Face name goes to: {hf name = {module, field}}.
local function targets(model, flavour)
    local norm = flavour.norm_name
    local t = {["model.embed_tokens.weight"] = {model.tok_emb, "weight"},
               ["model.norm.weight"] = {model.final_norm, norm}}
    for i, blk in ipairs(model.trf_blocks) do
        local p, att = "model.layers." .. (i - 1) .. ".", blk.att
        t[p .. "self_attn.q_proj.weight"] = {att.W_query, "weight"}
        t[p .. "self_attn.k_proj.weight"] = {att.W_key, "weight"}
        t[p .. "self_attn.v_proj.weight"] = {att.W_value, "weight"}
        t[p .. "self_attn.o_proj.weight"] = {att.out_proj, "weight"}
        if att.q_norm then
            t[p .. "self_attn.q_norm.weight"] = {att.q_norm, "scale"}
            t[p .. "self_attn.k_norm.weight"] = {att.k_norm, "scale"}
        end
        t[p .. "input_layernorm.weight"] = {blk.norm1, norm}
        t[p .. "mlp.gate_proj.weight"] = {blk.ff.fc1, "weight"}
        t[p .. "mlp.up_proj.weight"] = {blk.ff.fc2, "weight"}
        t[p .. "mlp.down_proj.weight"] = {blk.ff.fc3, "weight"}
        t[p .. "post_attention_layernorm.weight"] = {blk.norm2, norm}
    end
    return t
end

-- Model(cfg) without weights of its own, as PyTorch's nn.utils.skip_init builds a module: the file's
-- weights replace them all. Drawing random numbers into 0.6B weights only to drop them takes seconds and,
-- worse, makes every page of them resident: the model would be held twice in memory while it loads. So
-- while the model is built, torch.empty (with which Linear and Embedding make their weights) gives a
-- zero expanded to the shape (a view of one number: no memory), and their reset_parameters does nothing;
-- both are put back however the construction ends. RMSNorm's torch.ones, a few KB, stay real.
local function without_init(Model, cfg)
    local Linear = layers.Linear
    local empty, linear_init, embedding_init = torch.empty, Linear.reset_parameters, Embedding.reset_parameters
    local zero = torch.zeros(1)
    torch.empty = function(...) return zero:expand(...) end
    local function skip() end
    Linear.reset_parameters, Embedding.reset_parameters = skip, skip
    local ok, model = pcall(Model, cfg)
    torch.empty, Linear.reset_parameters, Embedding.reset_parameters = empty, linear_init, embedding_init
    if not ok then error(model, 0) end
    return model
end

--- load.from_pretrained(flavour, Model, dir_or_name) -> the model in eval mode.
function load.from_pretrained(flavour, Model, dir)
    local fn = flavour.name .. ".from_pretrained"
    if type(dir) ~= "string" then
        fail(fn, trf('expected a directory or a model name such as "%s", got %s', flavour.example_name, check.describe(dir)))
    end
    -- a name that is no directory here: the Hugging Face cache's (hf.lua), else an error listing where it looked
    local f = io.open(dir, "rb")
    if f then f:close()
    else dir = require("attn.hf").model_dir(fn, dir, "config.json", nil, require("attn.places").model(dir)) end
    local cfg, config_path = read_config(fn, dir, flavour)
    local state, from = read_weights(fn, dir)
    local emb = state["model.embed_tokens.weight"]
    if emb and (emb.ndim ~= 2 or emb.shape[1] ~= cfg.vocab_size or emb.shape[2] ~= cfg.emb_dim) then
        fail(fn, trf("%s says vocab_size %d and hidden_size %d, but model.embed_tokens.weight in %s is %s", config_path,
             cfg.vocab_size, cfg.emb_dim, from["model.embed_tokens.weight"], check.shape(emb)))
    end
    -- The number of blocks against the weights, before any is built: num_hidden_layers 1e9 built blocks
    -- for minutes and gigabytes only to find they do not fit (GPT-2's loader checks n_layer the same way).
    local layers_in_weights = 0
    for name in pairs(state) do
        local i = tonumber(name:match("^model%.layers%.(%d+)%."))
        if i and i + 1 > layers_in_weights then layers_in_weights = i + 1 end
    end
    if layers_in_weights ~= cfg.n_layers then
        fail(fn, trf("%s says num_hidden_layers %d, but the weights have %d layers", config_path, cfg.n_layers,
             layers_in_weights))
    end
    -- Built with the generator's state kept: loading a model draws nothing from the user's stream.
    local rng = torch.get_rng_state()
    local built, model = pcall(without_init, Model, cfg)
    torch.set_rng_state(rng)
    if not built then errors.raise(fn .. ": " .. config_path .. ": " .. errors.message(model)) end
    local want = targets(model, flavour)
    for name, t in pairs(state) do
        if not want[name] and name ~= "lm_head.weight" then
            fail(fn, trf("%s holds %s, which is not a weight of %s (is config.json the checkpoint's?)", from[name], name,
                 flavour.name))
        end
    end
    for name, slot in pairs(want) do
        local t = state[name]
        if t == nil then fail(fn, trf("the weights have no %s (is config.json the checkpoint's?)", name)) end
        local left = slot[1][slot[2]]
        if tostring(left.shape) ~= tostring(t.shape) then
            fail(fn, trf("%s in %s is %s; config.json makes it %s", name, from[name], check.shape(t), check.shape(left)))
        end
        if t.dtype ~= torch.float32 then
            fail(fn, trf("%s in %s holds %s numbers, not floating-point ones", name, from[name], tostring(t.dtype)))
        end
        slot[1][slot[2]] = Parameter(t)
    end
    local head = state["lm_head.weight"]
    if head and not cfg.tied then
        if tostring(head.shape) ~= tostring(model.out_head.weight.shape) then
            fail(fn, trf("lm_head.weight in %s is %s; config.json makes it %s", from["lm_head.weight"], check.shape(head),
                 check.shape(model.out_head.weight)))
        end
        model.out_head.weight = Parameter(head)
    elseif not cfg.tied then
        fail(fn, trf("%s says tie_word_embeddings is false, but the weights have no lm_head.weight", config_path))
    else
        model.out_head.weight = model.tok_emb.weight -- tied, as the notebooks do when there is no lm_head
    end
    local tok = dir .. "/tokenizer.json" -- the labels of attention.trace and attention.overview (llm/inspect.lua)
    local f = bind.files.open(tok)
    if f then
        f:close()
        rawset(model, "tokenizer_file", tok)
    end
    model:eval()
    return model
end

return load
