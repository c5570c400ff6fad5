-- attention.lua — help for the global table `attention`: the stages (src/bind/attention.c) and
-- attention.forward (src/lua/attention/forward.lua). Loaded by attn.docs (docs/init.lua).

local D = require("attn.docs.define")
local def = D.def
local attention = require("attn.attention")

local batched = [=[Works on a batch: leading dims broadcast as in torch.matmul.]=]

def("attention.scores", "attention.scores(q, k)", [=[
The attention scores ω = q·kᵀ: entry [i, j] is the dot product of query i with key j, how well
key j matches query i. q is [..., n, d] and k is [..., m, d] (the same d); the result is [..., n, m].
It is the book's queries @ keys.T (attn: queries:matmul(keys.T)), computed by the same matrix product
without copying kᵀ. ]=] .. batched .. [=[ See also attention.scale, attention.softmax.]=], [=[
attn_scores = attention.scores(inputs, inputs)   -- inputs: see ?torch.tensor
attn_scores[2]
--> tensor([0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865])]=])

def("attention.dot", "attention.dot(q, k)", [=[
Luong's "dot" score: the same as attention.scores(q, k), q·kᵀ, under the name the attention papers
(and d2l's table of score functions) use. Its errors say attention.scores.]=], [=[
attention.dot(inputs[2]:view(1, 3), inputs)   -- inputs: see ?torch.tensor
--> tensor([[0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865]])]=])

def("attention.scale", "attention.scale(s, d_k)", [=[
Scaled scores s / sqrt(d_k), the "scaled" of scaled dot-product attention: d_k is the key dim
(keys.shape[-1]). Dividing keeps the scores of long vectors from growing so large that the softmax
puts almost all weight on one key. The same float32 division as the book's
attn_scores / d_k**0.5.]=], [=[
attention.scale(torch.tensor{2.0, 4.0, 6.0}, 4)
--> tensor([1., 2., 3.])]=])

def("attention.causal_mask", "attention.causal_mask(n [, m])", [=[
A bool [n, m] mask (m defaults to n) that is true where query i must not see key j because j comes
after i: true = hidden. It equals torch.triu(torch.ones(n, m), 1):bool(), the book's
mask.bool()[:n, :n]. Give it to attention.mask.]=], [=[
attention.causal_mask(3)
--> tensor([[False,  True,  True],
-->         [False, False,  True],
-->         [False, False, False]])]=])

def("attention.valid_len_mask", "attention.valid_len_mask(n, lens)", [=[
d2l's valid lengths as a mask over n key positions (true = hidden, key j is hidden when j > its valid
length). lens is a table or tensor: 1-D with one length per batch gives a bool [b, 1, n] mask (the same
for every query); 2-D [b, q] with one length per query gives [b, q, n]. A length must be a whole number
from 0 to n. d2l fills hidden scores with -1e6 (attention.mask(s, hidden, -1e6)), so a length of 0
gives uniform weights rather than nan.]=], [=[
attention.valid_len_mask(4, {2, 3})
--> tensor([[[False, False,  True,  True]],
-->
-->         [[False, False, False,  True]]])]=])

def("attention.mask", "attention.mask(s, hidden [, fill])", [=[
The scores s with every entry where hidden is true replaced by fill: -inf by default (the book's
masked_fill_(mask, -torch.inf)), so softmax gives those keys zero weight; -1e9 as in the annotated
transformer, -1e6 as in d2l. hidden is a bool tensor (true = hidden) that broadcasts to s: a causal
[n, m] mask fits scores [b, h, n, m]. s itself is not changed. A row hidden entirely gets weights of
nan with -inf (as PyTorch) and uniform weights with a finite fill.]=], [=[
s = attention.scores(inputs, inputs)             -- inputs: see ?torch.tensor
attention.mask(s, attention.causal_mask(6))[2]
--> tensor([0.9544, 1.4950,   -inf,   -inf,   -inf,   -inf])]=])

def("attention.softmax", "attention.softmax(s [, dim])", [=[
Turns scores into attention weights: along dim (default -1, the keys) each row becomes positive and
sums to 1. It subtracts the row maximum first, so large scores do not overflow, and gives the same
bits as torch.softmax(s, dim). A row that is all -inf gives nan, as in PyTorch; a nan score makes
its whole row nan.]=], [=[
attn_weights = attention.softmax(attention.scores(inputs, inputs))   -- inputs: see ?torch.tensor
attn_weights[2]
--> tensor([0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581])
attention.softmax(torch.tensor{{0.0, -math.huge}, {-math.huge, -math.huge}})
--> tensor([[1., 0.],
-->         [nan, nan]])]=])

def("attention.weighted_sum", "attention.weighted_sum(w, v)", [=[
The context vectors: each row of the weights w [..., n, m] mixes the m value vectors of v
[..., m, dv], giving [..., n, dv]. The book's attn_weights @ values. ]=] .. batched, [=[
w = attention.softmax(attention.scores(inputs, inputs))   -- inputs: see ?torch.tensor
attention.weighted_sum(w, inputs)[2]
--> tensor([0.4419, 0.6515, 0.5683])]=])

def("attention.dropout", "attention.dropout(w, p)", [=[
Training-mode dropout of the attention weights: each entry is zeroed with probability p and the rest
are scaled by 1 / (1 - p), with PyTorch's random numbers (torch.manual_seed gives the book's
pattern; see torch.set_bernoulli_flavor). p = 0 returns w itself and draws nothing.]=], [=[
torch.manual_seed(123)
attention.dropout(torch.ones(2, 6), 0.5)
--> tensor([[2., 2., 2., 2., 2., 2.],
-->         [0., 2., 0., 0., 0., 0.]])]=])

def("attention.split_heads", "attention.split_heads(x, h)", [=[
Splits the last dim d of x [b, n, d] into h heads of d/h: the result is [b, h, n, d/h], a view of x
(no copy), exactly the book's x.view(b, n, h, d/h).transpose(1, 2) (attn: x:view(b, n, h, d/h):
transpose(2, 3)). d must be divisible by h. Any number of leading dims works.]=], [=[
x = torch.arange(8):view(1, 2, 4)
attention.split_heads(x, 2)
--> tensor([[[[0, 1],
-->           [4, 5]],
-->
-->          [[2, 3],
-->           [6, 7]]]])]=])

def("attention.merge_heads", "attention.merge_heads(x)", [=[
The inverse of split_heads: [b, h, n, dh] -> [b, n, h*dh], the heads' outputs side by side in each
row; the book's x.transpose(1, 2).contiguous().view(b, n, d). The result is a new contiguous tensor.]=], [=[
x = torch.arange(8):view(1, 2, 4)
torch.equal(attention.merge_heads(attention.split_heads(x, 2)), x)
--> true]=])

def("attention.general", "attention.general(s, W, h)", [=[
Luong's "general" score s·W·hᵀ: s [..., n, ds] (decoder states), W [ds, dh], h [..., m, dh]
(encoder states) give scores [..., n, m]. With W the identity it is the dot score.]=], [=[
attention.general(inputs, torch.eye(3), inputs)[2]   -- inputs: see ?torch.tensor
--> tensor([0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865])]=])

def("attention.additive", "attention.additive(q, k, W_q, W_k, v)", [=[
Additive (Bahdanau) attention scores, d2l's MLPAttention: score(i, j) = vᵀ tanh(W_q q_i + W_k k_j).
q is [..., n, dq], k is [..., m, dk]; W_q [u, dq] and W_k [u, dk] are in nn.Linear's weight layout
(out, in) and v is [u] or [1, u] (the weight of nn.Linear(u, 1, {bias = false})). Result [..., n, m].
Useful when queries and keys have different sizes.]=], [=[
q, k = torch.ones(1, 1, 2), torch.ones(1, 3, 2)
attention.additive(q, k, torch.ones(4, 2) * 0.1, torch.ones(4, 2) * 0.2, torch.ones(4))
--> tensor([[[2.1482, 2.1482, 2.1482]]])]=])

def("attention.forward", "attention.forward{q=, k=, v= [, mask=, scale=true, dropout=0, heads=1, fill=-inf]}",
[=[
Scaled dot-product attention composed from the stages, returning the context vectors and the
weights: scores q·kᵀ, scale, mask, softmax, dropout, weighted sum of v. mask is a bool tensor
(true = hidden) or "causal"; fill is what hidden scores become. scale = true divides by sqrt(d_k),
false skips it, a number multiplies by it. dropout = p drops weights (training mode). heads = h > 1
splits q, k and v ([b, n, d]) into h heads, attends within each, and merges the heads back; the
weights are then [b, h, n, m]. The weights returned are the ones the context was computed with.]=], [=[
context, weights = attention.forward{q = inputs, k = inputs, v = inputs, scale = false}
context[2]                                       -- inputs: see ?torch.tensor
--> tensor([0.4419, 0.6515, 0.5683])
context, weights = attention.forward{q = inputs, k = inputs, v = inputs, mask = "causal"}
weights[2]
--> tensor([0.4226, 0.5774, 0.0000, 0.0000, 0.0000, 0.0000])]=])

def("attention.trace", "attention.trace{x = | q =, k =, v = | module =, x = [, tokens =, loss =, ...]}", [=[
A stepper through the stages of attention. tr:step() computes the next stage and prints it: its
number, name and formula on one line with the shape, then the matrix, with the tokens as row and
column labels; weights are drawn as a heatmap. tr:step("weights") (a field name or a number) goes to
that stage, computing without printing the ones before it, so repeating it shows the same stage again.
tr:run() shows the rest, tr:back() shows the previous
stage again (nothing is recomputed, so dropout stays as drawn), tr:save("trace.html") writes every
stage as a web page (weights as SVG heatmaps; the page of attn --html), and each stage's tensor stays in a field:
tr.scores, tr.weights, tr.context, ... Printing tr shows where you are. Three kinds: {x = inputs} is
§3.3's attention without weights (ω = X·Xᵀ, α = softmax(ω), Z = α·X); {q =, k =, v =} takes the
options of attention.forward (mask, scale, fill, dropout, heads); {module = m, x = batch} follows one
of the book's classes (SelfAttention_v1/v2, CausalAttention, MultiHeadAttentionWrapper,
MultiHeadAttention, and Python Deep Learning's MultiHeadedAttention, whose mask option is what its forward takes,
1 = visible) through its own layers: projections, split heads, scores, masked, scaled, weights,
dropout (in training mode), context, merge heads, out_proj. With several heads or a batch, each stage
shows one matrix per batch item and head. tokens labels the rows (key_tokens the columns, when the
keys differ); color = true/false overrides the terminal's choice; write = f receives the output
(default print). An option that a kind of trace does not use is an error, not ignored. With loss = f, a function of
the last stage's tensor that returns the loss, tr:backward() and tr:run_backward() go back through the same stages,
showing each one's gradient (?attention.trace:backward). A Transformer block (module = block) is traced with the
layer norms, shortcut connections and feed-forward network around its attention (?gpt.TransformerBlock:trace_stages).]=], [=[
tr = attention.trace{x = inputs, tokens = {"Your", "journey", "starts", "with", "one", "step"}}
tr:step()                                        -- inputs: see ?torch.tensor
--> [1/3] scores   ω = X·Xᵀ                                   shape [6, 6]
-->               Your  journey   starts     with      one     step
-->   Your      0.9995   0.9544   0.9422   0.4753   0.4576   0.6310
-->   journey   0.9544   1.4950   1.4754   0.8434   0.7070   1.0865
-->   starts    0.9422   1.4754   1.4570   0.8296   0.7154   1.0605
-->   with      0.4753   0.8434   0.8296   0.4937   0.3474   0.6565
-->   one       0.4576   0.7070   0.7154   0.3474   0.6654   0.2935
-->   step      0.6310   1.0865   1.0605   0.6565   0.2935   0.9450
tr
--> attention.trace of self-attention without weights: 1 of 3 stages shown, next: tr:step()
-->   [scores] → weights → context
tr:step()
--> [2/3] weights  α = softmax(ω, dim=-1)                     shape [6, 6]
-->               Your  journey   starts     with      one     step
-->   Your     0.2098▓  0.2006▓  0.1981▓  0.1242░  0.1220░  0.1452░
-->   journey  0.1385░  0.2379█  0.2333█  0.1240░  0.1082   0.1581▒
-->   starts   0.1390░  0.2369█  0.2326█  0.1242░  0.1108   0.1565▒
-->   with     0.1435░  0.2074▓  0.2046▓  0.1462░  0.1263░  0.1720▒
-->   one      0.1526▒  0.1958▓  0.1975▓  0.1367░  0.1879▓  0.1295░
-->   step     0.1385░  0.2184▓  0.2128▓  0.1420░  0.0988   0.1896▓
tr.weights:sum(-1)
--> tensor([1.0000, 1.0000, 1.0000, 1.0000, 1.0000, 1.0000])]=])

def("attention.trace:backward", "tr:backward([which])   tr:run_backward()", [=[
The backward steps of a trace made with loss = f, f a function of the last stage's tensor that returns the loss
(a tensor of one number). The first call computes the stages not computed yet (with gradients on), L = f(the
last stage's tensor) and, with torch.autograd.grad, the gradient of L with respect to every stage's tensor.
Each tr:backward() then shows the next stage backward, from the last to the first (weighted sum, softmax,
mask, scale, scores, split heads, projections): ∂L/∂ its tensor, after the chain-rule step that makes it from
the gradients of the stages that read it, drawn as its forward step draws the tensor (token labels; ∂L/∂α and
∂L/∂ω as heatmaps); a projection's step also shows its parameters' gradients (∂L/∂W_query.weight).
tr:backward("weights") (a field name, or a number in backward order) shows that step; tr:run_backward() shows
every step not shown yet. The gradients stay in tr.grads, by field name and parameter name; the module's own
.grad are left as they were. tr:save writes the backward steps after the forward ones. For a whole model
(module = model, layer =, head =), the last stage is the chosen head's context; for a Transformer block, the
block's output, so that every parameter of the block gets its gradient (?gpt.TransformerBlock:trace_stages).]=], [=[
torch.manual_seed(789)
sa = nn.SelfAttention_v2(3, 2)                   -- inputs: see ?torch.tensor
tr = attention.trace{module = sa, x = inputs, tokens = {"Your", "journey", "starts", "with", "one", "step"},
                     loss = function(out) return (out * out):sum() end}
tr:backward()
--> [←1/7] context  ∂L/∂Z   (L = loss(Z))                     shape [6, 2]
-->   Your     -0.1478   0.1426
-->   journey  -0.1496   0.1406
-->   starts   -0.1497   0.1405
-->   with     -0.1520   0.1369
-->   one      -0.1527   0.1359
-->   step     -0.1509   0.1386
tr:backward("weights")
--> [←2/7] weights  ∂L/∂α = ∂L/∂Z·Vᵀ                          shape [6, 6]
-->               Your  journey   starts     with      one     step
-->   Your     0.0170▒  0.0277▓  0.0283█  0.0131░  0.0304█  0.0088
-->   journey  0.0171▒  0.0278█  0.0283█  0.0133░  0.0295█  0.0095
-->   starts   0.0171▒  0.0278█  0.0283█  0.0133░  0.0294█  0.0095
-->   with     0.0172▒  0.0278█  0.0282█  0.0135░  0.0278█  0.0105
-->   one      0.0172▒  0.0278█  0.0281█  0.0136░  0.0274▓  0.0108
-->   step     0.0171▒  0.0278█  0.0282█  0.0134░  0.0286█  0.0100
tr.grads["W_query.weight"]
--> tensor([[0.0009, 0.0012, 0.0012],
-->         [0.0009, 0.0012, 0.0012]])]=])

def("attention.heatmap", "attention.heatmap(t [, {rows =, cols =, color =, range =, svg =}])", [=[
Draws a matrix (a 2-D tensor) in the terminal: in colour, each cell's background runs from light (the
smallest value) to dark (the largest) with the value written in it; without colour (not a terminal, or
NO_COLOR set, or color = false) each value is followed by a shade, blank ░ ▒ ▓ █ from smallest to
largest. -inf (a masked score) and nan are shown as such, without a shade. rows and cols are lists of
labels, such as the tokens; range = {lo, hi} fixes the values of the lightest and darkest cells. The
numbers are printed as print(t) prints them. For a batch or several heads, draw one matrix:
attention.heatmap(w[1][2]). svg = "w.svg" writes the matrix to that file as SVG instead, for a
paper or a slide: the value in each cell, the labels, a light-to-dark scale that reads the same with
red-green colour blindness, -inf grey.]=], [=[
w = attention.softmax(attention.scores(inputs, inputs))   -- inputs: see ?torch.tensor
attention.heatmap(w[{{1, 3}, {1, 3}}], {rows = {"Your", "journey", "starts"}, cols = {"x1", "x2", "x3"}})
-->               x1       x2       x3
--> Your     0.2098▓  0.2006▒  0.1981▒
--> journey  0.1385   0.2379█  0.2333█
--> starts   0.1390   0.2369█  0.2326█]=])

def("attention.plot", "attention.plot{x = {...}, series = {{name, {y...}}, ...} [, xlabel =, ylabel =, title =, logx =, width =, height =, svg =]}", [=[
Returns a line plot of one or more series against x, drawn in the terminal with Unicode braille
(2 × 4 dots per character), for numbers easier to look at than to read: a gradient norm against d_k,
a loss against steps. Each point is marked with its series' marker (● ○ ▲ △ ■ □), which the legend
under the plot names; the y axis is labelled at its top, middle and bottom, the x axis at the points'
x values that fit. logx = true puts x on a log scale (x must then be > 0); width and height are the
plot area's size in characters (48 × 10 unless given); title is a line above the plot. Numbers may be
Lua numbers or 0-d tensors. Where the text is printed on a lesson's web page (--html) or in a Jupyter
cell, the same plot shows as an SVG picture (axes with ticks at round numbers, a line through the
points with a marker on each, or on about 30 of a long series, the legend; a marker's numbers in its
tooltip), with the text as the cell's fallback; in a
--markdown handout it stays text. svg = "f.svg" writes that picture to a file instead and returns
nothing. Lesson 19 plots the gradient reaching softmax against d_k with it.]=], [=[
print(attention.plot{x = {3, 64, 768, 4096}, series = {{"softmax(S)", {0.81, 0.96, 0.23, 0.03}}}, xlabel = "d_k", logx = true})]=])

def("attention", "attention", [=[
The stages of the attention mechanism as functions you can call and print one at a time:
attention.scores (q·kᵀ), scale, causal_mask / valid_len_mask / mask, softmax, dropout, weighted_sum,
split_heads / merge_heads, and the score functions dot, general and additive; attention.forward
runs them all, attention.trace shows them one step at a time, attention.heatmap draws a matrix.]=], [=[
w = attention.softmax(attention.scores(inputs, inputs))   -- inputs: see ?torch.tensor
w:sum(-1)
--> tensor([1.0000, 1.0000, 1.0000, 1.0000, 1.0000, 1.0000])]=], attention)
