-- no_grad_ops.lua — the ops that have no gradient, and the ops attn cannot differentiate yet (module
-- attn.autograd.no_grad_ops). Loaded last, after every backward is registered.
--
-- No gradient (NO_GRAD below): as in PyTorch their results never require grad, whatever their inputs
-- (comparisons, argmax/argmin, logical ops, masks, integer draws, queries such as numel). They keep
-- their plain functions: a result without autograd state is a constant.
--
-- PENDING: stand-ins for max/min, var/std and log_softmax, whose backward ops_learn.lua (loaded after
-- this file) registers; a differentiable op without its backward would go here. Their results are recorded with PyTorch's node name, so
-- they print as PyTorch prints them and keep the graph; a backward that reaches one stops with an
-- error naming it. Registering the real backward (registry.lua) replaces the stand-in.
--
-- Every other function of torch, of the Tensor's methods, of attention and of nn.functional's C part
-- that has no registered backward is wrapped here so that, called in grad mode on an input that
-- requires grad, it stops with an error naming it ("foo: attn's autograd has no backward for this op
-- yet ...") instead of returning a result that silently drops the graph.
local C = require("attn.bind")
local registry = require("attn.autograd.registry")
local errors = require("attn.errors")

local NO_GRAD = {}
for name in ([[argmax argmin eq ne lt le gt ge logical_and logical_or logical_not equal allclose item tolist
    numel size dim is_contiguous bool long multinomial causal_mask valid_len_mask is_tensor Size
    manual_seed initial_seed get_rng_state set_rng_state get_bernoulli_flavor set_bernoulli_flavor
    set_printoptions memory_allocated load zeros ones empty full zeros_like ones_like empty_like
    full_like arange eye rand randn randint tensor requires_grad_ detach detach_ retain_grad backward
    no_grad enable_grad set_grad_enabled is_grad_enabled]]):gmatch("%S+") do
    NO_GRAD[name] = true
end

local function reduction(base)
    -- x:max() is MaxBackward1, x:max(dim) MaxBackward0 (PyTorch's numbering of the overloads)
    return function(x, dim)
        local d = type(dim) == "table" and dim.dim or dim
        return base .. (d == nil and "Backward1" or "Backward0")
    end
end

local PENDING = {
    max = reduction("Max"), min = reduction("Min"), var = "VarBackward0", std = "StdBackward0",
    log_softmax = "LogSoftmaxBackward0",
}

local function pending(tbl, key, name)
    registry.wrap(tbl, key, function(orig, ...)
        local r = table.pack(orig(...))
        local args = table.pack(...)
        local inputs = {}
        for i = 1, args.n do
            if C.torch.is_tensor(args[i]) and args[i].dtype == C.torch.float32 then inputs[#inputs + 1] = i end
        end
        local n = type(name) == "function" and name(...) or name
        if C.torch.is_tensor(r[1]) and r[1].dtype == C.torch.float32 then
            registry.record(r[1], n, inputs, function()
                errors.raisef("backward: %s (of %s) has no backward in attn yet", n, key)
            end, nil, args)
        end
        return table.unpack(r, 1, r.n)
    end)
    registry.pending[tbl] = registry.pending[tbl] or {}
    registry.pending[tbl][key] = true
end

for key, name in pairs(PENDING) do
    if C.torch[key] then pending(C.torch, key, name) end
    if C.methods[key] then pending(C.methods, key, name) end
end

local function refuse(tbl, key, prefix)
    registry.wrap(tbl, key, function()
        errors.raisef("%s%s: attn's autograd has no backward for this op yet; call it on x:detach() or "
                      .. "inside torch.no_grad()", prefix, key)
    end)
end

-- x:float() / x:to(dtype): a float32 result of a float32 input is the input's numbers (ToCopyBackward0);
-- any other dtype has no gradient
local function to_copy(tbl, key)
    if not tbl[key] then return end
    registry.wrap(tbl, key, function(orig, x, ...)
        local out = orig(x, ...)
        if out == x or out.dtype ~= C.torch.float32 then return out end
        registry.record(out, "ToCopyBackward0", {1}, function(node, g) return {g} end, nil, table.pack(x))
        return out
    end)
end
to_copy(C.methods, "float")
to_copy(C.methods, "to")

for _, part in ipairs({{C.torch, ""}, {C.methods, ""}, {C.attention, "attention."}, {C.functional, "functional."}}) do
    local tbl, prefix = part[1], part[2]
    local done = registry.raw[tbl] or {}
    local keys = {}
    for key, f in pairs(tbl) do
        if type(f) == "function" and not done[key] and not NO_GRAD[key] and not key:match("^_") then
            keys[#keys + 1] = key
        end
    end
    table.sort(keys)
    for _, key in ipairs(keys) do
        refuse(tbl, key, prefix)
    end
end

return {}
