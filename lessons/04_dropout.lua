-- Build a Large Language Model (From Scratch), ch. 3 §3.5.2: dropout on the attention weights. The
-- Chinese translation prints the masks of a PyTorch built with MKL ("mkl" flavour); the English
-- edition's notebook (rasbt/LLMs-from-scratch, ch03/01_main-chapter-code/ch03.ipynb, cells 31–32) prints
-- those of a PyTorch built without it ("default" flavour). Both are reproduced and checked against the
-- printed text, and the reason they differ (pytorch/pytorch#121595) is shown by counting random draws.
--   ./attn lessons/04_dropout.lua           straight through
--   ./attn --step lessons/04_dropout.lua    one step at a time

lesson.title("Dropout on the attention weights",
             {source = "Build a Large Language Model (From Scratch), ch. 3 §3.5.2 (In [42]–[43]); the English edition's ch03.ipynb, cells 31–32"})

lesson.section("3.5.2  Masking additional attention weights with dropout")

lesson.say[[
We start from the causal attention weights α of §3.5.1 (In [39]): the queries and keys come from
the first two nn.Linear layers drawn after the seed 789 — sa_v2's W_query and W_key — and the
future is masked with −∞ before the softmax.]]

lesson.step("where §3.5.1 ended: the causal weights α (In [39])", function()
    inputs = torch.tensor{
        {0.43, 0.15, 0.89}, -- Your     (x^(1))
        {0.55, 0.87, 0.66}, -- journey  (x^(2))
        {0.57, 0.85, 0.64}, -- starts   (x^(3))
        {0.22, 0.58, 0.33}, -- with     (x^(4))
        {0.77, 0.25, 0.10}, -- one      (x^(5))
        {0.05, 0.80, 0.55}} -- step     (x^(6))
    torch.manual_seed(789)
    W_query = nn.Linear(3, 2, {bias = false}) -- = sa_v2.W_query  -- Python: nn.Linear(d_in, d_out, bias=False)
    W_key   = nn.Linear(3, 2, {bias = false}) -- = sa_v2.W_key
    queries, keys = W_query(inputs), W_key(inputs)
    attn_scores = queries:matmul(keys.T)                                     -- Python: queries @ keys.T
    mask = torch.triu(torch.ones(6, 6), {diagonal = 1})                      -- Python: torch.triu(torch.ones(6, 6), diagonal=1)
    masked = attn_scores:masked_fill(mask:bool(), -torch.inf)
    attn_weights = torch.softmax(masked / keys.shape[-1] ^ 0.5, -1)         -- Python: torch.softmax(masked / keys.shape[-1]**0.5, dim=-1)
    lesson.show("attn_weights", attn_weights)
    lesson.check("causal weights (In [39])", attn_weights, [=[
tensor([[1.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000],
        [0.5517, 0.4483, 0.0000, 0.0000, 0.0000, 0.0000],
        [0.3800, 0.3097, 0.3103, 0.0000, 0.0000, 0.0000],
        [0.2758, 0.2460, 0.2462, 0.2319, 0.0000, 0.0000],
        [0.2175, 0.1983, 0.1984, 0.1888, 0.1971, 0.0000],
        [0.1935, 0.1663, 0.1666, 0.1542, 0.1666, 0.1529]],
       grad_fn=<SoftmaxBackward0>)]=])
end)

lesson.say[[
Dropout, during training only, sets a random part of a tensor to zero so that the model cannot
rely on any particular unit. With rate p = 0.5 each entry is dropped with probability 0.5. To
see the pattern alone, the book first applies it to a 6 × 6 matrix of ones. attn's default "mkl"
flavour draws the mask the way the PyTorch builds for x86-64 Linux and Windows do (they use
Intel MKL); that is what the book printed.]]

lesson.step("dropout of a matrix of ones, \"mkl\" flavour (In [43])", function()
    torch.set_bernoulli_flavor("mkl")
    torch.manual_seed(123)
    dropout = nn.Dropout(0.5)  -- dropout rate of 50%  -- Python: dropout = torch.nn.Dropout(0.5)
    example = torch.ones(6, 6) -- create a matrix of ones
    dropped = dropout(example)  -- Python: print(dropout(example))
    lesson.show("dropout(example)", dropped)
    lesson.check("dropout of ones, mkl (In [43])", dropped, [=[
tensor([[2., 2., 2., 2., 2., 2.],
        [0., 2., 0., 0., 0., 0.],
        [0., 0., 2., 0., 2., 0.],
        [2., 2., 0., 0., 0., 2.],
        [2., 0., 0., 0., 0., 2.],
        [0., 2., 0., 0., 0., 0.]])]=])
end)

lesson.say[[
The entries that survive are not 1 but 2 = 1/(1 − p). The notes on chapter 3 put it as a picture:
if you send half of the people out of the room, the ones left must speak twice as loud to keep the
total volume the same. Dropout scales what it keeps by 1/(1 − p) so that the expected value of
every entry stays what it was: (1 − p) · 1/(1 − p) = 1. Then the model sees inputs of the same size
in training (with dropout) and in use (without it). One 6 × 6 draw is too small to show the
average; a million entries are not. The same holds for any rate, p = 0.2 for example.]]

lesson.step("the 1/(1 − p) scaling keeps the mean", function()
    for _, p in ipairs {0.5, 0.2} do
        torch.manual_seed(123)
        local out = nn.Dropout(p)(torch.ones(1000, 1000))
        local kept = out:max():item()                                   -- every entry is 0 or `kept`
        local dropped_share = 1 - out:sum():item() / kept / out:numel()
        local mean = out:mean():item()
        lesson.show(lesson.tr("p = %.1f", p), lesson.tr(
            "kept entries = %g (1/(1 − p) = %g), share dropped = %.4f, mean = %.4f",
            kept, 1 / (1 - p), dropped_share, mean))
        lesson.agree(lesson.tr("p = %.1f: kept entries are 1/(1 − p)", p), kept, 1 / (1 - p), {tol = 1e-6})
        lesson.agree(lesson.tr("p = %.1f: the mean stays 1 = (1 − p) · 1/(1 − p), on 10^6 entries", p),
            mean, (1 - p) * (1 / (1 - p)), {tol = 5e-3})
    end
end)

lesson.say[[
Now the same dropout on the causal attention weights α. With the same seed, the same entries are
kept, and they are doubled: a weight survives as 2·α_ij, or becomes 0. (The rows no longer sum
to 1; in training that is fine, the expected row sum still is.)]]

lesson.step("dropout of the attention weights, \"mkl\" flavour (In [42])", function()
    torch.manual_seed(123)
    dropped_weights = dropout(attn_weights) -- Python: print(dropout(attn_weights))
    lesson.show("dropout(attn_weights)", dropped_weights)
    lesson.check("dropout of α, mkl (In [42])", dropped_weights, [=[
tensor([[2.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000],
        [0.0000, 0.8966, 0.0000, 0.0000, 0.0000, 0.0000],
        [0.0000, 0.0000, 0.6206, 0.0000, 0.0000, 0.0000],
        [0.5517, 0.4921, 0.0000, 0.0000, 0.0000, 0.0000],
        [0.4350, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000],
        [0.0000, 0.3327, 0.0000, 0.0000, 0.0000, 0.0000]],
       grad_fn=<MulBackward0>)]=])
    -- `dropped` (In [43]) holds the same mask, times 2: both dropouts started from the seed 123
    lesson.agree("the kept weights are exactly 2·α: the mask of In [43] times α", dropped_weights,
        dropped * attn_weights)
end)

lesson.say[[
The book warns that your output "may differ depending on your operating system". The English
edition's notebook shows other masks for the very same code. PyTorch builds without MKL (macOS,
ARM, Debian's own python3-torch) use the "default" flavour; torch.set_bernoulli_flavor switches
attn to it.]]

lesson.step("the same code, \"default\" flavour (English edition, cells 31–32)", function()
    torch.set_bernoulli_flavor("default")
    torch.manual_seed(123)
    local dropped_default = dropout(example)
    lesson.show("dropout(example)", dropped_default)
    lesson.check("dropout of ones, default (English edition, cell 31)", dropped_default, [=[
tensor([[2., 2., 0., 2., 2., 0.],
        [0., 0., 0., 2., 0., 2.],
        [2., 2., 2., 2., 0., 2.],
        [0., 2., 2., 0., 0., 2.],
        [0., 2., 0., 2., 0., 2.],
        [0., 2., 2., 2., 2., 0.]])]=])
    torch.manual_seed(123)
    local dropped_weights_default = dropout(attn_weights)
    lesson.show("dropout(attn_weights)", dropped_weights_default)
    lesson.check("dropout of α, default (English edition, cell 32)", dropped_weights_default, [=[
tensor([[2.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000],
        [0.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000],
        [0.7599, 0.6194, 0.6206, 0.0000, 0.0000, 0.0000],
        [0.0000, 0.4921, 0.4925, 0.0000, 0.0000, 0.0000],
        [0.0000, 0.3966, 0.0000, 0.3775, 0.0000, 0.0000],
        [0.0000, 0.3327, 0.3331, 0.3084, 0.3331, 0.0000]],
       grad_fn=<MulBackward0>)]=])
    torch.set_bernoulli_flavor("mkl")
end)

lesson.say[[
Why do they differ (pytorch/pytorch#121595)? Both builds start from the same Mersenne Twister,
seeded with 123, but turn it into a keep/drop mask differently. Without MKL, PyTorch draws one
64-bit uniform number per entry from the Twister and keeps the entry if it is below 1 − p. With
MKL, PyTorch draws a single 32-bit number from the Twister and hands it to MKL as the seed of
MKL's own generator, which then makes the whole mask. So the masks differ — and so does how far
each flavour advances the Twister. We can see that without looking inside, by the next torch.rand
number after a dropout of a 6 × 6 and of a 60 × 60 matrix. In the "mkl" flavour it is the number
that follows a single torch.rand draw, whatever the size. In the "default" flavour each entry's
64-bit number is two of the Twister's 32-bit draws, and a float32 torch.rand number takes one: a
6 × 6 dropout moves the generator as far as torch.rand(72), a 60 × 60 one as far as
torch.rand(7200).]]

lesson.step("counting draws: one per tensor (mkl) or one per entry (default)", function()
    local function next_rand_after(n)              -- after a dropout of an n × n matrix
        torch.manual_seed(123)
        nn.Dropout(0.5)(torch.ones(n, n))
        return torch.rand(1)[1]
    end
    local function next_rand_after_rand(k)         -- after k torch.rand numbers
        torch.manual_seed(123)
        torch.rand(k)
        return torch.rand(1)[1]
    end
    local after = {}
    for _, flavor in ipairs {"mkl", "default"} do
        torch.set_bernoulli_flavor(flavor)
        after[flavor] = {next_rand_after(6), next_rand_after(60)}
        lesson.show(flavor, lesson.tr("next torch.rand after 6×6: %.4f, after 60×60: %.4f",
            after[flavor][1], after[flavor][2]))
    end
    torch.set_bernoulli_flavor("mkl")
    local rand_1, rand_72, rand_7200 = next_rand_after_rand(1), next_rand_after_rand(72), next_rand_after_rand(7200)
    lesson.show("after torch.rand(1), (72), (7200)", string.format("%.4f, %.4f, %.4f", rand_1, rand_72, rand_7200))
    lesson.agree("mkl: one draw, whatever the mask's size (as torch.rand(1))", after.mkl, {rand_1, rand_1})
    lesson.agree("default: two draws per entry (as torch.rand(72) and torch.rand(7200))", after.default,
        {rand_72, rand_7200})
end)

lesson.say[[
Dropout is for training only. A module in evaluation mode (model:eval()) passes its input
through unchanged; model:train() switches it back on.]]

lesson.step("dropout is off in evaluation mode", function()
    dropout:eval()
    evaluated = dropout(attn_weights)
    dropout:train()
    lesson.agree("eval(): dropout(attn_weights) is attn_weights", evaluated, attn_weights)
end)
