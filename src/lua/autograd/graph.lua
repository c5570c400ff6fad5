-- graph.lua — the autograd graph (module attn.autograd.graph): what each tensor knows about gradients,
-- and the nodes that record how a result was made.
--
-- A tensor is a C userdata with no room for Lua values, so its autograd state lives in one weak-keyed
-- table, graph.meta[t] = {requires_grad = bool (leaves), grad = tensor, grad_fn = node (results),
-- retains_grad = bool, base = tensor (views: the tensor viewed)}. Weak keys: a tensor that Lua
-- collects takes its entry with it; the table is an ephemeron table, so an entry whose node holds the
-- tensor itself (a saved output) does not keep it alive.
--
-- A node is PyTorch's Function object: name (PyTorch's class name, "MmBackward0"), seq (creation
-- order: the engine runs later nodes first, as PyTorch's ready queue does), next (one edge per input:
-- the input's grad_fn, or the AccumulateGrad node of a leaf, or false where no gradient flows),
-- backward (grad -> the inputs' grads) and the tensors it saved with the version each had when saved.
local C = require("attn.bind")
local errors = require("attn.errors")
local trf = require("attn.i18n").trf
local function N(msgid) return msgid end -- a msgid for the catalogs, translated where it is raised

local graph = {}

local meta = setmetatable({}, {__mode = "k"})
graph.meta = meta

local is_tensor = C.torch.is_tensor
local version = C.autograd.version

-- Grad mode: torch.no_grad() turns recording off (grad_mode.lua sets it).
graph.enabled = true

local seq = 0

function graph.requires_grad(t)
    local m = meta[t]
    return m ~= nil and (m.requires_grad == true or m.grad_fn ~= nil)
end

function graph.get(t)
    local m = meta[t]
    if not m then
        m = {}
        meta[t] = m
    end
    return m
end

-- ---- nodes ------------------------------------------------------------------------------------

local Node = {}
Node.__index = Node
graph.Node = Node

function Node:name()
    return self._name
end

-- next_functions as PyTorch lists them: {{node, 0}, {nil, 0}, ...} (an input without a gradient has
-- nil, PyTorch's None).
function Node:__index_next_functions()
    local list = {}
    for i = 1, self.n_inputs do
        local e = self.next[i]
        list[i] = {e or nil, 0}
    end
    return list
end

local node_mt = {
    __index = function(self, k)
        if k == "next_functions" then return Node.__index_next_functions(self) end
        return Node[k]
    end,
    __tostring = function(self)
        return string.format("<%s object>", self._name)
    end,
    __name = "Node",
}

-- The AccumulateGrad node of a leaf that requires grad: one per leaf, kept in its meta (PyTorch keeps
-- it weakly and remakes it; one that lives as long as the leaf is simpler and the same to a user).
function graph.accumulate_node(t)
    local m = graph.get(t)
    if not m.acc then
        m.acc = setmetatable({_name = "AccumulateGrad", seq = math.huge, variable = t, next = {}, n_inputs = 0},
                             node_mt)
    end
    return m.acc
end

-- The edge into the graph for input t: its grad_fn, its AccumulateGrad node, or false.
function graph.edge(t)
    local m = is_tensor(t) and meta[t]
    if not m then return false end
    if m.grad_fn then return m.grad_fn end
    if m.requires_grad then return graph.accumulate_node(t) end
    return false
end

-- PyTorch's words, translated where the error is raised (errors.raisef): it was always English
local FREED = N("Trying to backward through the graph a second time (or directly access saved tensors after "
    .. "they have already been freed). Saved intermediate values of the graph are freed when you call "
    .. ":backward() or torch.autograd.grad(). Specify {retain_graph = true} if you need to backward through "
    .. "the graph a second time or if you need to access saved tensors after calling backward.")

-- "[torch.FloatTensor [2, 3]]", as PyTorch names a tensor in its version error
local function describe(t)
    local kind = ({float32 = "torch.FloatTensor", int64 = "torch.LongTensor", bool = "torch.BoolTensor"})
        [tostring(t.dtype):match("torch%.(.*)")] or "torch.Tensor"
    local dims = {}
    for i = 1, t.ndim do dims[i] = tostring(t.shape[i]) end
    return string.format("[%s [%s]]", kind, table.concat(dims, ", "))
end

-- Refuses a node whose saved state a backward has freed (PyTorch's error on a second backward).
function Node:check_unfreed()
    if self.freed then errors.raisef(FREED) end
end

-- A saved tensor, checked as PyTorch's SavedVariable::unpack checks it: freed by a backward, or
-- changed in place since it was saved.
function Node:saved(i)
    if self.freed or not self.saved_tensors then errors.raisef(FREED) end
    local t = self.saved_tensors[i]
    local want = self.saved_versions[i]
    local now = version(t)
    if now ~= want then
        -- the node that made it, as PyTorch's SavedVariable names it: for the node's own output, itself
        -- (saved before any in-place op replaced the tensor's grad_fn); for an input, its grad_fn now
        local m = meta[t]
        local maker = (self.ctx and self.ctx.out_index == i and self._name) or (m and m.grad_fn and m.grad_fn._name)
        local what = maker and trf(", which is output 0 of %s,", maker) or ""
        errors.raisef("one of the variables needed for gradient computation has been modified by an inplace "
                      .. "operation: %s%s is at version %d; expected version %d instead.",
                      describe(t), what, now, want)
    end
    return t
end

-- Drops what a backward needed (after a backward without retain_graph): the graph's memory goes.
function Node:release()
    if (self.saved_tensors and #self.saved_tensors > 0) or self.saves_state then
        self.freed = true
    end
    self.saved_tensors, self.saved_versions = nil, nil -- ctx stays: shapes and numbers, no tensors
end

-- Makes a node. spec: name, inputs (a list, n of them, entries tensors or nil), saved (a list of
-- tensors), backward = function(node, grad) -> list of grads by input position, ctx (anything the
-- formula needs besides saved tensors: shapes, dims, scalars), saves_state (true: a backward frees the
-- node even when it saved no tensor, as PyTorch's node that saved a number operand).
function graph.node(name, inputs, n, saved, backward, ctx, saves_state)
    seq = seq + 1
    local next = {}
    for i = 1, n do next[i] = graph.edge(inputs[i]) end
    local versions = {}
    for i, t in ipairs(saved) do versions[i] = version(t) end
    return setmetatable({_name = name, seq = seq, next = next, n_inputs = n, saved_tensors = saved,
                         saved_versions = versions, backward = backward, ctx = ctx, saves_state = saves_state},
                        node_mt)
end

-- Makes out a result of node: its grad_fn (a non-leaf).
function graph.set_result(out, node)
    local m = graph.get(out)
    m.grad_fn = node
    m.requires_grad = nil
end

function graph.is_node(v)
    return getmetatable(v) == node_mt
end

return graph
