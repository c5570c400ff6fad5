-- 19_sqrt_dk_gradients.lua — why scaled dot-product attention divides the scores by √d_k, measured.
-- The three texts' reasons (Build a Large Language Model (From Scratch) ch. 3 §3.4.1, Dive into Deep
-- Learning's attention scoring functions, Python Deep Learning (3rd ed.) ch. 7), then the numbers: the
-- variance of q·k against d_k, softmax of 8 times the book's scores, and for random queries and keys at
-- d_k = 3, 64, 768 and 4096 the largest weight and the gradient reaching the scores, with and without
-- the scaling. Every number is checked against PyTorch's run of the same seeded computation
-- (scripts/lesson_reference_sqrt_dk.py, tests/data/torch/lesson_sqrt_dk.txt).
--   ./attn lessons/19_sqrt_dk_gradients.lua           straight through
--   ./attn --step lessons/19_sqrt_dk_gradients.lua    one step at a time

lesson.title("Why divide by √d_k — measured",
             {source = "Build a Large Language Model (From Scratch), ch. 3 §3.4.1; Dive into Deep Learning, attention scoring functions; Python Deep Learning (3rd ed.), ch. 7"})

local function pytorch(name)
    return lesson.reference("lesson_sqrt_dk.txt", "sqrt_dk." .. name)
end

lesson.section("What the three texts say")

lesson.say[[
Scaled dot-product attention computes softmax(Q Kᵀ / √d_k) V. Each of the three texts gives a
reason for the √d_k, in a sentence or two (in translation here; the Chinese edition quotes the
Chinese texts):

Build a Large Language Model (From Scratch), §3.4.1: the scores are divided by the square root of
the embedding size to avoid small gradients. With large embeddings (GPT-like models use more than a
thousand dimensions) the dot products grow, and the softmax applied to them can give very small
gradients in backpropagation: as the dot products grow, softmax behaves more and more like a step
function, its gradients approach zero, and learning slows down or stalls.

Dive into Deep Learning, scaled dot-product attention: the dot product is divided by √d to remove
the dimension's unrelated effect on the scores. Its argument is one of variance: if the components
of a query and a key are independent, with mean 0 and variance 1, their dot product has mean 0 and
variance d, so dividing by √d brings the variance back to 1 whatever d is.

Python Deep Learning, ch. 7: the authors of "Attention Is All You Need" suspect that for large d_k
the dot products grow in magnitude and push the softmax into regions of extremely small gradients:
a vanishing gradient, hence the scaling.

Three claims to measure: the variance of q·k grows like d_k; large scores make softmax one-hot;
and a one-hot softmax passes almost no gradient back to the scores.]]

lesson.section("The variance of q·k grows like d_k")

lesson.say[[
1000 random pairs q, k with independent standard normal components (torch.randn, seed 7), at each
d_k: the variance of their 1000 dot products. d2l's argument predicts d_k itself; divided by √d_k
the dot products would have variance about 1.]]

lesson.step("the variance of q·k at d_k = 3, 64, 768, 4096", function()
    dot_var = {}
    lesson.printf("  d_k    var(q·k)    var(q·k) / d_k")
    for _, d in ipairs({3, 64, 768, 4096}) do
        torch.manual_seed(7)
        local q, k = torch.randn(1000, d), torch.randn(1000, d)
        dot_var[d] = (q * k):sum(-1):var()
        lesson.print(string.format("%5d  %10.4f  %8.4f", d, dot_var[d]:item(), dot_var[d]:item() / d))
    end
    lesson.check(lesson.tr("var(q·k) at d_k = %d, as PyTorch computes it", 3), dot_var[3], pytorch("d3.dot_var"), {tol = 0})
    lesson.check(lesson.tr("var(q·k) at d_k = %d, as PyTorch computes it", 64), dot_var[64], pytorch("d64.dot_var"), {tol = 0})
    lesson.check(lesson.tr("var(q·k) at d_k = %d, as PyTorch computes it", 768), dot_var[768], pytorch("d768.dot_var"), {tol = 0})
    lesson.check(lesson.tr("var(q·k) at d_k = %d, as PyTorch computes it", 4096), dot_var[4096], pytorch("d4096.dot_var"), {tol = 0})
end)

lesson.section("Softmax of 8 times the scores turns one-hot")

lesson.say[[
What a larger spread of scores does to softmax, on the book's own scores: x^(2)'s dot products
with the six inputs of chapter 3 ("Your journey starts with one step"). With d_k = 64, unscaled
scores are √64 = 8 times the scaled ones, so compare softmax of the scores with softmax of 8 times
the scores. Softmax's ratio of two weights is exp of the difference of their scores, so
multiplying the scores by 8 raises every ratio to the 8th power: the largest weight takes almost
everything.]]

lesson.step("softmax(s) and softmax(8·s) of the book's scores of x^(2)", function()
    inputs = torch.tensor{
        {0.43, 0.15, 0.89}, -- Your     (x^(1))
        {0.55, 0.87, 0.66}, -- journey  (x^(2))
        {0.57, 0.85, 0.64}, -- starts   (x^(3))
        {0.22, 0.58, 0.33}, -- with     (x^(4))
        {0.77, 0.25, 0.10}, -- one      (x^(5))
        {0.05, 0.80, 0.55}} -- step     (x^(6))
    s = inputs:matmul(inputs[2])
    w1 = s:softmax(-1)
    w8 = (s * 8):softmax(-1)
    lesson.show("s", s)
    lesson.show("softmax(s)", w1)
    lesson.show("softmax(8·s)", w8)
    local words = {"Your", "journey", "starts", "with", "one", "step"}
    lesson.heatmaps{{"softmax(s)", w1:unsqueeze(1), {rows = {"x^(2)"}, cols = words}},
                    {"softmax(8·s)", w8:unsqueeze(1), {rows = {"x^(2)"}, cols = words}}}
    lesson.check("the scores of x^(2), as PyTorch computes them", s, pytorch("book.scores"), {tol = 0})
    lesson.check("softmax(s), as PyTorch computes it", w1, pytorch("book.softmax"), {tol = 0})
    lesson.check("softmax(8·s), as PyTorch computes it", w8, pytorch("book.softmax8"), {tol = 0})
    lesson.agree("the largest of softmax(8·s) is far larger than the largest of softmax(s)",
                 w8:max():item() > 2 * w1:max():item(), true)
end)

lesson.section("Random queries and keys at d_k = 3, 64, 768, 4096")

lesson.say[[
Now attention's own setting: 8 queries and 8 keys with standard normal components (seed 123), so
the scores S = Q Kᵀ have variance about d_k. For each d_k, softmax of the scores unscaled (z = S)
and scaled (z = S / √d_k). A made-up loss L = Σ α ⊙ G, with G a fixed random 8×8 upstream gradient
(drawn after Q and K), stands for whatever the rest of a model does with the weights; backward()
gives the gradient reaching the softmax's input z, and that reaching the scores S (√d_k times
smaller when scaled: z = S / √d_k). Shown for each: the largest weight, and the gradient's norm
‖g‖ = √(Σ g²).]]

lesson.step("d_k = 3: the weights with and without the scaling", function()
    rows = {}
    -- measure(d): the whole experiment at one d_k, written once and run again for the larger ones
    function measure(d)
        torch.manual_seed(123)
        local Q, K, G = torch.randn(8, d), torch.randn(8, d), torch.randn(8, 8)
        local S = Q:matmul(K.T)
        local row = {d = d}
        for _, tag in ipairs({"raw", "scaled"}) do
            local scores = S:detach():requires_grad_()
            local z = tag == "raw" and scores * 1.0 or scores * (1 / math.sqrt(d))
            z:retain_grad()
            local alpha = z:softmax(-1)
            ;(alpha * G):sum():backward()
            row[tag] = {alpha = alpha:detach(), max = alpha:detach():max(),
                        gz = (z.grad * z.grad):sum():sqrt(), gs = (scores.grad * scores.grad):sum():sqrt()}
        end
        rows[#rows + 1] = row
        lesson.printf("  %s: largest weight %.4f, ‖dL/dz‖ %.4f, ‖dL/dS‖ %.4f", "softmax(S)",
                     row.raw.max:item(), row.raw.gz:item(), row.raw.gs:item())
        lesson.printf("  %s: largest weight %.4f, ‖dL/dz‖ %.4f, ‖dL/dS‖ %.4f", "softmax(S/√d_k)",
                     row.scaled.max:item(), row.scaled.gz:item(), row.scaled.gs:item())
        local names = {"q1", "q2", "q3", "q4", "q5", "q6", "q7", "q8"}
        local keys = {"k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8"}
        lesson.heatmaps{{"softmax(S)", row.raw.alpha, {rows = names, cols = keys}},
                        {"softmax(S/√d_k)", row.scaled.alpha, {rows = names, cols = keys}}}
        return row, S
    end
    -- every number of one d_k against PyTorch's run of the same seeded computation
    function check_against_pytorch(d_k, row, S)
        local p = "d" .. d_k .. "."
        lesson.check(lesson.tr("the scores S at d_k = %d, as PyTorch computes them", d_k), S, pytorch(p .. "scores"), {tol = 0})
        lesson.check(lesson.tr("%s: the weights, as PyTorch computes them", "softmax(S)"), row.raw.alpha, pytorch(p .. "raw.weights"), {tol = 0})
        lesson.check(lesson.tr("%s: the largest weight, as PyTorch computes it", "softmax(S)"), row.raw.max, pytorch(p .. "raw.max_weight"), {tol = 0})
        lesson.check(lesson.tr("%s: ‖dL/dz‖, as PyTorch's autograd computes it", "softmax(S)"), row.raw.gz, pytorch(p .. "raw.grad_norm_z"), {tol = 0})
        lesson.check(lesson.tr("%s: ‖dL/dS‖, as PyTorch's autograd computes it", "softmax(S)"), row.raw.gs, pytorch(p .. "raw.grad_norm"), {tol = 0})
        lesson.check(lesson.tr("%s: the weights, as PyTorch computes them", "softmax(S/√d_k)"), row.scaled.alpha, pytorch(p .. "scaled.weights"), {tol = 0})
        lesson.check(lesson.tr("%s: the largest weight, as PyTorch computes it", "softmax(S/√d_k)"), row.scaled.max, pytorch(p .. "scaled.max_weight"), {tol = 0})
        lesson.check(lesson.tr("%s: ‖dL/dz‖, as PyTorch's autograd computes it", "softmax(S/√d_k)"), row.scaled.gz, pytorch(p .. "scaled.grad_norm_z"), {tol = 0})
        lesson.check(lesson.tr("%s: ‖dL/dS‖, as PyTorch's autograd computes it", "softmax(S/√d_k)"), row.scaled.gs, pytorch(p .. "scaled.grad_norm"), {tol = 0})
    end
    row, S = measure(3)
    check_against_pytorch(3, row, S)
end)

lesson.step("d_k = 64: the weights with and without the scaling", function()
    row, S = measure(64)
    check_against_pytorch(64, row, S)
end)

lesson.step("d_k = 768: the weights with and without the scaling", function()
    row, S = measure(768)
    check_against_pytorch(768, row, S)
end)

lesson.step("d_k = 4096: the weights with and without the scaling", function()
    row, S = measure(4096)
    check_against_pytorch(4096, row, S)
end)

lesson.say[[
The whole table. Unscaled, the largest weight goes to 1 as d_k grows (a one-hot row: softmax as a
step function) and the gradient reaching softmax's input falls towards zero: the "small
gradients" of the book and the "极小梯度区域" of Python Deep Learning, measured. Scaled, the largest
weight stays well below 1 at every d_k and the gradient reaching z keeps its size. (The largest
weight is the largest of all 64; at d_k = 64 a few rows are not one-hot yet, which is why the
gradient there is still large. The heatmaps above show which.)]]

lesson.step("the table: largest weight and gradient norm against d_k, and a plot", function()
    lesson.printf("  d_k   max α (S)   max α (S/√d_k)   ‖dL/dz‖ (S)   ‖dL/dz‖ (S/√d_k)")
    for _, r in ipairs(rows) do
        lesson.print(string.format("%5d   %9.4f   %14.4f   %11.4f   %16.4f", r.d, r.raw.max:item(),
                                   r.scaled.max:item(), r.raw.gz:item(), r.scaled.gz:item()))
    end
    print(attention.plot{x = {3, 64, 768, 4096}, logx = true, xlabel = "d_k", ylabel = "‖dL/dz‖",
                         series = {{"softmax(S)", {rows[1].raw.gz, rows[2].raw.gz, rows[3].raw.gz, rows[4].raw.gz}},
                                   {"softmax(S/√d_k)", {rows[1].scaled.gz, rows[2].scaled.gz, rows[3].scaled.gz,
                                                        rows[4].scaled.gz}}}})
    lesson.agree("unscaled, the gradient reaching z at d_k = 4096 is under a tenth of that at d_k = 3",
                 rows[4].raw.gz:item() < rows[1].raw.gz:item() / 10, true)
    lesson.agree("scaled, the largest weight stays below 0.9 at every d_k",
                 math.max(rows[1].scaled.max:item(), rows[2].scaled.max:item(), rows[3].scaled.max:item(),
                          rows[4].scaled.max:item()) < 0.9, true)
end)

lesson.section("The same gradient, stage by stage")

lesson.say[[
attention.trace steps backward as well as forward: given a loss, tr:backward() shows the gradient of
the loss with respect to each stage's tensor, from the last stage to the first. Chapter 3's
CausalAttention (d_k = 2, seed 123) on the book's six tokens, with L = the sum of the squared context
vectors: the gradient reaching the weights, the one reaching the scaled scores through softmax's
Jacobian, and the one reaching the masked scores, which the scaling divides by √d_k on its way back.
(The tracer's gradients equal PyTorch's bit for bit: tests/lua/trace_backward_spec.lua.)]]

lesson.step("CausalAttention backward: the weights, softmax, the √d_k scaling", function()
    torch.manual_seed(123)
    local ca = nn.CausalAttention(3, 2, 6, 0.0)
    tr = attention.trace{module = ca, x = inputs, tokens = {"Your", "journey", "starts", "with", "one", "step"},
                         loss = function(out) return (out * out):sum() end}
    tr:backward("weights")
    tr:backward("scaled")
    tr:backward("masked")
    lesson.agree("the scaling divides the gradient by √d_k on its way back: ∂L/∂ω_m = ∂L/∂ω_s / √2",
                 tr.grads.masked, tr.grads.scaled / math.sqrt(2), {tol = 0})
end)
