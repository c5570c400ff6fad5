-- registry.lua — where ops become differentiable (module attn.autograd.registry).
--
-- Recording happens at the op level: the functions the C bindings put in torch, in the Tensor's methods
-- and metatable, and in attention (the stages) are replaced here, in place, by wrappers, before any
-- other Lua module reads them. So every class built from ops (the book's attention classes, the
-- Transformer blocks, GPT) gets grad_fn without a line of its own.
--
-- HOW TO REGISTER AN OP'S BACKWARD (one line per op, after attn.autograd has loaded; it replaces the
-- stand-in of no_grad_ops.lua, which records the node and refuses when a backward reaches it):
--
--   local registry = require("attn.autograd.registry")
--   local extra = require("attn.autograd.formulas_extra")
--   local C = require("attn.bind")
--   for _, t in ipairs({C.torch, C.methods}) do
--       registry.op(t, "var", "VarBackward0", {1},
--           function(node, g, x, ...) return {extra.var_backward(g, x, ...)} end, {save = {1}})
--   end
--   registry.op(C.torch, "gather", "GatherBackward0", {1},
--       function(node, g, input, dim, index) return {extra.gather_backward(g, input, dim, index)} end,
--       {save = {1, 3}})
--
-- An op with several results (max(x, dim) -> values, indices) records the first; its backward reads
-- the others as node.ctx.outputs[2], ... (kept as they are: indices need no version check).
--
-- registry.op(tbl, key, name, inputs, backward [, opts]) wraps tbl[key]:
--   name      PyTorch's node class name (what grad_fn:name() and printing show), or a function of the
--             call's arguments returning it
--   inputs    the argument positions that are differentiable tensors (a list)
--   backward  function(node, grad, arg1, arg2, ...) -> a list of gradients indexed by argument position
--             (nil where none); the args are the call's own, saved tensors checked (freed graph,
--             in-place change) before backward sees them
--   opts      save = argument positions of the tensors backward reads (others are kept only as their
--             shapes: node.ctx.shapes[i]); save_output = true to read the result as node.ctx:output();
--             saves_state = true: a second backward is refused even when nothing was saved
-- Do it for both torch.<op> and the method (methods.<op>) when both exist.
local C = require("attn.bind")
local graph = require("attn.autograd.graph")
local errors = require("attn.errors")

local registry = {}
local meta = graph.meta
local is_tensor = C.torch.is_tensor
local bump = C.autograd.bump_version
registry.raw = {} -- tbl -> {key -> the original function}: the formulas call these (no recording)

local function raw_of(tbl)
    local r = registry.raw[tbl]
    if not r then
        r = {}
        registry.raw[tbl] = r
    end
    return r
end

-- Whether any argument (or any tensor in a list argument, as torch.cat's) requires grad.
local function any_requires_grad(n, ...)
    for i = 1, n do
        local a = select(i, ...)
        local m = meta[a]
        if m then
            if m.requires_grad or m.grad_fn then return true end
        elseif type(a) == "table" and getmetatable(a) == nil then
            for _, t in ipairs(a) do
                local mt = meta[t]
                if mt and (mt.requires_grad or mt.grad_fn) then return true end
            end
        end
    end
    return false
end
registry.any_requires_grad = any_requires_grad

-- A function that calls the original C function raw[key] by its name, as a field and not as a tail
-- call: the bindings name an error after the name they were called by (src/bind/args.c's as_called:
-- x:add_(y) reports "add_: ..." where the shared code says "add: ..."), which a call through a local
-- variable would lose. The chunk is named as the library's, so errors still point at the user's line.
local function named_caller(raw, key)
    if not key:match("^[%a_][%w_]*$") then
        local f = raw[key]
        return function(...) return (f(...)) end
    end
    -- as many results as the op gives (max with a dim: two), none added
    local code = string.format("local raw = ...\nreturn function(...)\n    local r = table.pack(raw.%s(...))\n"
                               .. "    return table.unpack(r, 1, r.n)\nend", key)
    return load(code, "=[attn]/autograd/registry.lua", "t")(raw)
end
registry.named_caller = named_caller

-- tbl[key] = a function that calls impl(orig, ...) when grad mode is on and an argument requires grad,
-- orig(...) otherwise. impl records the node.
function registry.wrap(tbl, key, impl)
    -- registering again replaces the earlier wrapper (e.g. refuse_unregistered's), not wraps it
    local raw = raw_of(tbl)
    raw[key] = raw[key] or tbl[key]
    assert(raw[key], key)
    if registry.pending[tbl] then registry.pending[tbl][key] = nil end -- a real backward replaces a stand-in
    local orig = named_caller(raw, key)
    -- the dispatch is C (src/bind/autograd.c): without grad the op runs in its frame, as before
    tbl[key] = C.autograd.wrap(raw[key], impl, graph, orig)
    return orig
end

local function make_backward(inputs, save, user_backward)
    return function(node, g)
        local args = {}
        local ctx = node.ctx
        for i, pos in ipairs(save) do args[pos] = node:saved(i) end
        for pos, v in pairs(ctx.plain) do args[pos] = v end
        return user_backward(node, g, table.unpack(args, 1, ctx.n))
    end
end

local ctx_mt = {__index = {output = function(self) return self.node:saved(self.out_index) end}}

-- Records a node for out = an op of args (args: the call's arguments, args.n of them).
function registry.record(out, name, inputs, backward, opts, args)
    opts = opts or {}
    local save = opts.save or {}
    local saved = {}
    for i, pos in ipairs(save) do saved[i] = args[pos] end
    local ctx = setmetatable({n = args.n, plain = {}, shapes = {}}, ctx_mt)
    local is_input = {}
    for _, pos in ipairs(inputs) do is_input[pos] = true end
    for pos = 1, args.n do
        local a = args[pos]
        if is_tensor(a) then
            ctx.shapes[pos] = a.shape
        elseif a ~= nil then
            ctx.plain[pos] = a -- numbers, dims, options: kept as they are
        end
    end
    if opts.save_output then
        saved[#saved + 1] = out
        ctx.out_index = #saved
    end
    local edges = {}
    for i, pos in ipairs(inputs) do edges[i] = args[pos] end
    local node = graph.node(name, edges, #inputs, saved, function(node, g)
        local by_pos = backward(node, g)
        local list = {}
        for i, pos in ipairs(inputs) do list[i] = by_pos[pos] end
        return list
    end, ctx, opts.saves_state)
    ctx.node = node
    graph.set_result(out, node)
    return node
end

-- Whether tbl[key] has a real backward (not no_grad_ops.lua's stand-in that refuses when reached).
function registry.has_backward(tbl, key)
    return raw_of(tbl)[key] ~= nil and not (registry.pending[tbl] and registry.pending[tbl][key])
end
registry.pending = {} -- tbl -> {key -> true}: no_grad_ops.lua's stand-ins

-- The recording half of registry.op: function(orig, ...) for registry.wrap (an op whose calls take
-- several forms, as x:max(dim) and x:max(other), dispatches to one recorder per form).
function registry.recorder(name, inputs, backward, opts)
    local bw = make_backward(inputs, (opts and opts.save) or {}, backward)
    return function(orig, ...)
        local r = table.pack(orig(...))
        local args = table.pack(...)
        local n = type(name) == "function" and name(...) or name
        local node = registry.record(r[1], n, inputs, bw, opts, args)
        if r.n > 1 then
            local others = {n = r.n} -- not the result itself: its node would keep it alive
            for i = 2, r.n do others[i] = r[i] end
            node.ctx.outputs = others
        end
        return table.unpack(r, 1, r.n)
    end
end

function registry.op(tbl, key, name, inputs, backward, opts)
    registry.wrap(tbl, key, registry.recorder(name, inputs, backward, opts))
end

-- ---- in-place ops -------------------------------------------------------------------------------


-- Every in-place op (add_, fill_, t[i] = v, ...) bumps its tensor's version; on a leaf that requires
-- grad it is refused while grad mode is on, as PyTorch refuses it (under torch.no_grad(), as an
-- optimizer's step or an initialiser, it is allowed). record(self, ...), called after the op, makes
-- the node of the result when recording (its edge is self's history before the op); nil means the op
-- has no gradient (fill_, uniform_: the result is a constant).
function registry.inplace(tbl, key, record)
    local raw = raw_of(tbl)
    raw[key] = raw[key] or tbl[key]
    assert(raw[key], key)
    local orig = named_caller(raw, key)
    tbl[key] = function(self, ...)
        local m = is_tensor(self) and meta[self]
        if graph.enabled and m and m.requires_grad and not m.grad_fn then
            errors.raisef("%s: a leaf Variable that requires grad is being used in an in-place operation.", key)
        end
        local base = m and m.base
        if graph.enabled and base and graph.requires_grad(base) then
            errors.raisef("%s: an in-place operation on a view of a tensor that requires grad is not supported by attn's autograd (PyTorch records it as CopySlices); use the op without _ and keep its result",
                          key)
        end
        local recording = graph.enabled and any_requires_grad(select("#", ...) + 1, self, ...)
        local out = orig(self, ...)
        bump(self)
        if recording and record then
            record(self, ...) -- the node's input edge is self's history before this op
        elseif m and m.grad_fn and recording then
            m.grad_fn = nil -- a constant overwrote the values: no history left
        end
        return out
    end
end

return registry
