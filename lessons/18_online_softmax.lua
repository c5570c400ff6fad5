-- The attention of today's models, part 3: FlashAttention's online softmax, tile by tile. The score
-- matrix of a long text is too big to keep (n × n per head); FlashAttention never makes it, computing
-- softmax(scores)·V from one tile of keys at a time with a running max and a running sum per row.
-- Everything here is an identity of attn's own (no book prints these numbers): the online result
-- against the staged softmax and weighted sum, and against attention.fused, the same algorithm in C.
--   ./attn lessons/18_online_softmax.lua           straight through
--   ./attn --step lessons/18_online_softmax.lua    one step at a time

lesson.title("FlashAttention's online softmax, one tile at a time",
             {source = "Build a Large Language Model (From Scratch) ch. 3 §3.5 (the causal softmax); Dao et al., FlashAttention (2022)"})

lesson.section("1  A softmax without the whole row")

lesson.say[[
Softmax needs two things of a row before it can give any weight: its largest score (subtracted so
that exp does not overflow) and the sum of the exps. FlashAttention reads the keys a tile at a time
and keeps, per query, three running values: the largest score so far m, the sum so far l of
exp(score - m), and the output so far o, the values weighted by those exps. When a tile brings a
larger score, the old l and o were computed against a smaller m: both are multiplied by
exp(m_old - m_new) to put them on the new scale. At the end the context is o / l.]]

lesson.step("the scores of one query row, and its values", function()
    s = torch.tensor{{1.0, 0.0, 3.0, 2.0, 4.0, -1.0}}   -- one query against six keys
    v = torch.tensor{{1.0, 0.0}, {0.0, 1.0}, {1.0, 1.0}, {2.0, 0.0}, {0.0, 2.0}, {1.0, -1.0}}
    lesson.show("s", s)
    staged = attention.weighted_sum(attention.softmax(s, -1), v)   -- the whole row at once
    lesson.show("staged", staged)
end)

lesson.step("tile by tile: the running max, sum and output", function()
    z, steps = attention.online_softmax(s, v, {tile = 2})   -- three tiles of two keys
    m_run, l_run, o_run = {}, {}, {}
    for t, st in ipairs(steps) do
        m_run[t], l_run[t], o_run[t] = st.m, st.l, st.o
    end
    lesson.show("the running max m after each tile", torch.cat(m_run, 2))
    lesson.show("the running sum l after each tile", torch.cat(l_run, 2))
    lesson.show("the running output o after each tile", torch.cat(o_run, 1))
    lesson.agree("tile 2 brings 3 > 1: l and o are rescaled by exp(1 - 3)", steps[2].scale[1][1], math.exp(-2),
                 {tol = 1e-7})
    lesson.agree("tile 3 brings 4 > 3: by exp(3 - 4)", steps[3].scale[1][1], math.exp(-1), {tol = 1e-7})
    lesson.agree("the running max ends at the row's max", steps[3].m[1][1], 4)
end)

lesson.say[[
The result is o / l. It equals the staged softmax and weighted sum, but only to rounding: the staged
softmax adds the row's six exps in one pass, the online one adds two at a time and multiplies the
partial sums by the rescaling factors, so the same numbers are added and rounded in another order.
With float32 that moves the last bits, a few units in the last place.]]

lesson.step("o / l against the staged softmax", function()
    lesson.show("z", z)
    lesson.agree("the online softmax·V equals the staged one, to float32 rounding", z, staged, {tol = 1e-6})
end)

lesson.section("2  On a causal batch")

lesson.say[[
The same on a batch of causal scores: the hidden scores are -inf, whose exp is 0, and a tile that is
all hidden for a row changes nothing in it. attention.fused is this algorithm in C, on all cores,
with tiles sized for the CPU's cache.]]

lesson.step("a causal batch, tile by tile and fused", function()
    torch.manual_seed(123)
    local q, k = torch.rand(2, 6, 4), torch.rand(2, 6, 4)
    vv = torch.rand(2, 6, 4)
    scores = attention.mask(attention.scale(attention.scores(q, k), 4), attention.causal_mask(6))
    local online = attention.online_softmax(scores, vv, {tile = 4})
    local ref = attention.weighted_sum(attention.softmax(scores, -1), vv)
    lesson.show("online[1]", online[1])
    lesson.agree("online equals staged, to rounding", online, ref, {tol = 1e-6})
    lesson.agree("attention.fused computes the same", attention.fused(q, k, vv, {causal = true}), ref, {tol = 1e-6})
end)
