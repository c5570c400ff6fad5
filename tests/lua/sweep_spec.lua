-- The book's chapter 3 classes on the book's inputs, seeds 1..300, against what PyTorch printed for each
-- (tests/data/torch/ch3_sweep.txt, made by scripts/torch_reference_sweep.py with the classes as the book
-- writes them): every output's bits and its printed text, character for character, every seed, in ten
-- configurations (head counts, qkv_bias, dropout 0 and 0.5 in training and eval mode, the wrapper,
-- CausalAttention, SelfAttention_v2). The classes take their default path: nothing is forced.
local support = dofile("tests/lua/support.lua")
local torch, nn = torch, nn

local function unescape(s)
    return (s:gsub("\\(.)", {n = "\n", ["\\"] = "\\"}))
end

local env = setmetatable({torch = torch, nn = nn}, {__index = _G})
local configs, outs = {}, {}
for line in io.lines("tests/data/torch/ch3_sweep.txt") do
    local f = {}
    for field in (line .. "\t"):gmatch("([^\t]*)\t") do f[#f + 1] = field end
    if f[1] == "prelude" then
        assert(load(f[2], "=prelude", "t", env))()
    elseif f[1] == "config" then
        configs[#configs + 1] = {name = f[2], lua = f[3], python = f[4]}
        outs[f[2]] = {}
    elseif f[1] == "out" then
        local bits = {}
        for v in f[4]:gmatch("%S+") do bits[#bits + 1] = v end
        table.insert(outs[f[2]], {seed = math.tointeger(tonumber(f[3])), bits = bits, printed = unescape(f[5])})
    end
end

describe("the book's ch. 3 classes, seeds 1..300, against PyTorch", function()
    local flavor
    before_each(function() flavor = torch.set_bernoulli_flavor("default") end) -- Debian's torch: no MKL
    after_each(function() torch.set_bernoulli_flavor(flavor) end)
    it("has ten configurations of 300 seeds", function()
        assert.are.equal(10, #configs)
        for _, c in ipairs(configs) do assert.are.equal(300, #outs[c.name]) end
    end)
    for _, c in ipairs(configs) do
        it(c.lua .. "   -- Python: " .. c.python, function()
            local make = assert(load("return " .. c.lua, "=" .. c.name, "t", env))
            local wrong = {}
            for _, o in ipairs(outs[c.name]) do
                torch.manual_seed(o.seed)
                -- as the script runs them: under no_grad, so no grad_fn suffix in the print
                local y = torch.no_grad(make)
                local printed, bits = tostring(y), support.same_bits(y, o.bits)
                if printed ~= o.printed or bits then
                    wrong[#wrong + 1] = string.format("seed %d: %s", o.seed, printed ~= o.printed
                        and ("prints\n" .. printed .. "\nwhere PyTorch prints\n" .. o.printed) or bits)
                end
            end
            assert(#wrong == 0, #wrong .. " of 300 seeds differ; the first: " .. (wrong[1] or ""))
        end)
    end
end)
