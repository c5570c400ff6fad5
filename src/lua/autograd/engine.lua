-- engine.lua — running a backward pass (module attn.autograd.engine): t:backward() and
-- torch.autograd.grad.
--
-- As PyTorch's engine on the CPU: count each node's incoming edges from the roots, then run the ready
-- nodes latest-made first (a max-heap on the node's creation number, PyTorch's ready queue order), each
-- node's incoming gradients summed in the order they arrive (so a tensor used three times gets
-- (g1 + g2) + g3 as PyTorch's InputBuffer adds them). Grad mode is off while formulas run.
--
-- Ctrl-C: nothing a user can see changes until every node has run. The new .grad of each leaf (and of
-- each retain_grad tensor) is computed aside; at the end they are stored by plain assignments inside a
-- coroutine, which the Ctrl-C hook (set on the main thread: src/cli/main.c) does not reach, so the
-- store is all or nothing. The coroutine is made once, when this module loads: a coroutine made later
-- would inherit the hook the main thread has at that moment.
local C = require("attn.bind")
local graph = require("attn.autograd.graph")
local errors = require("attn.errors")

local engine = {}

local store = coroutine.wrap(function(list)
    while true do
        for _, p in ipairs(list) do
            graph.get(p[1]).grad = p[2]
        end
        -- dropped before waiting: a suspended coroutine keeps its locals, and the list would keep every
        -- gradient of this backward alive until the next one (after zero_grad, a whole model's worth)
        list = nil
        list = coroutine.yield()
    end
end)
local meta = graph.meta
local add = C.methods.add
local clone = C.methods.clone
local is_sole = C.autograd.is_sole

-- ---- a max-heap of nodes by seq -----------------------------------------------------------------

local function push(heap, node)
    local i = #heap + 1
    heap[i] = node
    while i > 1 do
        local p = i // 2
        if heap[p].seq >= heap[i].seq then break end
        heap[p], heap[i] = heap[i], heap[p]
        i = p
    end
end

local function pop(heap)
    local top, n = heap[1], #heap
    heap[1] = heap[n]
    heap[n] = nil
    n = n - 1
    local i = 1
    while true do
        local l, r, m = 2 * i, 2 * i + 1, i
        if l <= n and heap[l].seq > heap[m].seq then m = l end
        if r <= n and heap[r].seq > heap[m].seq then m = r end
        if m == i then break end
        heap[m], heap[i] = heap[i], heap[m]
        i = m
    end
    return top
end

-- The number of edges into each node reachable from the roots.
local function dependencies(roots)
    local deps, seen, stack = {}, {}, {}
    for _, r in ipairs(roots) do
        if not seen[r] then
            seen[r] = true
            stack[#stack + 1] = r
        end
    end
    while #stack > 0 do
        local node = table.remove(stack)
        for i = 1, node.n_inputs do
            local e = node.next[i]
            if e then
                deps[e] = (deps[e] or 0) + 1
                if not seen[e] then
                    seen[e] = true
                    stack[#stack + 1] = e
                end
            end
        end
    end
    return deps
end

-- held[g] counts the places a gradient tensor has been handed to (a node's input buffer, a retained
-- grad, a captured result; a root gradient, the caller's, counts once more): a leaf's new gradient
-- handed out once, made during this backward and alone on its storage, is kept as its .grad, as
-- PyTorch's AccumulateGrad steals a gradient nothing else refers to. Any other is copied (clone), so
-- that no two .grad share numbers and a user's tensor never becomes one.
local function accumulate(buffers, node, g, held)
    local old = buffers[node]
    held[g] = (held[g] or 0) + 1
    if old then
        local sum = add(old, g)
        held[sum] = 1
        buffers[node] = sum
    else
        buffers[node] = g
    end
end

-- A view of g that Lua has not collected yet (garbage: embedding's backward adds each row through one)
-- still counts on g's storage. Copying a large g for that would add its size to the step's peak, so
-- for one of at least COLLECT_FOR bytes the collector runs first (once per backward: Lua's own heap is
-- small next to a gradient of that size) and g is asked again.
local COLLECT_FOR = 16 * 1024 * 1024

local function may_keep(g, held, state)
    if held[g] ~= 1 or meta[g] ~= nil then return false end
    if is_sole(g) then return true end
    if state.collected or g:numel() * 4 < COLLECT_FOR then return false end
    state.collected = true
    collectgarbage()
    return is_sole(g)
end

-- Runs the graph from roots (nodes) with their gradients. capture: nil for backward (leaves get .grad),
-- or a set of nodes whose incoming gradient torch.autograd.grad returns (then no .grad changes).
-- Returns the captured gradients by node.
function engine.run(roots, grads, retain_graph, capture)
    local deps = dependencies(roots)
    local buffers, heap, captured = {}, {}, {}
    local pending = {} -- {tensor, new grad} stored at the end
    local held = setmetatable({}, {__mode = "k"})
    for i, r in ipairs(roots) do
        held[grads[i]] = 1 -- the caller's
        accumulate(buffers, r, grads[i], held)
    end
    for _, r in ipairs(roots) do
        if (deps[r] or 0) == 0 then
            deps[r] = -1 -- pushed once
            push(heap, r)
        end
    end
    local was_enabled = graph.enabled
    graph.enabled = false
    local ok, err = pcall(function()
        while #heap > 0 do
            local node = pop(heap)
            local g = buffers[node]
            buffers[node] = nil
            if capture and capture[node] then
                captured[node] = g
                if g then held[g] = (held[g] or 0) + 1 end
            end
            if node.retained and not capture then
                for t in pairs(node.retained) do
                    pending[#pending + 1] = {t, g}
                    if g then held[g] = (held[g] or 0) + 1 end
                end
            end
            local out
            if node._name == "AccumulateGrad" then
                if not capture and g then
                    pending[#pending + 1] = {node.variable, g}
                end
            elseif g then
                out = node:backward(g)
            end
            for i = 1, node.n_inputs do
                local e = node.next[i]
                if e then
                    if out and out[i] then
                        accumulate(buffers, e, out[i], held)
                    end
                    deps[e] = deps[e] - 1
                    if deps[e] == 0 then push(heap, e) end
                end
            end
            if not retain_graph then node:release() end
        end
        -- the new grads, computed before anything is stored (a Ctrl-C here changes nothing either)
        local new, order, state = {}, {}, {}
        for _, p in ipairs(pending) do
            local t = p[1]
            if new[t] then
                new[t] = add(new[t], p[2])
            else
                local old = meta[t] and meta[t].grad
                if old then
                    new[t] = add(old, p[2])
                elseif may_keep(p[2], held, state) then
                    new[t] = p[2]
                else
                    new[t] = clone(p[2])
                end
                order[#order + 1] = t
            end
        end
        pending = {}
        for i, t in ipairs(order) do pending[i] = {t, new[t]} end
    end)
    graph.enabled = was_enabled
    if not ok then error(err, 0) end
    store(pending)
    return captured
end

return engine
