-- PyTorch's dtype rules and int64 printing, checked against what Debian's torch 1.13 printed for the same
-- computation (tests/data/torch/dtypes.txt, made by scripts/torch_reference_dtypes.py through
-- scripts/gen-torch-reference.sh): every case's text character for character, and an error where
-- PyTorch refused.
local torch, nn = torch, nn

local function unescape(s)
    return (s:gsub("\\(.)", {n = "\n", ["\\"] = "\\"}))
end

local env = setmetatable({torch = torch, nn = nn}, {__index = _G})
local cases = {}
for line in io.lines("tests/data/torch/dtypes.txt") do
    local kind, lua, python, result = line:match("^(%a+)\t([^\t]*)\t([^\t]*)\t?(.*)$")
    if kind == "prelude" then
        assert(load(lua, "=prelude", "t", env))()
    elseif kind == "case" then
        cases[#cases + 1] = {lua = lua, python = python, result = unescape(result)}
    end
end

describe("dtypes against PyTorch (tests/data/torch/dtypes.txt)", function()
    it("has the cases", function()
        assert.is_true(#cases > 300)
    end)
    for _, c in ipairs(cases) do
        it(c.lua .. "   -- Python: " .. c.python, function()
            local f = assert(load("return " .. c.lua, "=case", "t", env))
            local ok, v = pcall(f)
            if c.result == "error" then
                assert.is_false(ok, "PyTorch refuses this, attn gave " .. tostring(v))
                assert.is_string(v)
            else
                assert.is_true(ok, tostring(v))
                assert.are.equal(c.result, tostring(v))
            end
        end)
    end
end)

describe("int64 values are exact", function()
    it("2^53 + 1 survives creation, indexing, arithmetic, printing and tolist", function()
        local t = torch.tensor{9007199254740993, -9007199254740993}
        assert.are.equal(9007199254740993, t[1])
        assert.are.equal(math.type(t[1]), "integer")
        assert.are.same({9007199254740993, -9007199254740993}, t:tolist())
        assert.are.equal(9007199254740995, (t + 2)[1])
        assert.are.equal(0, (t[{{1}}] + t[{{2}}]):item())
        t[2] = math.maxinteger
        assert.are.equal(math.maxinteger, t:max():item())
        assert.are.equal("tensor([9007199254740993])", tostring(torch.tensor{9007199254740993}))
    end)
    it("an int64 tensor converts to float32 the way PyTorch rounds", function()
        assert.are.equal(9007199254740992.0, torch.tensor{9007199254740993}:float()[1])
        assert.are.equal(16777216.0, torch.tensor{16777217}:float()[1])
    end)
end)
