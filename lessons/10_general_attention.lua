-- 10_general_attention.lua — Python Deep Learning (3rd ed.), ch. 7, "Understanding the attention
-- mechanism" › "General attention": the Figure 7.5 example, one 4-dimensional query against a key-value
-- store of four 4-dimensional vectors, stepped through with attention.trace.
--   ./attn lessons/10_general_attention.lua           straight through
--   ./attn --step lessons/10_general_attention.lua    one step at a time
-- The figure's vectors, lost with the figure in the Chinese translation, are those of the book's repository
-- (Chapter07/attention_numerical_example.py): they are the inputs.
-- The chapter's scores, weights and result appear only as the expected side of checks.

lesson.title("General attention: the Figure 7.5 example",
             {source = "Python Deep Learning (3rd ed.), ch. 7: General attention, Figure 7.5"})

-- What PyTorch computes from the same vectors (scripts/gen_lesson_reference.py): the numbers the chapter
-- prints rounded, or leaves to its lost figure.
local function pytorch(name)
    return lesson.reference("lessons_pdl_ch7.txt", "general." .. name)
end

lesson.section("Understanding the attention mechanism · General attention")

lesson.say[[
Attention need not live inside a seq2seq RNN. In its general form a query q is looked up in a
key-value store: each key k_n has a value v_n, and the keys are what the query is matched
against while the values carry the information returned. Stacked as rows, the keys form a
matrix K and the values a matrix V (several queries would form Q). General attention scores
multiplicatively, like Luong's attention:

  1. alignment scores  e_{q,k_n} = qᵀ k_n              (a dot product: a measure of similarity)
  2. weights           α_{q,k_n} = exp(e_{q,k_n}) / Σ_j exp(e_{q,k_j})     (softmax)
  3. result            r = Σ_n α_{q,k_n} v_n          (a weighted sum of the values)

The chapter writes step 3 as attention(q_m, Q, V) = Σ_n α_{q_m,k_n} v_{k_i}. Two letters slipped:
the function takes the keys, attention(q_m, K, V), and the value in the sum is that of the key
being weighed, v_{k_n}: the sum runs over n, and i appears nowhere else.

Figure 7.5 does this with numbers: a query q1 and a store of four keys and four values, all of
them 4-dimensional. (The figure is an image the translation lost; its vectors come from the book's
repository.) The query is a 1×4 matrix: one row, one query.
]]

lesson.step("the query q1, the keys K and the values V", function()
    q = torch.tensor{{0.6, 1.2, -1.2, 1.8}}      -- q1
    K = torch.tensor{
        {-0.2,  0.4,  1.2, 0.8},                 -- k1
        { 0.2,  0.4, -0.6, 0.6},                 -- k2
        { 0.6, -0.4,  1.4, 0.8},                 -- k3
        { 1.6,  0.2,  1.0, 0.2},                 -- k4
    }
    V = torch.tensor{                            -- floats (4.0, not 4): an int64 tensor cannot be weighted
        {4.0, 5.0, 6.0, 7.0},                    -- v1 (the value of k1)
        {1.0, 2.0, 3.0, 4.0},                    -- v2
        {5.0, 6.0, 7.0, 8.0},                    -- v3
        {6.0, 7.0, 8.0, 9.0},                    -- v4
    }
    lesson.show("q", q)
    lesson.show("K", K)
    lesson.show("V", V)
end)

lesson.say[[
Step 2 of the chapter: the first alignment score, written out by the chapter as
0.6×(−0.2) + 1.2×0.4 + (−1.2)×1.2 + 1.8×0.8. Here it is term by term, in float32 as a tensor
computes it, and then by torch.dot.
]]

lesson.step("e_{q1,k1} = q1ᵀ k1 by hand", function()
    q1, k1 = q[1], K[1]                          -- Python: q[0], K[0]
    e11 = torch.tensor(0.0)
    for i = 1, 4 do
        e11 = e11 + q1:select(1, i) * k1:select(1, i)
    end
    lesson.show("e_{q1,k1} term by term", e11)
    lesson.show("torch.dot(q1, k1)", torch.dot(q1, k1))
    lesson.check("e_{q1,k1} (the chapter's 0.36)", e11, 0.36, {tol = 1e-6})
end)

lesson.say[[
Now the whole example with attn's tracer. attention.trace{q =, k =, v =} runs the stages of
attention.forward one at a time and shows each with its formula; scale = false because general
attention does not divide by √d (Transformer attention, the next section of the chapter, does).
tr:step(1) shows the first stage, the scores of q1 against every key.

The chapter chose q1 to resemble k2 = [0.2, 0.4, -0.6, 0.6]: the same signs in every component, in
much the same proportions. So k2 gets the largest score by far.
]]

lesson.step("stage 1: the alignment scores e = q·Kᵀ", function()
    tr = attention.trace{q = q, k = K, v = V, scale = false,
                         tokens = {"q1"}, key_tokens = {"k1", "k2", "k3", "k4"}}
    tr:step(1)
    lesson.check("the four scores, as PyTorch computes them (Figure 7.5's, which the translation lost)", tr.scores,
        pytorch("scores"), {tol = 1e-6})
    lesson.check("k2 scores highest (the chapter: e_{q1,k2} = 2.4)", tr.scores[{1, 2}], 2.4, {tol = 1e-6})
end)

lesson.say[[
Stage 2: softmax turns the scores into weights that sum to 1. The chapter: "softmax exaggerates the
differences between its inputs". k2, the best match, takes most of the weight: the ratio of two
weights is exp of the difference of their scores, α2 / α1 = exp(e2 − e1), so a lead in score
becomes a factor in weight. The chapter prints the weights rounded to three decimals, so they are
checked to within half a unit of the third decimal, 5e-4. It also spells out the weight of k2 as
a formula, computed below in double precision with Lua's math.exp from the four scores.
]]

lesson.step("stage 2: the weights α = softmax(e)", function()
    tr:step(2)
    local e = tr.scores[1]:tolist()
    alpha_k2 = math.exp(e[2]) / (math.exp(e[1]) + math.exp(e[2]) + math.exp(e[3]) + math.exp(e[4]))
    lesson.show("exp(e2) / Σ exp(e_j)", alpha_k2)
    lesson.show("e2 − e1", e[2] - e[1])
    lesson.show("α2 / α1", tr.weights[{1, 2}] / tr.weights[{1, 1}])
    lesson.show("exp(e2 − e1)", math.exp(e[2] - e[1]))
    lesson.check("the weights of Figure 7.5, as the chapter prints them", tr.weights, {{0.098, 0.756, 0.048, 0.098}},
        {tol = 5e-4})
    lesson.check("the weights, as PyTorch computes them", tr.weights, pytorch("weights"), {tol = 1e-6})
    lesson.check("α_{q1,k2} by the chapter's formula (0.756)", alpha_k2, 0.756, {tol = 5e-4})
    lesson.agree("α2 / α1 = exp(e2 − e1), the lead in score as a factor in weight",
        tr.weights[{1, 2}] / tr.weights[{1, 1}], math.exp(e[2] - e[1]), {tol = 1e-5})
end)

lesson.say([[
A typo in the chapter: its formula for α_{q1,k2} reads exp(2.4) / (exp(0.36) + exp(2.4) +
exp(0.36) + exp(0.36)), as if the other three scores were all 0.36. The third score is %.2f
(stage 1 above; k3 has the opposite sign of q1 in the second and third components). With the
typo's scores the weights would be different, and they would contradict the chapter itself, which
uses 0.048 for k3 and 0.756 for k2 in its next step.
]], tr.scores[{1, 3}])

lesson.step("the chapter's typo: all other scores 0.36", function()
    typo_scores = torch.tensor{{0.36, 2.4, 0.36, 0.36}}
    typo_weights = attention.softmax(typo_scores)
    typo_result = attention.weighted_sum(typo_weights, V)
    lesson.show("weights from the typo", typo_weights)
    lesson.show("result from the typo", typo_result)
    lesson.show("weights from the scores of stage 1", tr.weights)
    local w = typo_weights[1]:tolist()
    lesson.agree("the typo gives k3 the weight of k1 and of k4", {w[3], w[3]}, {w[1], w[4]})
end)

lesson.say([[
With the typo, k3 would get %.3f, as much as k1 and k4, where the chapter uses 0.048, and k2 would
get %.3f, not the chapter's 0.756. The chapter's weights are those of the true scores (checked in stage
2), so the typo is only in the formula's text.
]], typo_weights[{1, 3}], typo_weights[{1, 2}])

lesson.say[[
Stage 3: the result r is the weighted sum of the values, element by element. It lies closest to
v2, the value of the key that matches q1 best. The chapter rounds r to two decimals (checked within
5e-3); PyTorch's run of the same vectors gives it in full (checked within 1e-6).
]]

lesson.step("stage 3: the result r = Σ α v", function()
    tr:step(3)
    lesson.check("r of Figure 7.5, as the chapter prints it", tr.context, {{1.98, 2.98, 3.98, 4.98}}, {tol = 5e-3})
    lesson.check("r, as PyTorch computes it", tr.context, pytorch("r"), {tol = 1e-6})
end)

lesson.say[[
The chapter computes the first element by hand from the weights as it printed them:
r1 = 0.098×4 + 0.756×1 + 0.048×5 + 0.098×6. The same sum with our weights rounded to three
decimals, in plain Lua numbers, gives a value that rounds to the chapter's r1 (the exact r1 differs
from it in the third decimal: rounding the weights first moves the sum a little).
]]

lesson.step("r1 by hand from the weights rounded to three decimals", function()
    r1 = 0
    for n, w in ipairs(tr.weights[1]:tolist()) do
        -- each weight with the 3 decimals the chapter printed, times the first element of its value
        r1 = r1 + tonumber(string.format("%.3f", w)) * V[{n, 1}]
    end
    lesson.show("r1 from rounded weights", r1)
    lesson.show("r1 exactly", tr.context[{1, 1}])
    lesson.check("r1 (the chapter's 1.98)", r1, 1.98, {tol = 5e-3})
end)

lesson.say[[
Without the tracer, the three stages are one line each: scores, softmax, weighted sum. This is
what tr computed, stage by stage; attention.forward runs all three at once.
]]

lesson.step("the same in three lines, and with attention.forward", function()
    e = attention.scores(q, K)                   -- Python: q @ K.T
    alpha = attention.softmax(e)                 -- Python: torch.softmax(e, dim=-1)
    r = attention.weighted_sum(alpha, V)         -- Python: alpha @ V
    r_forward = attention.forward{q = q, k = K, v = V, scale = false}
    lesson.show("r", r)
    lesson.show("attention.forward", r_forward)
    lesson.agree("the stages give the tracer's result, bit for bit", r, tr.context)
    lesson.agree("attention.forward gives it too", r_forward, tr.context)
end)
