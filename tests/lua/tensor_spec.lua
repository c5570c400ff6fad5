-- The tensor API as a reader of a PyTorch book uses it: creation, shapes, 1-based indexing, views,
-- broadcasting, reductions, matmul's cases, masks and softmax. Expected values are small cases
-- worked by hand (integers, so exact) or PyTorch's documented behaviour; the texts are what torch 1.13
-- prints for the same Python line (integer literals make int64 tensors there as here).
local torch = torch

local function T(x) return torch.tensor(x) end
local function S(t) return tostring(t) end

describe("creation", function()
    it("tensor from nested tables, numbers and booleans", function()
        assert.are.equal("tensor([[1, 2],\n        [3, 4]])", S(T{{1, 2}, {3, 4}}))
        assert.are.equal("tensor([[1., 2.],\n        [3., 4.]])", S(T{{1.0, 2.0}, {3.0, 4.0}}))
        assert.are.equal("tensor([1.0000, 2.5000])", S(T{1, 2.5})) -- one float makes it float32
        assert.are.equal("tensor(3.5000)", S(T(3.5)))
        assert.are.equal("tensor([ True, False])", S(T{true, false}))
        assert.are.equal("tensor([])", S(T{}))
        assert.are.equal("tensor([1, 2])", S(T(T{1, 2}))) -- copies
        assert.are.equal("tensor([3., 4.])", S(T{T(3), T{4.0}})) -- one-element tensors count as numbers
    end)
    it("zeros, ones, empty, full, eye, arange, *_like", function()
        assert.are.equal("tensor([[0., 0., 0.],\n        [0., 0., 0.]])", S(torch.zeros(2, 3)))
        assert.are.equal(S(torch.zeros(2, 3)), S(torch.zeros{2, 3}))
        assert.are.equal(S(torch.ones(2, 3)), S(torch.ones(torch.zeros(2, 3).shape)))
        assert.are.equal("tensor([[7, 7]])", S(torch.full({1, 2}, 7)))
        assert.are.equal("tensor([[7., 7.]])", S(torch.full({1, 2}, 7.0)))
        assert.are.equal("tensor([[1., 0., 0.],\n        [0., 1., 0.]])", S(torch.eye(2, 3)))
        assert.are.equal("tensor([0, 1, 2, 3, 4])", S(torch.arange(5)))
        assert.are.equal("tensor([0., 1., 2., 3., 4.])", S(torch.arange(5.0)))
        assert.are.equal("tensor([2.0000, 2.5000, 3.0000, 3.5000])", S(torch.arange(2, 4, 0.5)))
        assert.are.equal("tensor([[1., 1.]])", S(torch.ones_like(torch.zeros(1, 2))))
        assert.are.equal("tensor([[False, False]])", S(torch.zeros(1, 2, {dtype = torch.bool})))
        assert.are.equal(2, torch.empty(2):numel())
    end)
    it("stack and cat along a 1-based dim", function()
        local a, b = T{1.0, 2.0}, T{3.0, 4.0}
        assert.are.equal("tensor([[1., 2.],\n        [3., 4.]])", S(torch.stack({a, b})))
        assert.are.equal("tensor([[1., 3.],\n        [2., 4.]])", S(torch.stack({a, b}, 2)))
        assert.are.equal("tensor([[1., 3.],\n        [2., 4.]])", S(torch.stack({a, b}, {dim = -1})))
        assert.are.equal("tensor([1., 2., 3., 4.])", S(torch.cat{a, b}))
        assert.are.equal("tensor([1., 2., 3., 4.])", S(torch.cat{a, T{3, 4}})) -- int64 and float32: float32
        assert.are.equal("torch.Size([2, 4])", S(torch.cat({torch.ones(2, 1), torch.ones(2, 3)}, -1).shape))
    end)
end)

describe("shape, size and torch.Size", function()
    local x = torch.zeros(2, 6, 3)
    it("prints and indexes like PyTorch's, counting from 1", function()
        assert.are.equal("torch.Size([2, 6, 3])", S(x.shape))
        assert.are.equal(2, x.shape[1])
        assert.are.equal(3, x.shape[-1])
        assert.are.equal(3, #x.shape)
        assert.are.equal(6, x:size(2))
        assert.are.equal(x.shape, x:size())
        assert.are.equal(torch.Size{2, 6, 3}, x.shape)
        assert.are.equal(36, x.shape:numel())
        assert.are.equal("torch.Size([])", S(T(1).shape))
        assert.are.equal(3, x.ndim)
        assert.are.equal(3, x:dim())
        assert.are.equal(2, #x)
        assert.are.equal(36, x:numel())
        assert.are.equal("shape: torch.Size([2, 6, 3])", "shape: " .. x.shape)
        local b, n, d = table.unpack(x.shape)
        assert.are.same({2, 6, 3}, {b, n, d})
    end)
    it("dtype", function()
        assert.are.equal("torch.float32", S(x.dtype))
        assert.are.equal("torch.bool", S(x:bool().dtype))
    end)
end)

describe("indexing (1-based, as in the book's math)", function()
    local x = T{{1, 2, 3}, {4, 5, 6}}
    it("x[i] is a row view; a 1-D x[i] is a number", function()
        assert.are.equal("tensor([4, 5, 6])", S(x[2]))
        assert.are.equal(6, x[2][3])
        assert.are.equal(6, x[-1][-1])
    end)
    -- PyTorch: IndexError "index 2 is out of bounds for dimension 0 with size 2"; it was nil, for Lua's
    -- ipairs to stop there: attn's ipairs (src/lua/ipairs.lua) stops at #x itself
    it("one past the end is an error, as any index out of range; ipairs and #x walk the rows", function()
        local inputs = torch.rand(6, 3)
        local ok, err = pcall(function() return inputs[7] end)
        assert.is_false(ok)
        assert.matches("^tests/lua/tensor_spec.lua:%d+: index: index 7 is out of range for dim 1 of size 6", err)
        ok, err = pcall(function() inputs[7] = 1 end)
        assert.matches("^tests/lua/tensor_spec.lua:%d+: assign: index 7 is out of range", err)
        ok, err = pcall(function() return x[3] end)
        assert.matches("index 3 is out of range for dim 1 of size 2", err)
        assert.are.equal(6, #inputs)
        local seen = {}
        for i, row in ipairs(inputs) do seen[#seen + 1] = i .. "=" .. tostring(row:equal(inputs[i])) end
        assert.are.equal("1=true 2=true 3=true 4=true 5=true 6=true", table.concat(seen, " "))
        -- with gradients (the recorded path of indexing), and a 1-D tensor (rows are numbers)
        local w = torch.rand(4, 2):requires_grad_()
        local n = 0
        for _, row in ipairs(w) do n = n + 1; assert.are.equal("SelectBackward0", row.grad_fn:name()) end
        assert.are.equal(4, n)
        assert.matches("index 5 is out of range", select(2, pcall(function() return w[5] end)))
        local v = {}
        for i, e in ipairs(T{7, 8, 9}) do v[i] = e end
        assert.are.same({7, 8, 9}, v)
        assert.matches("iteration over a 0%-d tensor", select(2, pcall(ipairs, torch.tensor(1))))
        -- Lua's lists are walked as ever
        local list = {}
        for i, s in ipairs({"a", "b"}) do list[i] = s end
        assert.are.same({"a", "b"}, list)
    end)
    it("tables select several dims and ranges", function()
        assert.are.equal(5, x[{2, 2}])
        assert.are.equal("tensor([2, 5])", S(x[{{}, 2}]))
        assert.are.equal("tensor([[2, 3],\n        [5, 6]])", S(x[{{}, {2, 3}}]))
        assert.are.equal("tensor([[1, 2]])", S(x[{{1}, {1, 2}}]))
        assert.are.equal("tensor([3, 6])", S(x[{":", -1}]))
    end)
    it("views share memory with the tensor they come from", function()
        local y = torch.zeros(2, 3)
        local row = y[2]
        row[1] = 7
        y[1] = 1
        y[{{}, 3}] = T{8, 9}
        assert.are.equal("tensor([[1., 1., 8.],\n        [7., 0., 9.]])", S(y))
        y.T[1] = 5 -- writing through a transposed view
        assert.are.equal("tensor([[5., 1., 8.],\n        [5., 0., 9.]])", S(y))
    end)
    it("ipairs and pairs walk the rows in order", function()
        local seen = {}
        for i, row in ipairs(x) do seen[#seen + 1] = i .. ":" .. S(row) end
        assert.are.same({"1:tensor([1, 2, 3])", "2:tensor([4, 5, 6])"}, seen)
        local keys = {}
        for i in pairs(x) do keys[#keys + 1] = i end
        assert.are.same({1, 2}, keys)
    end)
    it("item and tolist give Lua values", function()
        assert.are.equal(5, x[2][2])
        assert.are.equal(21, x:sum():item())
        assert.are.same({{1, 2, 3}, {4, 5, 6}}, x:tolist())
        assert.are.same({true, false}, T{true, false}:tolist())
        assert.are.equal(2.5, T(2.5):tolist())
    end)

    it("tolist refuses a shape that would make too many Lua tables, empty or not", function()
        local ok, err = pcall(function() return torch.ones(math.maxinteger, 0):tolist() end)
        assert.is_false(ok)
        assert.matches("tolist: a tensor of shape %[9223372036854775807, 0%] is too large", err)
        assert.are.same({{}, {}, {}}, torch.ones(3, 0):tolist())
        assert.are.same({}, torch.ones(0, math.maxinteger):tolist())
    end)
end)

describe("views", function()
    local x = T{{1, 2, 3}, {4, 5, 6}}
    it("transpose, T, t, permute", function()
        assert.are.equal("tensor([[1, 4],\n        [2, 5],\n        [3, 6]])", S(x.T))
        assert.are.equal(S(x.T), S(x:transpose(1, 2)))
        assert.are.equal(S(x.T), S(x:t()))
        assert.are.equal("torch.Size([3, 1, 2])", S(torch.zeros(1, 2, 3):permute(3, 1, 2).shape))
        assert.are.equal("torch.Size([4, 3, 2])", S(torch.zeros(2, 3, 4).T.shape))
        assert.is_false(x.T:is_contiguous())
    end)
    it("view, reshape, flatten, contiguous", function()
        assert.are.equal("tensor([[1, 2],\n        [3, 4],\n        [5, 6]])", S(x:view(3, 2)))
        assert.are.equal("torch.Size([3, 2])", S(x:view(-1, 2).shape))
        assert.are.equal("tensor([1, 4, 2, 5, 3, 6])", S(x.T:reshape(6)))
        assert.are.equal("tensor([1, 4, 2, 5, 3, 6])", S(x.T:contiguous():view(6)))
        assert.are.equal("torch.Size([6])", S(x:flatten().shape))
        assert.are.equal("torch.Size([2, 12])", S(torch.zeros(2, 3, 4):flatten(2).shape))
    end)
    it("narrow, select, unsqueeze, squeeze, expand", function()
        assert.are.equal("tensor([[2, 3],\n        [5, 6]])", S(x:narrow(2, 2, 2)))
        assert.are.equal("tensor([2, 5])", S(x:select(2, 2)))
        assert.are.equal("torch.Size([2, 1, 3])", S(x:unsqueeze(2).shape))
        assert.are.equal("torch.Size([2, 3, 1])", S(x:unsqueeze(-1).shape))
        assert.are.equal("torch.Size([2, 3])", S(x:unsqueeze(1):squeeze().shape))
        assert.are.equal("tensor([[1, 2],\n        [1, 2]])", S(T{1, 2}:expand(2, 2)))
        assert.are.equal("tensor([[1., 1.],\n        [2., 2.]])", S(T{{1.0}, {2.0}}:expand(-1, 2))) -- -1 keeps
    end)
    it("clone does not share memory", function()
        local c = x:clone()
        c[1][1] = 100
        assert.are.equal(1, x[1][1])
    end)
end)

describe("element-wise arithmetic with broadcasting", function()
    local a = T{{1, 2, 3}, {4, 5, 6}}
    it("operators with tensors and numbers on either side", function()
        assert.are.equal("tensor([[2, 4, 6],\n        [5, 7, 9]])", S(a + T{1, 2, 3}))
        assert.are.equal("tensor([[0, 1, 2],\n        [2, 3, 4]])", S(a - T{{1}, {2}}))
        assert.are.equal("tensor([[ 2,  4,  6],\n        [ 8, 10, 12]])", S(2 * a))
        assert.are.equal("tensor([[ 2.,  4.,  6.],\n        [ 8., 10., 12.]])", S(2.0 * a)) -- a Lua float: float32
        assert.are.equal("tensor([0.5000, 1.0000, 1.5000])", S(a[1] / 2)) -- true division
        assert.are.equal("tensor([12.,  6.,  4.])", S(12 / a[1]))
        assert.are.equal("tensor([1, 4, 9])", S(a[1] ^ 2))
        assert.are.equal("tensor([1.0000, 1.4142, 1.7321])", S(a[1] ^ 0.5))
        assert.are.equal("tensor([-1, -2, -3])", S(-a[1]))
        assert.are.equal("tensor([ 9, 10, 11])", S(10 - T{1, 0, -1}))
        assert.are.equal("Sum: tensor(21)", "Sum: " .. a:sum())
        assert.are.equal("Sum: tensor(21.)", "Sum: " .. a:float():sum())
    end)
    it("math functions", function()
        assert.are.equal("tensor([1., 2., 3.])", S(T{1, 4, 9}:sqrt()))
        assert.are.equal("tensor([0., 2.])", S(torch.log(T{1, math.exp(2)})))
        assert.are.equal("tensor([0, 2])", S(T{-1, 2}:relu()))
        assert.are.equal("tensor([1, 2])", S(T{-1, 2}:abs()))
        assert.are.equal("tensor([-0., 0., 2.])", S(T{-0.0, -1.0, 2.0}:relu())) -- relu keeps -0.0, as clamp_min
        assert.are.equal("tensor([0.5000])", S(T{0}:sigmoid()))
        assert.are.equal("tensor([0.])", S(T{0}:tanh()))
        assert.are.equal("tensor([3, 2])", S(torch.maximum(T{3, 1}, T{2, 2})))
    end)
    it("comparisons give bool tensors", function()
        assert.are.equal("tensor([False,  True,  True])", S(T{1, 2, 3}:gt(1)))
        assert.are.equal("tensor([ True, False, False])", S(T{0, 1, 2}:eq(0)))
        assert.are.equal("tensor([False,  True])", S(T{1, 2}:ge(T{2, 2})))
        assert.are.equal("tensor([ True, False])", S(T{true, true}:logical_and(T{true, false})))
        assert.are.equal("tensor([False,  True])", S(T{true, false}:logical_not()))
    end)
    it("in-place variants change the tensor and return it", function()
        local t = T{1, 2}
        assert.are.equal(t, t:add_(1))
        t:mul_(T{2, 3})
        assert.are.equal("tensor([4, 9])", S(t))
        t:fill_(0)
        assert.are.equal("tensor([0, 0])", S(t))
    end)
    it("where picks element-wise", function()
        assert.are.equal("tensor([1, 0, 3])", S(torch.where(T{true, false, true}, T{1, 2, 3}, 0)))
        assert.are.equal("tensor([1.0000, 0.5000, 3.0000])", S(torch.where(T{true, false, true}, T{1, 2, 3}, 0.5)))
        -- the method keeps x where the condition holds, as PyTorch's x.where(cond, y)
        assert.are.equal("tensor([1, 0, 3])", S(T{1, 2, 3}:where(T{true, false, true}, 0)))
    end)
end)

describe("reductions", function()
    local x = T{{1, 5, 3}, {4, 2, 6}}
    it("sum and mean, over everything or a dim, with keepdim", function()
        assert.are.equal("tensor(21)", S(x:sum()))
        assert.are.equal("tensor([ 9, 12])", S(x:sum(2)))
        assert.are.equal("tensor([ 9, 12])", S(x:sum(-1)))
        assert.are.equal("tensor([5, 7, 9])", S(x:sum(1)))
        assert.are.equal("tensor([[ 9],\n        [12]])", S(x:sum(-1, true)))
        assert.are.equal(S(x:sum(-1, true)), S(x:sum{dim = -1, keepdim = true}))
        assert.are.equal(S(x:sum(-1, true)), S(torch.sum(x, {dim = 2, keepdim = true})))
        assert.are.equal("tensor(2)", S(T{true, false, true}:sum())) -- a bool sum counts: int64
        assert.are.equal("tensor(3.5000)", S(x:float():mean()))
        assert.are.equal("tensor([3., 4.])", S(x:float():mean(2)))
    end)
    it("max and min give values and 1-based indices along a dim", function()
        assert.are.equal("tensor(6)", S(x:max()))
        local v, i = x:max(2)
        assert.are.equal("tensor([5, 6])", S(v))
        assert.are.equal("tensor([2, 3])", S(i)) -- int64 indices (1-based here)
        local mv, mi = x:min(1)
        assert.are.equal("tensor([1, 2, 3])", S(mv))
        assert.are.equal("tensor([1, 2, 1])", S(mi))
        assert.are.equal("tensor(6)", S(x:argmax()))
        assert.are.equal("tensor([2, 3])", S(x:argmax(2)))
        assert.are.equal("torch.int64", S(x:float():argmax().dtype))
    end)
end)

describe("matmul with PyTorch's semantics", function()
    local A = T{{1, 2, 3}, {4, 5, 6}}          -- [2, 3]
    local v = T{1, 0, -1}                       -- [3]
    it("vector · vector is a 0-d dot product", function()
        assert.are.equal("tensor(-2)", S(v:matmul(T{1, 2, 3})))
        assert.are.equal("tensor(-2)", S(torch.dot(v, T{1, 2, 3})))
        assert.are.equal("tensor(-2.)", S(v:float():matmul(T{1.0, 2.0, 3.0})))
    end)
    it("matrix · vector, vector · matrix, matrix · matrix", function()
        assert.are.equal("tensor([-2, -2])", S(A:matmul(v)))
        assert.are.equal("tensor([ 9, 12, 15])", S(T{1, 2}:matmul(A)))
        assert.are.equal("tensor([[14, 32],\n        [32, 77]])", S(A:matmul(A.T)))
        assert.are.equal("tensor([[14., 32.],\n        [32., 77.]])", S(A:float():matmul(A.T:float())))
        assert.are.equal(S(A:matmul(A.T)), S(torch.mm(A, A:t())))
        assert.are.equal(S(A:matmul(A.T)), S(torch.matmul(A, A.T:contiguous())))
    end)
    it("batched, with batch dims broadcast", function()
        local B = torch.stack({A, 2 * A})       -- [2, 2, 3]
        local out = B:matmul(A.T)               -- [2, 2, 3] x [3, 2]
        assert.are.equal("torch.Size([2, 2, 2])", S(out.shape))
        assert.are.equal("tensor([[ 28,  64],\n        [ 64, 154]])", S(out[2]))
        assert.are.equal("torch.Size([2, 2, 2])", S(B:matmul(B:transpose(2, 3)).shape))
        assert.are.equal("torch.Size([3, 2, 2, 2])", S(torch.ones(3, 1, 2, 3):matmul(torch.ones(2, 3, 2)).shape))
        assert.are.equal("torch.Size([2, 2])", S(B:matmul(v).shape))
        assert.are.equal("torch.Size([2, 3])", S(torch.bmm(B:float(), torch.ones(2, 3, 3)):select(2, 1).shape))
    end)
    it("handles empty operands as PyTorch does (a sum over nothing is 0)", function()
        assert.are.equal("tensor([[0., 0.],\n        [0., 0.]])", S(torch.ones(2, 0):matmul(torch.ones(0, 2))))
        assert.are.equal("tensor([], size=(0, 2))", S(torch.ones(0, 3):matmul(torch.ones(3, 2))))
        assert.are.equal("torch.Size([2, 3, 4])", S(torch.ones(2, 3, 0):matmul(torch.ones(0, 4)).shape))
    end)
    it("agrees with a plain Lua triple loop on a random 7x5 by 5x4 product", function()
        torch.manual_seed(1)
        local a, b = torch.rand(7, 5), torch.rand(5, 4)
        local c = a:matmul(b)
        for i = 1, 7 do
            for j = 1, 4 do
                local s = 0
                for k = 1, 5 do s = s + a[i][k] * b[k][j] end
                assert.is_true(math.abs(c[i][j] - s) < 1e-6)
            end
        end
    end)
end)

describe("masks and softmax", function()
    it("tril and triu with a diagonal", function()
        local o = torch.ones(3, 3)
        assert.are.equal("tensor([[1., 0., 0.],\n        [1., 1., 0.],\n        [1., 1., 1.]])", S(torch.tril(o)))
        assert.are.equal("tensor([[0., 1., 1.],\n        [0., 0., 1.],\n        [0., 0., 0.]])", S(torch.triu(o, 1)))
        assert.are.equal(S(torch.triu(o, 1)), S(o:triu{diagonal = 1}))
        assert.are.equal("tensor([[1., 1., 0.],\n        [1., 1., 1.],\n        [1., 1., 1.]])", S(o:tril(1)))
    end)
    it("masked_fill with a bool mask (true = fill), broadcast, in place or not", function()
        local s = torch.zeros(2, 2)
        local m = T{{false, true}, {false, false}}
        assert.are.equal("tensor([[0., -inf],\n        [0., 0.]])", S(s:masked_fill(m, -torch.inf)))
        assert.are.equal("tensor([[0., 0.],\n        [0., 0.]])", S(s))
        s:masked_fill_(T{true, false}, 5)
        assert.are.equal("tensor([[5., 0.],\n        [5., 0.]])", S(s))
        -- Python Deep Learning's convention: a 0 in the mask means "hide"
        local mask = T{1, 0, 1}
        assert.are.equal("tensor([ 1.0000e+00, -1.0000e+09,  3.0000e+00])",
                         S(T{1.0, 2.0, 3.0}:masked_fill(mask:eq(0), -1e9)))
        assert.are.equal("tensor([1, 9, 3])", S(T{1, 2, 3}:masked_fill(mask:eq(0), 9)))
    end)
    it("softmax rows sum to one; -inf gets weight 0; dims are 1-based", function()
        local w = torch.softmax(T{{1, 1}, {0, -torch.inf}}, -1) -- one float (-inf): float32
        assert.are.equal("tensor([[0.5000, 0.5000],\n        [1.0000, 0.0000]])", S(w))
        local s = T{{1.0, 0.0}, {0.0, 0.0}}
        assert.are.equal("tensor([[0.7311, 0.5000],\n        [0.2689, 0.5000]])", S(torch.softmax(s, 1)))
        assert.are.equal(S(torch.softmax(s, 1)), S(s:softmax{dim = 1}))
        assert.are.equal("tensor([-0.6931, -0.6931])", S(torch.log_softmax(T{3.0, 3.0}, 1)))
        -- large scores do not overflow (the row maximum is subtracted first)
        assert.are.equal("tensor([0., 1.])", S(torch.softmax(T{0.0, 1000.0}, 1)))
    end)
end)

describe("printing through the REPL's conventions", function()
    it("tostring, print and .. all give PyTorch's text", function()
        assert.are.equal("x = tensor([1., 2.])", "x = " .. T{1.0, 2.0})
        assert.are.equal("tensor([1, 2]) = x", T{1, 2} .. " = x")
    end)
    it("set_printoptions changes precision and back", function()
        torch.set_printoptions{precision = 2}
        assert.are.equal("tensor([0.33])", S(T{1 / 3}))
        torch.set_printoptions{profile = "default"}
        assert.are.equal("tensor([0.3333])", S(T{1 / 3}))
    end)
end)

describe("memory", function()
    it("is returned to the system when tensors are garbage (a loop of 4 MB tensors stays flat)", function()
        collectgarbage()
        local base = torch.memory_allocated()
        local peak = 0
        for _ = 1, 300 do -- 1.2 GB in all
            local t = torch.ones(1000, 1000) * 2
            peak = math.max(peak, torch.memory_allocated() - base)
            assert.are.equal(4, t[1000][1000] * 2)
        end
        -- Lua's collector runs as tensors are made, so at most a few dozen are alive at once
        assert.is_true(peak < 200e6, string.format("peak %.0f MB", peak / 1e6))
        collectgarbage()
        collectgarbage()
        assert.is_true(torch.memory_allocated() - base < 10e6)
    end)
end)

describe("torch.tensor's arguments (round 4)", function()
    it("a second argument that is not an options table is an error (torch.tensor(data, true) ignored it)", function()
        local ok, e = pcall(torch.tensor, {1, 2}, true)
        assert.is_false(ok)
        assert.matches("tensor: argument 2 %(boolean%) is not an option: options are given by name", tostring(e))
        assert.are.equal(torch.int64, torch.tensor({1, 2}, {dtype = torch.int64}).dtype)
    end)
end)
