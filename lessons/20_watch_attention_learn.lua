-- 20_watch_attention_learn.lua — where W_q, W_k and W_v come from: training. A one-layer attention
-- model learns to reverse 6 digits, a task whose right attention is known (the anti-diagonal), and
-- its weights are shown at checkpoints on the way from uniform noise to that pattern. Every loss of
-- the 200 steps and the weights at each checkpoint are checked against PyTorch's run of the same loop
-- (scripts/lesson_reference_learn.py, tests/data/torch/lesson_learn.txt): the first 50 losses bit for
-- bit, the rest within 1e-5.
--   ./attn lessons/20_watch_attention_learn.lua           straight through
--   ./attn --step lessons/20_watch_attention_learn.lua    one training checkpoint per step
--   ./attn --html page.html lessons/20_watch_attention_learn.lua   the heatmaps as frames to scrub

lesson.title("Watch attention learn",
             {source = "Build a Large Language Model (From Scratch) §3.4 (W_q, W_k and W_v are learned in training); a toy task, reversing digits"})

local function pytorch(name)
    return lesson.reference("lesson_learn.txt", "learn." .. name)
end

lesson.section("A task whose right attention is known")

lesson.say[[
Every lesson so far computed attention with weights W_q, W_k and W_v drawn at random from a seed,
and the texts say where the real ones come from in one word: training. This lesson trains them and
watches. The task is small enough to train in moments, and its right answer is known in
advance: reverse a sequence of 6 digits. The output at position i is the input at position 7 − i,
so a model that solves it with attention must make position i attend to position 7 − i: the
anti-diagonal of the weight matrix.

The model is one self-attention layer and nothing else: embeddings of the digit and of its position
(added, as GPT does), the three projections, softmax(Q Kᵀ / √d) V, and a Linear layer from the
result to the 10 digits. It has no residual path, so the answer at a position can only come from the
token that position attends to.]]

lesson.step("the model: embeddings, W_q, W_k, W_v and an output layer", function()
    N, VOCAB, D = 6, 10, 16                         -- 6 digits, 10 kinds of digit, 16 numbers per token
    Reverser = nn.Module:extend("Reverser")
    function Reverser:__init()
        self.tok = nn.Embedding(VOCAB, D)           -- the digit
        self.pos = nn.Embedding(N, D)               -- its position
        self.W_q = nn.Linear(D, D, {bias = false})  -- Python: nn.Linear(16, 16, bias=False)
        self.W_k = nn.Linear(D, D, {bias = false})
        self.W_v = nn.Linear(D, D, {bias = false})
        self.out = nn.Linear(D, VOCAB)
    end
    function Reverser:forward(src)                  -- src: [batch, 6] ids; returns logits and weights
        local x = self.tok(src) + self.pos(torch.arange(1, N + 1))   -- Python: self.pos(torch.arange(6))
        local q, k, v = self.W_q(x), self.W_k(x), self.W_v(x)
        local a = torch.softmax(q:matmul(k:transpose(2, 3)) / math.sqrt(D), -1)  -- Python: q @ k.transpose(1, 2)
        return self.out(a:matmul(v)), a
    end
    torch.manual_seed(0)
    model = Reverser()
    lesson.show("model", model)
    local count = 0
    for _, p in ipairs(model:parameters()) do count = count + p:numel() end
    lesson.printf("parameters: %d", count)
    lesson.agree("10·16 + 6·16 + 3·16·16 + 16·10 + 10 parameters", count, 10 * 16 + 6 * 16 + 3 * 16 * 16 + 16 * 10 + 10)
end)

lesson.say[[
One example to watch throughout: the digits 2 7 1 8 3 5, whose reversal is 5 3 8 1 7 2. In the
heatmaps a row is a position of the input (labelled with the digit it must output) and a column the
position it attends to (labelled with the digit there): right attention puts each row's weight on the
column with its own label. (Digits are ids counted from 1 here, PyTorch's plus 1.)]]

lesson.step("before training: the untrained attention, and the right one", function()
    example = torch.tensor{{2, 7, 1, 8, 3, 5}} + 1            -- Python: torch.tensor([[2, 7, 1, 8, 3, 5]])
    labels = {cols = {"2", "7", "1", "8", "3", "5"}, rows = {"→5", "→3", "→8", "→1", "→7", "→2"},
              range = {0, 1}}                                  -- the same colours for a weight in every frame
    rev = torch.arange(N, 0, -1)                              -- 6, 5, ..., 1: the positions reversed
    right = torch.eye(N):flip(2)                              -- Python: torch.eye(6).flip(1), the anti-diagonal
    function weights_now()                                    -- the example's weights, no graph kept
        local w
        torch.no_grad(function() w = select(2, model(example))[1] end)   -- Python: with torch.no_grad():
        return w
    end
    function on_right(w) return ((w * right):sum() / N):item() end   -- mean weight on the right position
    frames = {}
    function checkpoint(step)
        local w = weights_now()
        frames[#frames + 1] = {lesson.tr("step %d", step), w, labels}
        lesson.heatmaps{{lesson.tr("weights after %d steps", step), w, labels}}
        lesson.printf("mean weight on the right position: %.4f", on_right(w))
        lesson.check(lesson.tr("the weights after %d steps, as PyTorch computes them", step), w,
                     pytorch("weights." .. step), {tol = 0})
        return w
    end
    lesson.heatmaps{{lesson.tr("the right attention"), right, labels}}
    local w = checkpoint(0)
    lesson.agree("each row of weights sums to 1", w:sum(-1), torch.ones(N), {tol = 1e-6})
    lesson.agree("untrained, the right positions get less than uniform attention's 1/6", on_right(w) < 1 / 6, true)
end)

lesson.say[[
Untrained, the weights have no pattern: each row spreads over all six positions, and a few large
weights sit wherever the random W_q and W_k happen to put them, mostly off the anti-diagonal.]]

lesson.section("Training")

lesson.say[[
One training step: draw a batch of 32 random sequences (torch.randint, from the same seeded stream as
the weights), compute the logits for all 6 positions, the cross-entropy against the reversed
sequences, then backward() and one Adam step (lr 0.003). PyTorch's loop does the same in the same
order, so it draws the same batches and makes the same updates: each loss below is compared with
PyTorch's, the first 50 bit for bit (tolerance 0), the later ones within 1e-5.]]

lesson.step("one training step, written out", function()
    opt = torch.optim.Adam(model:parameters(), {lr = 0.003})
    losses = {}                                               -- the loss of each step, before its update
    function train_step()
        local src = torch.randint(0, VOCAB, {32, N}) + 1      -- Python: torch.randint(0, 10, (32, 6))
        local logits = model(src)
        local tgt = src:flip(2)                               -- Python: src.flip(1)
        local loss = nn.functional.cross_entropy(logits:flatten(1, 2), tgt:flatten())  -- Python: logits.flatten(0, 1)
        opt:zero_grad()
        loss:backward()
        opt:step()
        losses[#losses + 1] = loss:detach()
        return src, loss
    end
    local src, loss = train_step()
    lesson.show("src[{{1, 3}}] - 1", src[{{1, 3}}] - 1)
    lesson.show("loss", loss)
    lesson.check("the first batch, as PyTorch draws it (ours minus 1)", src - 1, pytorch("batch1"), {tol = 0})
    lesson.check("the loss of step 1, bit for bit as PyTorch's", torch.stack(losses), pytorch("losses.1_1"), {tol = 0})
end)

lesson.say([[
Untrained, the model guesses: the loss is close to ln 10 = %.4f, the cross-entropy of a uniform
guess among 10 digits.]], math.log(10))

lesson.say[[
Now the checkpoints: each step below trains on to the next one and shows the example's attention
there. Watch the weight gather on the anti-diagonal.]]

lesson.step("train to step 10", function()
    -- train_to(n, first, tol): the steps up to step n, the example's weights there, and the losses
    -- of steps first to n against PyTorch's (tol 0: bit for bit)
    function train_to(n, first, tol)
        while #losses < n do train_step() end
        checkpoint(n)
        lesson.printf("loss at step %d: %.6f", n, losses[n]:item())
        local part = {}
        for i = first, n do part[#part + 1] = losses[i] end
        local what = tol == 0 and lesson.tr("the losses of steps %d to %d, bit for bit as PyTorch's", first, n)
                     or lesson.tr("the losses of steps %d to %d, as PyTorch's within 1e-5", first, n)
        lesson.check(what, torch.stack(part), pytorch("losses." .. first .. "_" .. n), {tol = tol})
    end
    train_to(10, 1, 0)
end)
lesson.step("train to step 25", function() train_to(25, 1, 0) end)
lesson.step("train to step 50", function() train_to(50, 1, 0) end)
lesson.step("train to step 75", function() train_to(75, 51, 1e-5) end)
lesson.step("train to step 100", function() train_to(100, 51, 1e-5) end)
lesson.step("train to step 200", function() train_to(200, 51, 1e-5) end)

lesson.section("The whole run")

lesson.say[[
All the checkpoints together (on the web page, a slider moves through them), the loss curve, and the
200 losses against PyTorch's once more.]]

lesson.step("the checkpoints, the loss curve and the agreement with PyTorch", function()
    lesson.heatmaps(frames, {frames = lesson.tr("the example's attention weights during training")})
    local steps, ys = {1}, {losses[1]:item()}               -- the loss every 20 steps
    for i = 20, #losses, 20 do steps[#steps + 1], ys[#ys + 1] = i, losses[i]:item() end
    print(attention.plot{x = steps, series = {{lesson.tr("loss"), ys}}, xlabel = lesson.tr("step"),
                         ylabel = lesson.tr("loss"), width = 60})
    lesson.check(lesson.tr("all %d losses, as PyTorch's within 1e-5", #losses), torch.stack(losses),
                 pytorch("losses"), {tol = 1e-5})
    local w = frames[#frames][2]
    lesson.agree("trained, the mean weight on the right position is above 0.95", on_right(w) > 0.95, true)
    lesson.agree("trained, every row's largest weight is on the anti-diagonal",
                 w:argmax(-1), rev, {tol = 0})
end)

lesson.say[[
Nobody wrote the anti-diagonal into the model: gradient descent on the loss found that position i
must look at position 7 − i, and W_q, W_k and the position embeddings now encode it. That is the
answer to "where do W_q, W_k and W_v come from?": they are whatever makes the loss small.]]
