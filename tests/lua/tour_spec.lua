-- tour_spec.lua — what a student meets first at the prompt: help()'s tour (every line of it runs and
-- prints the book's numbers), ?nn / ?attention / ?lesson (they list everything there is) and Tab
-- completion of attention., nn. and a tracer's methods. Run inside attn.
local help = require("attn.help")
local repl = require("attn.repl")
local support = dofile("tests/lua/support.lua")

-- The tour's code: its indented lines that are neither shell commands ($) nor help (?), without
-- the two spaces of indentation; or, given prefix, the lines that start with it.
local function tour_lines(prefix)
    local lines = {}
    for line in (help.text() .. "\n"):gmatch("(.-)\n") do
        local body = line:match("^  (.*)$")
        if body and (prefix == nil and not body:match("^[%$%?]") or prefix and body:sub(1, 1) == prefix) then
            lines[#lines + 1] = body
        end
    end
    return lines
end

local GLOBALS = {"inputs", "query", "w", "tokens", "tr", "mha", "batch", "ffn", "block", "_"}

describe("help() — the tour", function()
    after_each(function()
        for _, n in ipairs(GLOBALS) do _G[n] = nil end
    end)

    it("covers the stages, the tracer, the heatmap, the classes, the Transformer and the lessons", function()
        local text = help.text()
        for _, want in ipairs({"torch.tensor", "attention.scores", "attention.softmax", "attention.trace",
                               "tr:step()", "attention.heatmap", "nn.MultiHeadAttention", "nn.EncoderBlock",
                               "--list", "--step", "--check", "?attention", "?nn", "?lesson", "Ctrl-C",
                               '"Your", "journey", "starts", "with", "one", "step"'}) do
            assert(text:find(want, 1, true), "the tour does not mention " .. want)
        end
    end)

    it("fits an 80-column terminal", function()
        for line in help.text():gmatch("[^\n]+") do
            assert(utf8.len(line) <= 80, "too wide: " .. line)
        end
    end)

    it("runs line by line at the prompt, with the book's numbers and no error", function()
        local lines = tour_lines()
        assert.is_true(#lines >= 15)
        local out = support.session(lines)
        assert.is_nil(out:find("error:", 1, true), out)
        -- the book's printed results (LLMs from scratch §3.3.1 and In [54]), computed here
        for _, want in ipairs({"tensor([0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865])",
                               "tensor([0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581])",
                               "[[[0.3190, 0.4858],", "[1/3] scores", "torch.Size([2, 6, 3])",
                               "attention.trace of MultiHeadAttention: 0 of 11 stages shown"}) do
            assert(out:find(want, 1, true), "the tour's session lacks " .. want .. ":\n" .. out)
        end
    end)

    it("asks only for help that exists", function()
        for _, line in ipairs(tour_lines("?")) do
            for name in line:gmatch("%?([%w_%.:]+)") do
                assert.is_nil(help.text(name):find("^no help"), "no help for ?" .. name)
            end
        end
    end)
end)

-- The member the last line of ?prefix suggests asking about.
local function suggested(prefix)
    return help.text(prefix):match("\n%?([%w_%.]+) %(or any of these%) for its doc and an example$")
end

describe("?nn, ?attention, ?lesson", function()
    it("?nn lists every class and function of nn with how to call it, in groups", function()
        local text = help.text("nn")
        assert.matches("^nn  %(also torch.nn%)", text)
        for _, group in ipairs({"Building blocks:", "The books' attention classes", "The Transformer's layers"}) do
            assert(text:find("\n" .. group, 1, true), "no group " .. group)
        end
        local n = 0
        for name, v in pairs(nn) do
            if type(name) == "string" and (type(v) == "function" or type(v) == "table") and help.lookup("nn." .. name) then
                n = n + 1
                assert(text:find("\n  nn." .. name .. "[%({\n ]") or text:find("\n  nn." .. name .. "$"),
                       "?nn does not list nn." .. name)
            end
        end
        assert.is_true(n >= 30)
        assert(text:find("nn.functional.{", 1, true), "?nn does not point at nn.functional")
        assert.is_nil(text:find("\nAlso:", 1, true), "an nn member in no group")
    end)

    it("?attention lists every stage, in the order attention runs them, then forward, trace, heatmap", function()
        local text = help.text("attention")
        local last = 0
        for _, name in ipairs({"scores", "scale", "causal_mask", "mask", "softmax", "dropout", "weighted_sum",
                               "split_heads", "merge_heads", "forward", "fused", "trace", "heatmap"}) do
            local at = text:find("\n  attention." .. name .. "[%({]")
            assert(at and at > last, "attention." .. name .. " out of order or missing")
            last = at
        end
        for name, v in pairs(attention) do
            if type(v) == "function" then
                assert(text:find("attention." .. name, 1, true), "?attention does not list attention." .. name)
            end
        end
        assert.is_nil(text:find("\nAlso:", 1, true), "an attention function in no group")
    end)

    it("?lesson says how to run the lessons and lists the library", function()
        local text = help.text("lesson")
        for _, want in ipairs({"--step", "--check", "--list", "lesson.step(", "lesson.check("}) do
            assert(text:find(want, 1, true), "?lesson lacks " .. want)
        end
    end)

    it("a class's help is its own doc, not a listing", function()
        assert.is_nil(help.text(nn.Module):find(" holds:", 1, true))
        assert.is_nil(help.text("nn.Linear"):find(" holds:", 1, true))
    end)

    it("no listed line is wider than 80 columns", function()
        for _, name in ipairs({"nn", "attention", "lesson", "nn.functional"}) do
            for line in help.text(name):gmatch("[^\n]+") do
                if not line:find("Example:", 1, true) and not line:find("^           ") then
                    assert(utf8.len(line) <= 80, "?" .. name .. ": too wide: " .. line)
                end
            end
        end
    end)

    it("points at a member to ask about", function()
        assert.are.equal("nn.Module", suggested("nn"))
        assert.are.equal("attention.scores", suggested("attention"))
    end)
end)

describe("Tab completion at the prompt", function()
    after_each(function()
        _G.tr, _G.mha = nil, nil
    end)

    local function has(list, name)
        for _, n in ipairs(list) do if n == name then return true end end
        return false
    end

    it("completes attention. and nn. names", function()
        local a = repl.complete("attention.")
        for _, name in ipairs({"scores", "softmax", "trace", "heatmap", "forward", "fused", "split_heads"}) do
            assert(has(a, "attention." .. name), "attention." .. name)
        end
        assert.are.same({"attention.scale", "attention.scores", "attention.softmax", "attention.split_heads"},
                        repl.complete("attention.s"))
        assert.are.same({"nn.MultiHeadAttention", "nn.MultiHeadAttentionWrapper", "nn.MultiHeadLatentAttention",
                         "nn.MultiHeadedAttention"}, repl.complete("nn.Mul"))
        assert(has(repl.complete("nn."), "nn.EncoderBlock"))
        assert(has(repl.complete("torch.nn."), "torch.nn.LayerNorm"))
        assert(has(repl.complete("nn.functional."), "nn.functional.softmax"))
    end)

    it("completes a tracer's methods after tr:", function()
        _G.tr = attention.trace{x = torch.ones(6, 3)}
        assert.are.same({"tr:back", "tr:backward", "tr:run", "tr:run_backward", "tr:save", "tr:step"}, repl.complete("tr:"))
        assert.are.same({"tr:step"}, repl.complete("tr:st"))
    end)

    it("offers a module's methods after a colon, not its layers", function()
        _G.mha = nn.MultiHeadAttention(3, 2, 6, 0.0, 2)
        local list = repl.complete("mha:")
        assert(has(list, "mha:parameters") and has(list, "mha:eval") and has(list, "mha:forward"))
        assert.is_false(has(list, "mha:W_query"))
        assert.is_true(has(repl.complete("mha."), "mha.W_query"))
    end)
end)

describe("help for values a student has made", function()
    after_each(function()
        _G.tr, _G.mha, _G.s, _G.SA, _G.inputs = nil, nil, nil, nil, nil
    end)

    it("?mha and ?tr show the doc of their class, ?tr:step the tracer's", function()
        _G.mha = nn.MultiHeadAttention(3, 2, 6, 0.0, 2)
        _G.tr = attention.trace{x = torch.ones(6, 3)}
        assert.matches("^%(mha is an instance of nn%.MultiHeadAttention%)\nnn%.MultiHeadAttention%(", help.text("mha"))
        assert.matches("^%(mha%.W_query is an instance of nn%.Linear%)\nnn%.Linear%(", help.text("mha.W_query"))
        assert.matches("^%(tr is a tracer made by attention%.trace%)\nattention%.trace{", help.text("tr"))
        assert.matches("^%(tr is a tracer made by attention%.trace; step is in its doc%)\n", help.text("tr:step"))
        assert.matches("^m:parameters%(%)", help.text("mha:parameters"))
        assert.are.equal(help.text("mha"), help.text(_G.mha))
    end)

    it("an instance of the user's own class shows nn.Module's doc", function()
        _G.SA = nn.Module:extend("SA")
        _G.s = _G.SA()
        assert.matches("^%(s is an instance of SA, an nn%.Module%)\nnn%.Module\n", help.text("s"))
    end)

    it("a tensor says its shape and where tensor help is", function()
        _G.inputs = torch.ones(6, 3)
        assert.are.equal("inputs is a tensor of shape [6, 3]; ?Tensor lists what tensors can do, ?Tensor:view one method",
                         help.text("inputs"))
    end)

    it("a misspelt name gets the nearest documented one", function()
        assert.are.equal("no help for torch.sofmax; did you mean torch.softmax?", help.text("torch.sofmax"))
        assert.are.equal("no help for nn.MultiheadAttention; did you mean nn.MultiHeadAttention?",
                         help.text("nn.MultiheadAttention"))
        assert.are.equal("no help for attention.scroes; did you mean attention.scores?", help.text("attention.scroes"))
        assert.are.equal("no help for xyz; try help() for a tour", help.text("xyz"))
    end)
end)
