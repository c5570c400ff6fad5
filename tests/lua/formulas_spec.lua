-- The backward formulas of src/lua/autograd/formulas_extra.lua against PyTorch's autograd
-- (tests/data/torch/grads.txt, made by scripts/torch_reference_grads.py): cross_entropy (the reductions,
-- ignore_index, [C], [N, C, d], chapter 5's 2 × 256 × 50,257 logits), nll_loss, log_softmax, mse_loss,
-- gather, var/std, max/min with indices and over everything, where, GRUCell and LSTMCell.
-- "exact" cases are compared bit for bit. The others within 1e-6 (absolute, on gradients of size ~1):
--   GRUCell, LSTMCell: the gradient of hx and of the gates is a sum of several paths, which PyTorch's
--     engine adds in the order its graph runs and the formula in its own (and its tanh backward may be
--     fused in PyTorch's kernel); each term is the same.
local support = dofile("tests/lua/support.lua")
local torch, nn = torch, nn

local cases = support.tab_cases("tests/data/torch/grads.txt", "tol")

describe("backward formulas against PyTorch's autograd (tests/data/torch/grads.txt)", function()
    it("has the cases", function() assert.is_true(#cases >= 38) end)
    local env = setmetatable({torch = torch, nn = nn, G = require("attn.autograd.formulas_extra")}, {__index = _G})
    for _, c in ipairs(cases) do
        it(c.lua:sub(1, 160) .. "  (" .. c.tol .. ")", function()
            local t = assert(load("return " .. c.lua, "=case", "t", env))()
            local got = support.flat(t)
            assert.are.equal(#c.values, #got)
            local tol = tonumber(c.tol)
            for i, v in ipairs(c.values) do
                local want = support.from_bits(v)
                if tol then
                    assert(math.abs(got[i] - want) <= tol, string.format("element %d: expected %.9g, got %.9g (tolerance %g)",
                                                                         i, want, got[i], tol))
                else
                    assert(support.bits(got[i]) == tonumber(v), string.format("element %d: expected %s (%.9g), got 0x%08x (%.9g)",
                                                                             i, v, want, support.bits(got[i]), got[i]))
                end
            end
        end)
    end
end)
