-- no_grad_ops.lua — the ops that have no gradient, and the ops attn cannot differentiate yet (module
-- attn.autograd.no_grad_ops). Loaded last, after every backward is registered.
--
-- No gradient (NO_GRAD below): as in PyTorch their results never require grad, whatever their inputs
-- (comparisons, argmax/argmin, logical ops, masks, integer draws, queries such as numel). They keep
-- their plain functions: a result without autograd state is a constant.
--
-- Every other function of torch, of the Tensor's methods, of attention and of nn.functional's C part
-- that has no registered backward is wrapped here so that, called in grad mode on an input that
-- requires grad, it stops with an error naming it ("max: attn's autograd has no backward for this op
-- yet ...") instead of returning a result that silently drops the graph. Registering its backward
-- later (registry.lua) replaces the refusal.
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

local refused = {}
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
        refused[#refused + 1] = prefix .. key
    end
end

return {refused = refused}
