-- attn_module_spec.lua — attn.so under stock lua5.4: require("attn") gives the library's tables and
-- sets no global. Run by tests/install/test_install.sh with the installed attn.so on LUA_CPATH
-- (not by tests/lua, whose specs run inside ./attn).
describe("require 'attn' from lua5.4", function()
    local before = {}
    for k in pairs(_G) do before[k] = true end
    local attn = require("attn")

    it("returns the public tables", function()
        for _, name in ipairs({"torch", "nn", "attention", "help", "lesson"}) do
            assert.is_table(attn[name], name)
        end
        assert.are.equal(attn.nn, attn.torch.nn)
    end)

    it("sets no global", function()
        local added = {}
        for k in pairs(_G) do
            if not before[k] then added[#added + 1] = tostring(k) end
        end
        table.sort(added)
        assert.are.same({}, added)
    end)

    it("is the same library as ./attn: PyTorch's numbers and print format", function()
        local torch = require("attn").torch
        local x = torch.tensor{{0.43, 0.15, 0.89}, {0.55, 0.87, 0.66}, {0.57, 0.85, 0.64},
                               {0.22, 0.58, 0.33}, {0.77, 0.25, 0.10}, {0.05, 0.80, 0.55}}
        local s = x:matmul(x[2])
        assert.are.equal("tensor([0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865])", tostring(s))
        assert.are.equal("tensor([0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581])",
                         tostring(torch.softmax(s, -1)))
        torch.manual_seed(123)
        assert.are.equal("tensor([[0.2961, 0.5166],\n        [0.2517, 0.6886],\n        [0.0740, 0.8665]])",
                         tostring(torch.rand(3, 2)))
    end)

    it("has the books' classes and the attention stages", function()
        local torch, nn, attention = attn.torch, attn.nn, attn.attention
        torch.manual_seed(123)
        local mha = nn.MultiHeadAttention(3, 2, 6, 0.0, 2)
        local y = mha(torch.rand(2, 6, 3))
        assert.are.same({2, 6, 2}, {y.shape[1], y.shape[2], y.shape[3]})
        local w = attention.softmax(attention.mask(torch.zeros(3, 3), attention.causal_mask(3)))
        assert.are.equal("tensor([[1.0000, 0.0000, 0.0000],\n        [0.5000, 0.5000, 0.0000],\n"
                         .. "        [0.3333, 0.3333, 0.3333]])", tostring(w))
    end)

    it("raises errors that name the function called", function()
        local torch = attn.torch
        local ok, err = pcall(function() return torch.ones(6, 3):matmul(torch.ones(2, 3)) end)
        assert.is_false(ok)
        assert.truthy(tostring(err):find("matmul: cannot multiply [6, 3] by [2, 3] (3 ≠ 2)", 1, true), err)
    end)
end)
