-- trace_spec.lua — attention.trace and attention.heatmap: stage order, fields, back(), token labels,
-- output with and without colour, and the book's classes traced stage by stage: the tracer's last
-- stage must equal the module's own forward bit for bit, and the book's printed text (ch. 3).
-- Run inside attn: ./attn /usr/bin/busted -o TAP tests/lua/trace_spec.lua
local heatmap = require("attn.draw.heatmap")
local support = dofile("tests/lua/support.lua")

local TOKENS = {"Your", "journey", "starts", "with", "one", "step"}
local inputs, batch

before_each(function()
    inputs = torch.tensor{{0.43, 0.15, 0.89}, {0.55, 0.87, 0.66}, {0.57, 0.85, 0.64},
                          {0.22, 0.58, 0.33}, {0.77, 0.25, 0.10}, {0.05, 0.80, 0.55}}
    batch = torch.stack({inputs, inputs}, 1)
    torch.set_bernoulli_flavor("mkl")
end)

-- A trace whose output is collected: returns tr and a function giving (and clearing) the text.
local function traced(args)
    local out = {}
    args.write = function(s) out[#out + 1] = s .. "\n" end
    if args.color == nil then args.color = false end
    local tr = attention.trace(args)
    return tr, function()
        local s = table.concat(out)
        out = {}
        return s
    end
end

-- The "[i/N] name" headers in the text, in order.
local function headers(text)
    local list = {}
    for i, n, name in text:gmatch("%[(%d+)/(%d+)%] +(%S+)") do list[#list + 1] = i .. "/" .. n .. " " .. name end
    return list
end

local function error_of(f, ...)
    local ok, err = pcall(f, ...)
    assert(not ok, "expected an error")
    return tostring(err)
end

-- ---- the book's classes, as ch. 3 writes them (tests/lua/book_classes.lua) ----------------------

local book = dofile("tests/lua/book_classes.lua")
local SelfAttention_v1, CausalAttention = book.SelfAttention_v1, book.CausalAttention
local MultiHeadAttentionWrapper, MultiHeadAttention = book.MultiHeadAttentionWrapper, book.MultiHeadAttention

-- Python Deep Learning's MultiHeadedAttention (the annotated transformer): four Linear layers, mask == 0 -> -1e9.
local MultiHeadedAttention = nn.Module:extend("MultiHeadedAttention")
function MultiHeadedAttention:__init(h, d_model, dropout)
    self.d_k = d_model // h
    self.h = h
    self.fc_layers = nn.ModuleList{nn.Linear(d_model, d_model), nn.Linear(d_model, d_model),
                                   nn.Linear(d_model, d_model), nn.Linear(d_model, d_model)}
    self.dropout = nn.Dropout(dropout or 0.1)
end
function MultiHeadedAttention:forward(query, key, value, mask)
    if mask then mask = mask:unsqueeze(2) end
    local nb = query.shape[1]
    local p = {}
    for i, x in ipairs({query, key, value}) do
        p[i] = self.fc_layers[i](x):view(nb, -1, self.h, self.d_k):transpose(2, 3)
    end
    local scores = p[1]:matmul(p[2]:transpose(-2, -1)) / math.sqrt(self.d_k)
    if mask then scores = scores:masked_fill(mask:eq(0), -1e9) end
    local p_attn = self.dropout(torch.softmax(scores, -1))
    local x = p_attn:matmul(p[3]):transpose(2, 3):contiguous():view(nb, -1, self.h * self.d_k)
    return self.fc_layers[4](x)
end

-- ---- §3.3: attention without weights -----------------------------------------------------------------

describe("attention.trace{x = inputs, tokens = ...}", function()
    it("steps through scores, weights, context in order, one per step", function()
        local tr, text = traced{x = inputs, tokens = TOKENS}
        assert.are.equal("attention.trace of self-attention without weights: 0 of 3 stages shown, next: tr:step()\n"
                         .. "  scores → weights → context", tostring(tr))
        tr:step()
        assert.are.same({"1/3 scores"}, headers(text()))
        assert.is_nil(rawget(tr, "weights")) -- not computed before its step
        tr:step()
        assert.are.same({"2/3 weights"}, headers(text()))
        tr:step()
        assert.are.same({"3/3 context"}, headers(text()))
        tr:step()
        assert.matches("^%(all 3 stages shown: tr%.context holds the result", text())
        assert.matches("3 of 3 stages shown, done\n  scores → weights → %[context%]$", tostring(tr))
    end)

    it("keeps each stage's tensor as a field, equal to the book's printed In [10], [11], [13]", function()
        local tr = traced{x = inputs}
        tr:run()
        assert.are.equal(support.book_tensor(9), tostring(tr.scores))
        assert.are.equal(support.book_tensor(11), tostring(tr.weights))
        assert.are.equal(support.book_tensor(13), tostring(tr.context))
    end)

    it("prints the header, the token labels on rows and columns, and the numbers PyTorch prints", function()
        local tr, text = traced{x = inputs, tokens = TOKENS}
        tr:step()
        local lines = {}
        for l in text():gmatch("[^\n]+") do lines[#lines + 1] = l end
        assert.matches("^%[1/3%] scores +ω = X·Xᵀ +shape %[6, 6%]$", lines[1])
        assert.matches("^ +Your +journey +starts +with +one +step$", lines[2])
        assert.matches("^  Your +0%.9995 +0%.9544 +0%.9422 +0%.4753 +0%.4576 +0%.6310$", lines[3])
        assert.matches("^  step +0%.6310 +1%.0865 +1%.0605 +0%.6565 +0%.2935 +0%.9450$", lines[8])
        assert.are.equal(8, #lines)
    end)

    it("draws the weights with plain-text shading when colour is off, and no escape codes", function()
        local tr, text = traced{x = inputs, tokens = TOKENS}
        tr:step()
        text()
        tr:step()
        local s = text()
        assert.is_nil(s:find("\27", 1, true))
        -- journey's largest weight (0.2379) is the row's darkest; one→step (0.0988) is the lightest
        assert.matches("0%.2379█", s)
        assert.matches("0%.0988 ", s)
        assert.matches("░", s)
    end)

    it("uses 256-colour cells with the value inside when colour is on", function()
        local tr, text = traced{x = inputs, tokens = TOKENS, color = true}
        tr:step()
        assert.is_nil(text():find("\27", 1, true)) -- scores are not a heatmap
        tr:step()
        local s = text()
        assert.matches("\27%[48;5;%d+;%d+m +0%.2379 \27%[0m", s)
        assert.is_nil(s:find("█", 1, true))
    end)

    it("back() shows the previous stage again without recomputing it", function()
        local tr, text = traced{x = inputs, tokens = TOKENS}
        tr:step()
        local first = text()
        tr:step()
        local w = tr.weights
        text()
        tr:back()
        assert.are.equal(first, text())
        tr:step()
        assert.are.same({"2/3 weights"}, headers(text()))
        assert.are.equal(w, tr.weights) -- the same tensor object
        tr:back()
        text()
        tr:back()
        assert.matches("^%(this is the first stage%)\n%[1/3%] scores", text())
    end)

    it("step(which) goes to a stage by name or number, computing the ones before it silently", function()
        local tr, text = traced{x = inputs, tokens = TOKENS}
        tr:step("weights")
        assert.are.same({"2/3 weights"}, headers(text()))
        assert.is_true(torch.is_tensor(tr.scores)) -- computed on the way, not printed
        local w = tr.weights
        tr:step("weights")                         -- again: the same stage, nothing recomputed
        assert.are.same({"2/3 weights"}, headers(text()))
        assert.are.equal(w, tr.weights)
        tr:step(1)
        assert.are.same({"1/3 scores"}, headers(text()))
        tr:step()
        assert.are.same({"2/3 weights"}, headers(text()))
        assert.matches('no stage "alpha": give 1..3 or one of scores, weights, context',
                       error_of(tr.step, tr, "alpha"), 1, true)
        assert.matches("no stage 4", error_of(tr.step, tr, 4), 1, true)
        assert.matches("no stage 1.5", error_of(tr.step, tr, 1.5), 1, true)
    end)

    it("works without tokens, and on a batch [b, n, d] one matrix per batch item", function()
        local tr, text = traced{x = batch}
        tr:step()
        local s = text()
        assert.matches("shape %[2, 6, 6%]", s)
        assert.matches("  batch 1:\n", s, 1, true)
        assert.matches("  batch 2:\n", s, 1, true)
        -- the batched product, as PyTorch's bmm adds it (a plain loop at this size): its last bits can differ
        -- from the 2-D product of one item, in PyTorch as here
        assert.is_true(torch.equal(tr.scores, attention.scores(batch, batch)))
        assert.is_true(torch.allclose(tr.scores[2], attention.scores(inputs, inputs), 0, 1e-6))
    end)
end)

describe("attention.trace{q =, k =, v =}", function()
    it("shows scores, scaled, masked, weights, context as attention.forward computes them", function()
        local tr, text = traced{q = inputs, k = inputs, v = inputs, mask = "causal", tokens = TOKENS}
        tr:run()
        assert.are.same({"1/5 scores", "2/5 scaled", "3/5 masked", "4/5 weights", "5/5 context"}, headers(text()))
        local context, weights = attention.forward{q = inputs, k = inputs, v = inputs, mask = "causal"}
        assert.is_true(torch.equal(tr.weights, weights))
        assert.is_true(torch.equal(tr.context, context))
    end)

    it("splits into heads and shows each head; merge heads at the end", function()
        local tr, text = traced{q = batch, k = batch, v = batch, heads = 3, scale = false}
        tr:run()
        local s = text()
        assert.are.same({"1/5 split", "2/5 scores", "3/5 weights", "4/5 context", "5/5 merge"}, headers(s))
        assert.matches("  batch 2, head 3:\n", s, 1, true)
        local context, weights = attention.forward{q = batch, k = batch, v = batch, heads = 3, scale = false}
        assert.is_true(torch.equal(tr.weights, weights))
        assert.is_true(torch.equal(tr.merged, context))
    end)

    it("dropout is drawn once, at its step", function()
        torch.manual_seed(123)
        local tr = traced{q = inputs, k = inputs, v = inputs, dropout = 0.5}
        tr:run()
        torch.manual_seed(123)
        local context, weights = attention.forward{q = inputs, k = inputs, v = inputs, dropout = 0.5}
        assert.is_true(torch.equal(tr.dropped, weights))
        assert.is_true(torch.equal(tr.context, context))
        tr:back()
        tr:step()
        assert.is_true(torch.equal(tr.dropped, weights))
    end)
end)

describe("attention.trace{module = m, x = ...} on the book's classes (ch. 3)", function()
    it("SelfAttention_v1: X·W projections, scores, scaled, weights, context = sa_v1(inputs) (In [28])", function()
        torch.manual_seed(123)
        local sa = SelfAttention_v1(3, 2)
        local tr, text = traced{module = sa, x = inputs, tokens = TOKENS}
        tr:run()
        assert.are.same({"1/7 queries", "2/7 keys", "3/7 values", "4/7 scores", "5/7 scaled", "6/7 weights",
                         "7/7 context"}, headers(text()))
        assert.is_true(torch.equal(tr.context, sa(inputs)))
        assert.are.equal(support.book_tensor(28), tostring(tr.context))
    end)

    it("CausalAttention: masked before scaled, as the book; context = ca(batch) (In [58])", function()
        torch.manual_seed(123)
        local ca = CausalAttention(3, 2, 6, 0.0)
        local tr, text = traced{module = ca, x = batch, tokens = TOKENS}
        tr:run()
        local s = text()
        assert.are.same({"1/8 queries", "2/8 keys", "3/8 values", "4/8 scores", "5/8 masked", "6/8 scaled",
                         "7/8 weights", "8/8 context"}, headers(s))
        assert.matches("Q = W_query(X)", s, 1, true)
        assert.is_true(torch.equal(tr.context, ca(batch)))
        assert.are.equal(support.book_tensor(58), tostring(tr.context))
    end)

    it("CausalAttention in training mode with dropout draws what the module draws", function()
        torch.manual_seed(123)
        local ca = CausalAttention(3, 2, 6, 0.5)
        local state = torch.get_rng_state()
        local tr, text = traced{module = ca, x = batch}
        tr:run()
        assert.matches("dropout", table.concat(headers(text()), " "))
        torch.set_rng_state(state)
        assert.is_true(torch.equal(tr.context, ca(batch)))
        ca:eval()
        local tr2 = traced{module = ca, x = batch}
        tr2:run()
        assert.is_nil(rawget(tr2, "dropped"))
    end)

    it("MultiHeadAttentionWrapper: stages per head, then the concatenation = mha(batch) (In [49])", function()
        torch.manual_seed(123)
        local mha = MultiHeadAttentionWrapper(3, 2, 6, 0.0, 2)
        local tr, text = traced{module = mha, x = batch, tokens = TOKENS}
        tr:run()
        local s = text()
        assert.matches("  batch 1, head 2:\n", s, 1, true)
        assert.is_true(torch.equal(tr.output, mha(batch)))
        -- the tracer assembles the heads its own way (a view, not torch.cat): the book's numbers, its own grad_fn
        assert.are.equal(support.book_tensor_values(49), tostring(tr.output:detach()))
    end)

    it("MultiHeadAttention: split heads, per-head stages, merge, out_proj = mha(batch) (In [54])", function()
        torch.manual_seed(123)
        local mha = MultiHeadAttention(3, 2, 6, 0.0, 2)
        local tr, text = traced{module = mha, x = batch, tokens = TOKENS}
        tr:run()
        local s = text()
        assert.are.same({"1/11 queries", "2/11 keys", "3/11 values", "4/11 split", "5/11 scores", "6/11 masked",
                         "7/11 scaled", "8/11 weights", "9/11 context", "10/11 merge", "11/11 output"}, headers(s))
        assert.matches("  batch 2, head 2:\n", s, 1, true)
        assert.is_true(torch.equal(tr.output, mha(batch)))
        assert.are.same({2, 2, 6, 6}, {tr.weights.shape[1], tr.weights.shape[2], tr.weights.shape[3], tr.weights.shape[4]})
        assert.are.equal(support.book_tensor(54), tostring(tr.output))
    end)

    it("Python Deep Learning's MultiHeadedAttention: scaled then masked with -1e9 (mask 1 = visible)", function()
        torch.manual_seed(1)
        local m = MultiHeadedAttention(2, 4, 0.1)
        m:eval()
        local x = torch.rand(2, 5, 4)
        local mask = torch.tril(torch.ones(5, 5)):unsqueeze(1):expand(2, 5, 5)
        local tr, text = traced{module = m, x = x, mask = mask}
        tr:run()
        assert.are.same({"1/11 queries", "2/11 keys", "3/11 values", "4/11 split", "5/11 scores", "6/11 scaled",
                         "7/11 masked", "8/11 weights", "9/11 context", "10/11 merge", "11/11 output"}, headers(text()))
        assert.is_true(torch.equal(tr.output, m(x, x, x, mask)))
        assert.are.equal(-1e9, tr.masked:detach()[1][1][1][2])
    end)

    it("rejects what it cannot trace, saying why", function()
        assert.matches("attention.trace: 5 tokens for 6 rows", error_of(attention.trace,
            {x = inputs, tokens = {"a", "b", "c", "d", "e"}}))
        assert.matches("attention.trace: unknown option tokenz", error_of(attention.trace,
            {x = inputs, tokenz = TOKENS}))
        assert.matches("attention.trace: give x = inputs", error_of(attention.trace, {}))
        assert.matches("attention.trace: expected a table", error_of(attention.trace, inputs))
        assert.matches("attention.trace: module must be an nn.Module", error_of(attention.trace,
            {module = {}, x = inputs}))
        assert.matches("is not one of the book's attention classes", error_of(attention.trace,
            {module = nn.Linear(3, 2), x = inputs}))
        assert.matches("attention.trace: q %[6, 3%] and k %[6, 2%] must have the same last dim", error_of(
            attention.trace, {q = inputs, k = torch.ones(6, 2), v = inputs}))
        assert.matches("not divisible by 2 heads", error_of(attention.trace,
            {q = batch, k = batch, v = batch, heads = 2}))
        assert.matches("x must be %[n, d%] or %[b, n, d%]", error_of(attention.trace, {x = inputs[1]}))
        -- an option the kind of trace would not use is refused, not silently left out of what is shown
        for _, opt in ipairs({{mask = "causal"}, {heads = 2}, {dropout = 0.5}, {scale = false}, {fill = -1e9}}) do
            opt.x = inputs
            assert.matches("attention.trace: option %a+ does not apply here: a trace of x alone", error_of(
                attention.trace, opt))
        end
        assert.matches("option x does not apply here: a trace of q, k, v", error_of(attention.trace,
            {q = inputs, k = inputs, v = inputs, x = inputs}))
        assert.matches("dropout must be a probability between 0 and 1, got 5", error_of(attention.trace,
            {q = inputs, k = inputs, v = inputs, dropout = 5}))
        assert.matches('dropout must be a probability between 0 and 1, got "x"', error_of(attention.trace,
            {q = inputs, k = inputs, v = inputs, dropout = "x"}))
        torch.manual_seed(123)
        local mha = nn.MultiHeadAttention(3, 2, 6, 0.0, 2)
        for _, opt in ipairs({{mask = "causal"}, {heads = 1}, {scale = false}}) do
            opt.module, opt.x = mha, batch
            assert.matches("option %a+ does not apply here: a module's trace computes what the module computes",
                error_of(attention.trace, opt))
        end
        torch.manual_seed(123)
        local ca = CausalAttention(3, 2, 4, 0.0)
        local tr = traced{module = ca, x = batch}
        assert.matches("6 tokens, but the module's mask is for at most 4", error_of(tr.run, tr))
    end)
end)

describe("attention.heatmap", function()
    it("renders labels and shading without colour; numbers as PyTorch prints them", function()
        local w = attention.softmax(attention.scores(inputs, inputs))
        local s = heatmap.render(w, {rows = TOKENS, cols = TOKENS, color = false})
        local lines = {}
        for l in s:gmatch("[^\n]+") do lines[#lines + 1] = l end
        assert.are.equal(7, #lines)
        assert.matches("^ +Your +journey +starts +with +one +step$", lines[1])
        assert.matches("^journey +0%.1385░ +0%.2379█", lines[3])
        assert.is_nil(s:find("\27", 1, true))
    end)

    it("shows -inf and nan cells, scales to the finite range, and shade = false shows plain numbers", function()
        local m = attention.mask(torch.tensor{{1, 2}, {3, 0 / 0}}, attention.causal_mask(2))
        -- 1 is the smallest finite value (no shade), 3 the largest (█)
        assert.are.equal("  1.   -inf\n  3.█   nan", heatmap.render(m, {color = false}))
        assert.are.equal("  1.  -inf\n  3.   nan", heatmap.render(m, {shade = false}))
        assert.matches("\27%[48;5;238", heatmap.render(m, {color = true})) -- -inf grey
    end)

    it("attention.heatmap writes the drawing; errors for non-matrices and bad labels", function()
        assert.matches("expected a 2%-D tensor %(a matrix%), got shape %[2, 6, 3%]; pick one matrix",
                       error_of(attention.heatmap, batch))
        assert.matches("expected a 2%-D tensor, got string", error_of(attention.heatmap, "x"))
        assert.matches("a vector can be drawn as t:view%(1, %-1%)", error_of(attention.heatmap, inputs[1]))
        assert.matches("3 row labels for 6 rows", error_of(attention.heatmap, inputs, {rows = {"a", "b", "c"}}))
        assert.matches("options must be a table", error_of(attention.heatmap, inputs, "rows"))
        assert.are.equal("(empty matrix [0, 3])", heatmap.render(torch.zeros(0, 3)))
    end)

    it("weights after training: fixed decimals chosen from the range, never 7.8426e-05 in a cell", function()
        -- PyTorch prints this matrix in scientific notation (its largest / smallest > 1000)
        local w = torch.tensor{{0.99984312, 7.8426e-05, 7.8426e-05}, {1.2e-07, 0.9999, 1e-4}}
        assert.matches("e%-05", tostring(w))
        local s = heatmap.render(w, {shade = false})
        assert.is_nil(s:find("e-", 1, true), s)
        assert.are.equal("0.9998  0.0001  0.0001\n0.0000  0.9999  0.0001", s)
        -- on the page (--html) the cell shows 0.0001 and its tooltip PyTorch's 7.8426e-05
        local fig
        local saved = heatmap.record(function(d) fig = d return "marker" end)
        heatmap.render(w, {})
        heatmap.record(saved)
        local svg = require("attn.draw.heatmap_svg").render(fig)
        assert.matches("<g><title>7%.8426e%-05</title><rect [^>]*/><text [^>]*>0%.0001</text></g>", svg)
        -- fewer decimals as the largest value grows (five digits in all); -0.0 is 0.0
        assert.are.equal("  12.3     0.0\n1234.5     0.0", heatmap.render(torch.tensor{{12.3456, -1e-7}, {1234.5, 1e-3}},
                                                                           {shade = false}))
        -- a matrix PyTorch prints without an exponent is left as it prints it
        assert.are.equal("  1.  -inf\n  3.   nan", heatmap.render(attention.mask(torch.tensor{{1, 2}, {3, 0 / 0}},
                                                                                   attention.causal_mask(2)), {shade = false}))
    end)

    it("labels wide (CJK) tokens by their display width and shortens long ones", function()
        local s = heatmap.render(torch.eye(2), {rows = {"你好", "a"}, cols = {"x", "abcdefghijklmnop"}, shade = false})
        assert.matches("^ +x +abcdefghijk…\n你好  ", s)
    end)
end)
