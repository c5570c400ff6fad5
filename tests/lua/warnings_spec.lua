-- PyTorch's warnings (src/lua/warnings.lua): where PyTorch 1.13 warns, attn prints the same UserWarning,
-- translated, once per line of the user's code, on standard error (attn --verify: in its report, checked
-- by tests/verify; the kernel: the stderr stream, tests/jupyter/test_protocol.py). The message is the one
-- torch/nn/functional.py's mse_loss formats.
local warnings = require("attn.warnings")
local F = nn.functional
local TEXT = "Using a target size (torch.Size([3, 1])) that is different to the input size (torch.Size([3])). "
    .. "This will likely lead to incorrect results due to broadcasting. Please ensure they have the same size."

describe("PyTorch's UserWarnings", function()
    local got
    before_each(function()
        got = {}
        warnings.set_sink(function(text) got[#got + 1] = text end)
    end)
    after_each(function()
        warnings.set_sink(nil)
        attn.lang("en")
    end)
    local a, b = torch.tensor{1.0, 2, 3}, torch.tensor{{1.0}, {2}, {4}}

    it("mse_loss of [3] and [3, 1] warns once for its line, naming it, and still broadcasts as PyTorch", function()
        local line = debug.getinfo(1, "l").currentline + 1
        for _ = 1, 3 do F.mse_loss(a, b) end
        assert.are.same({"tests/lua/warnings_spec.lua:" .. line .. ": UserWarning: " .. TEXT .. "\n"}, got)
        -- another line warns again; the same sizes, nothing
        F.mse_loss(a, b, {reduction = "sum"})
        assert.are.equal(2, #got)
        F.mse_loss(a, a)
        F.mse_loss(b, b)
        assert.are.equal(2, #got)
        -- the other way round, a scalar target, and nn.MSELoss (PyTorch's names loss.py; attn names the user's line)
        F.mse_loss(b, a)
        F.mse_loss(a, torch.tensor(1.0))
        nn.MSELoss()(a, b)
        assert.matches("UserWarning: Using a target size %(torch.Size%(%[3%]%)%) that is different to the input size "
                       .. "%(torch.Size%(%[3, 1%]%)%)", got[3])
        assert.matches("Using a target size %(torch.Size%(%[%]%)%)", got[4])
        assert.matches("^tests/lua/warnings_spec.lua:%d+: UserWarning: Using a target size %(torch.Size%(%[3, 1%]%)%)", got[5])
        assert.are.equal(5, #got)
    end)

    it("in Chinese", function()
        attn.lang("zh_CN")
        F.mse_loss(a, b)
        assert.are.equal(1, #got)
        assert.matches("^tests/lua/warnings_spec.lua:%d+: UserWarning: ", got[1])
        assert.is_nil(got[1]:find("Using a target size", 1, true))
        assert.truthy(got[1]:find("torch.Size([3, 1])", 1, true))
    end)

    it("goes to standard error: a script's output is its own", function()
        local attn_bin = arg and arg[-1] or "./attn"
        local dir = os.getenv("TMPDIR") or "/tmp"
        local script = string.format("%s/attn_warnings_spec_%d.lua", dir, math.random(1, 1e9))
        local f = assert(io.open(script, "w"))
        f:write("local a, b = torch.tensor{1.0, 2, 3}, torch.tensor{{1.0}, {2}, {4}}\n",
                "for i = 1, 2 do print(nn.functional.mse_loss(a, b)) end\n")
        f:close()
        local p = io.popen(attn_bin .. " " .. script .. " 2>" .. script .. ".err")
        local out = p:read("a")
        p:close()
        local e = io.open(script .. ".err"):read("a")
        os.remove(script)
        os.remove(script .. ".err")
        local printed = tostring(F.mse_loss(a, b)) .. "\n" -- the value is not the point: where the warning goes is
        assert.are.equal(printed .. printed, out)
        assert.are.equal(script .. ":2: UserWarning: " .. TEXT .. "\n", e)
    end)
end)
