-- 21_pretraining_the_verdict.lua — Build a Large Language Model (From Scratch), ch. 5 §5.1–5.2 (and ch. 4's
-- shortcut connections): GPT-2 small, untrained, on the short story the chapter trains on, Edith
-- Wharton's "The Verdict" (1908, public domain; lessons/data/the-verdict.txt, its provenance in
-- lessons/data/README.md). The untrained model's text, the target probabilities, cross-entropy and
-- perplexity as the book prints them; the data loaders; calc_loss_loader; then train_model_simple with
-- the book's settings; §5.4, saving and loading the trained model and its optimizer (the whole run
-- only). Checked against the book's printed numbers where this machine reproduces them, else
-- against PyTorch's run of the same code (scripts/lesson_reference_verdict.py,
-- tests/data/torch/lesson_verdict.txt).
--   ./attn lessons/21_pretraining_the_verdict.lua           the whole training run (ten epochs: long)
--   ./attn --check lessons/21_pretraining_the_verdict.lua   the quick part (the training loop is not run)
--   ./attn --step lessons/21_pretraining_the_verdict.lua    one step at a time (the whole run too)
--   ATTN_VERDICT_STEPS=10 ./attn lessons/21_pretraining_the_verdict.lua   the first 10 training steps only
--   ATTN_VERDICT_STEPS=0 ./attn lessons/21_pretraining_the_verdict.lua    the quick part only

lesson.title("Pretraining on \"The Verdict\"",
             {source = "Build a Large Language Model (From Scratch), ch. 5 §5.1–5.2; ch. 4 §4.4"})

local function pytorch(name)
    return lesson.reference("lesson_verdict.txt", "verdict." .. name)
end
-- PyTorch's number when its reference run went that far (it holds the first steps only), else nil
local function pytorch_if_any(name)
    local ok, t = pcall(pytorch, name)
    return ok and t or nil
end

-- The ten epochs run only when the lesson runs by itself (a plain run or step mode). --check, --html,
-- --markdown and a notebook run everything before the training loop (about ten model evaluations of
-- GPT-2 small), and the loop's first steps are left to the whole run: one step of GPT-2 small's
-- training takes seconds, the whole run many minutes. (In a notebook this line is not a cell:
-- whole_run stays nil there, the quick part.)
-- ATTN_VERDICT_STEPS=N stops the whole run's training after N steps (a shorter run in class); N = 0
-- runs the quick part only, as --check does (the test suites run every lesson as a script this way).
local mode = lesson.state().mode
max_steps = math.tointeger(tonumber(os.getenv("ATTN_VERDICT_STEPS") or ""))
if max_steps and max_steps < 0 then max_steps = nil end
whole_run = (mode == "run" or mode == "step" or mode == "line") and max_steps ~= 0

-- The training steps whose losses equal PyTorch's to the last bit on this machine whatever the thread
-- count (step 0's), and the tolerance of the steps after it and of the evaluations. Measured against
-- PyTorch's reference run of all 90 steps (one thread): with one thread (OPENBLAS_NUM_THREADS=1), 48 of
-- the 90 losses are PyTorch's to the last bit, the first that is not is step 1, and no step's or
-- evaluation's loss is more than 9.54e-7 away (one float32 step of a number between 8 and 16); the
-- difference does not grow with training, and every epoch's sample is PyTorch's token for token. With
-- two threads (OpenBLAS sums the wide products in another order), over the first 11 steps: 9 equal,
-- 9.54e-7 at most. The tolerance is twice that largest difference.
EXACT_STEPS = 1
DRIFT_TOL = 2e-6
EVAL_TOL = 2e-6

lesson.section("5.1.1  Using GPT to generate text")

lesson.say[[
Chapter 4's GPTModel with GPT-2 small's sizes (12 layers of 12 heads, 768 dimensions, a vocabulary of
50,257 tokens), but a context of 256 tokens instead of 1024, built after torch.manual_seed(123): every
weight is the one PyTorch draws, so the untrained model's text is the book's. Chapter 5 adds two
helpers, text_to_token_ids and token_ids_to_text (gpt.text_to_token_ids and gpt.token_ids_to_text).
attn's token ids are one more than tiktoken's (Lua counts from 1).]]

lesson.needs{"gpt2 vocabulary"}   -- make run fetches it; else the lesson says where it looked, how to get it

lesson.step("GPT-2's tokenizer", function()
    tokenizer = tiktoken.get_encoding("gpt2")             -- Python: tokenizer = tiktoken.get_encoding("gpt2")
    GPT_CONFIG_124M = gpt.config_124M()
    GPT_CONFIG_124M.context_length = 256                  -- shortened context length (orig: 1024)
    lesson.show("GPT_CONFIG_124M", GPT_CONFIG_124M)
end)

lesson.step("the untrained model's text", function()
    torch.manual_seed(123)
    model = gpt.GPTModel(GPT_CONFIG_124M)
    model:eval()                                          -- disable dropout during inference
    start_context = "Every effort moves you"
    token_ids = gpt.generate_text_simple(model, gpt.text_to_token_ids(start_context, tokenizer), 10,
                                         GPT_CONFIG_124M.context_length)
    local text = gpt.token_ids_to_text(token_ids, tokenizer)
    print("Output text:\n " .. text)
    lesson.check("the ids, as PyTorch generates them", token_ids - 1, pytorch("untrained.ids"), {tol = 0})
    lesson.check("the text (the book's Out [3])", text, "Every effort moves you rentingetic wasnم refres RexMeCHicular stren")
end)

lesson.section("5.1.2  Calculating the text generation loss: cross-entropy and perplexity")

lesson.say[[
Two texts of three tokens, "every effort moves" and "I really like", and their targets, the same
texts shifted by one token: " effort moves you" and " really like chocolate". The model gives each
position a probability for each of the 50,257 tokens; training should raise the probability of the
target token. (The ids below are tiktoken's plus one.)]]

lesson.step("the probabilities of the targets", function()
    inputs = torch.tensor{{16833, 3626, 6100},             -- ["every effort moves",
                          {40,    1107, 588}} + 1          --  "I really like"]
    targets = torch.tensor{{3626, 6100, 345},              -- [" effort moves you",
                           {1107,  588, 11311}} + 1        --  " really like chocolate"]
    logits = torch.no_grad(function() return model(inputs) end)   -- Python: with torch.no_grad(): logits = model(inputs)
    probas = torch.softmax(logits, -1)
    print(probas.shape)
    local token_ids = torch.argmax(probas, -1, true)
    print("Token IDs:\n " .. tostring(token_ids - 1))    -- tiktoken's ids, as the book prints them
    print("Targets batch 1: " .. gpt.token_ids_to_text(targets[1], tokenizer))
    print("Outputs batch 1: " .. gpt.token_ids_to_text(token_ids[1]:flatten(), tokenizer))
    target_probas_1 = probas[{1, torch.tensor{1, 2, 3}, targets[1]}]   -- Python: probas[0, [0, 1, 2], targets[0]]
    target_probas_2 = probas[{2, torch.tensor{1, 2, 3}, targets[2]}]
    print("Text 1: " .. tostring(target_probas_1))
    print("Text 2: " .. tostring(target_probas_2))
    lesson.check("the shape (the book's Out [5])", tostring(probas.shape), "torch.Size([2, 3, 50257])")
    lesson.check("the most likely ids (the book's Out [6])", token_ids - 1, [=[
tensor([[[16657],
         [  339],
         [42826]],

        [[49906],
         [29669],
         [41751]]])]=])
    lesson.check("the outputs of text 1 (the book's Out [7])", gpt.token_ids_to_text(token_ids[1]:flatten(), tokenizer),
                 " Armed heNetflix")
    lesson.check("Text 2 (the book's Out [8])", target_probas_2, "tensor([1.0337e-05, 5.6776e-05, 4.7559e-06])")
    -- (the book prints Text 1's first probability as 7.4541e-05: its notebook ran on the author's GPU;
    -- PyTorch on this machine's CPU gives 7.4540e-05, as attn does)
    lesson.check("Text 1, as PyTorch computes it", target_probas_1, pytorch("book.target_probas_1"), {tol = 5e-11})
    lesson.check("Text 2, as PyTorch computes it", target_probas_2, pytorch("book.target_probas_2"), {tol = 5e-11})
end)

lesson.say[[
Training maximises these probabilities; it is easier to maximise their logarithms, and deep learning
minimises instead: the negative of the average log-probability, the cross-entropy loss. PyTorch's
cross_entropy does it in one call, on the logits flattened over the batch. Its exponential is the
perplexity: roughly, how many tokens the model hesitates between at each position.]]

lesson.step("cross-entropy and perplexity", function()
    log_probas = torch.log(torch.cat{target_probas_1, target_probas_2})
    print(log_probas)
    avg_log_probas = torch.mean(log_probas)
    print(avg_log_probas)
    neg_avg_log_probas = avg_log_probas * -1
    print(neg_avg_log_probas)
    print("Logits shape: " .. tostring(logits.shape))
    print("Targets shape: " .. tostring(targets.shape))
    logits_flat = logits:flatten(1, 2)                    -- Python: logits.flatten(0, 1)
    targets_flat = targets:flatten()
    print("Flattened logits: " .. tostring(logits_flat.shape))
    print("Flattened targets: " .. tostring(targets_flat.shape))
    loss = nn.functional.cross_entropy(logits_flat, targets_flat)
    print(loss)
    perplexity = torch.exp(loss)
    print(perplexity)
    lesson.check("the log-probabilities (the book's Out [9])", log_probas,
                 "tensor([ -9.5042, -10.3796, -11.3677, -11.4798,  -9.7764, -12.2561])")
    lesson.check("their average (the book's Out [10])", avg_log_probas, "tensor(-10.7940)")
    lesson.check("its negative (the book's Out [11])", neg_avg_log_probas, "tensor(10.7940)")
    lesson.check("cross_entropy (the book's Out [14])", loss, "tensor(10.7940)")
    lesson.check("the perplexity (the book's Out [15])", perplexity, "tensor(48725.8203)")
    lesson.check("cross_entropy, as PyTorch computes it", loss, pytorch("book.loss"), {tol = 0})
    lesson.check("the perplexity, as PyTorch computes it", perplexity, pytorch("book.perplexity"), {tol = 0})
    lesson.agree("cross_entropy is the negative average log-probability", loss, neg_avg_log_probas, {tol = 1e-5})
end)

lesson.section("5.1.3  Calculating the training and validation set losses")

lesson.say[[
The data is one short story, Edith Wharton's "The Verdict" (1908): the text chapter 2 tokenized.
attn ships it as lesson data (lessons/data/the-verdict.txt, from the book's repository). The first
90% of its characters are for training, the rest for validation; chapter 2's GPTDatasetV1 cuts each
part's tokens into windows of 256 (the context), with the targets one token later.]]

lesson.step("the text and its tokens", function()
    local f = assert(io.open(lesson.data("the-verdict.txt"), "r"))   -- Python: with open(file_path, "r", encoding="utf-8") as file:
    text_data = f:read("a")
    f:close()
    print(text_data:sub(1, 99))                           -- Python: text_data[:99]
    print(text_data:sub(-99))                             -- Python: text_data[-99:]
    total_characters = #text_data                         -- the text is ASCII: one byte a character
    total_tokens = #tokenizer:encode(text_data)
    print("Characters: " .. total_characters)
    print("Tokens: " .. total_tokens)
    lesson.check("the characters (the book's Out [19])", total_characters, 20479)
    lesson.check("the tokens (the book's Out [19])", total_tokens, 5145)
end)

lesson.step("the data loaders", function()
    -- chapter 2's GPTDatasetV1: windows of max_length tokens every stride tokens, targets one token later
    function GPTDatasetV1(txt, max_length, stride)
        local token_ids = tokenizer:encode(txt, {allowed_special = {"<|endoftext|>"}})
        local items = {}
        for i = 1, #token_ids - max_length, stride do   -- Python: range(0, len(token_ids) - max_length, stride)
            items[#items + 1] = {torch.tensor(table.move(token_ids, i, i + max_length - 1, 1, {})),
                                 torch.tensor(table.move(token_ids, i + 1, i + max_length, 1, {}))}
        end
        return items
    end
    function create_dataloader_v1(txt, opts)
        return torch.utils.data.DataLoader(GPTDatasetV1(txt, opts.max_length, opts.stride),
                                           {batch_size = opts.batch_size, shuffle = opts.shuffle,
                                            drop_last = opts.drop_last})
    end
    local train_ratio = 0.90
    local split_idx = math.floor(train_ratio * #text_data)          -- Python: int(train_ratio * len(text_data))
    train_data, val_data = text_data:sub(1, split_idx), text_data:sub(split_idx + 1)
    torch.manual_seed(123)
    local ctx = GPT_CONFIG_124M.context_length
    train_loader = create_dataloader_v1(train_data, {batch_size = 2, max_length = ctx, stride = ctx,
                                                     drop_last = true, shuffle = true})
    val_loader = create_dataloader_v1(val_data, {batch_size = 2, max_length = ctx, stride = ctx,
                                                 drop_last = false, shuffle = false})
    print("Train loader:")
    for x, y in train_loader do print(tostring(x.shape) .. " " .. tostring(y.shape)) end
    print("\nValidation loader:")
    for x, y in val_loader do print(tostring(x.shape) .. " " .. tostring(y.shape)) end
    local train_tokens, val_tokens = 0, 0
    for x in train_loader do train_tokens = train_tokens + x:numel() end
    for x in val_loader do val_tokens = val_tokens + x:numel() end
    print("Training tokens: " .. train_tokens)
    print("Validation tokens: " .. val_tokens)
    print("All tokens: " .. (train_tokens + val_tokens))
    lesson.check("the training batches (the book's Out [22])", #train_loader, 9)
    lesson.check("the validation batches (the book's Out [22])", #val_loader, 1)
    lesson.check("the training tokens (the book's Out [23])", train_tokens, 4608)
    lesson.check("the validation tokens (the book's Out [23])", val_tokens, 512)
end)

lesson.say[[
calc_loss_batch is the cross-entropy of one batch; calc_loss_loader averages it over a loader's
batches (all of them, or the first num_batches). The untrained model's loss is close to the loss of
a uniform guess, ln 50257 ≈ 10.82.]]

lesson.step("calc_loss_loader: the untrained model's losses", function()
    function calc_loss_batch(input_batch, target_batch, model)
        local logits = model(input_batch)
        return nn.functional.cross_entropy(logits:flatten(1, 2), target_batch:flatten())
    end
    function calc_loss_loader(data_loader, model, num_batches)
        local total_loss = 0.0
        if #data_loader == 0 then return 0 / 0 end          -- Python: float("nan")
        num_batches = math.min(num_batches or #data_loader, #data_loader)
        local i = 0
        for input_batch, target_batch in data_loader() do  -- data_loader(): a fresh pass of its own
            i = i + 1
            if i > num_batches then break end
            total_loss = total_loss + calc_loss_batch(input_batch, target_batch, model):item()
        end
        return total_loss / num_batches
    end
    torch.manual_seed(123)                                -- the same shuffle as the book's
    if whole_run then
        train_loss = torch.no_grad(calc_loss_loader, train_loader, model)
        print("Training loss: " .. string.format("%.17g", train_loss))
    end
    val_loss = torch.no_grad(calc_loss_loader, val_loader, model)
    print("Validation loss: " .. string.format("%.17g", val_loss))
    if train_loss then
        -- (as float32, bit for bit; as doubles the averages differ by 1.1e-7: one of the nine batches'
        -- losses, the fifth, is one float32 step (9.5e-7) from PyTorch's, 10.9981012 against 10.9981022)
        lesson.check("the training loss, as PyTorch computes it", torch.tensor(train_loss), pytorch("calc.train_loss"), {tol = 0})
        lesson.check("the training loss (the book's Out [25]: 10.98758…)", train_loss, 10.98758, {tol = 5e-6})
    end
    lesson.check("the validation loss, as PyTorch computes it", torch.tensor(val_loss), pytorch("calc.val_loss"), {tol = 0})
    lesson.check("the validation loss (the book's Out [25])", val_loss, 10.98110580444336)
end)

lesson.section("5.2  Training an LLM")

lesson.say[[
train_model_simple, as the book writes it: for each epoch, for each training batch, zero the
gradients, compute the batch's loss, backward, one optimizer step; every eval_freq steps the
average loss of eval_iter training and validation batches (the model in eval mode, no dropout), and
after each epoch a sample of 50 greedy tokens. The settings are the book's: a fresh GPTModel after
torch.manual_seed(123), AdamW with learning rate 4e-4 and weight decay 0.1, 10 epochs, eval_freq 5,
eval_iter 5. The model trains with dropout 0.1: its masks are PyTorch's random numbers too.
One option is attn's, not the book's: max_steps stops the loop early (ATTN_VERDICT_STEPS=N in the
environment stops the whole run after N steps; the quick run does not train).]]

lesson.step("train_model_simple", function()
    function evaluate_model(model, train_loader, val_loader, eval_iter)
        model:eval()
        local train_loss = torch.no_grad(calc_loss_loader, train_loader, model, eval_iter)
        local val_loss = torch.no_grad(calc_loss_loader, val_loader, model, eval_iter)
        model:train()
        return train_loss, val_loss
    end
    function generate_and_print_sample(model, tokenizer, start_context)
        model:eval()
        local context_size = model.pos_emb.weight.shape[1]
        local encoded = gpt.text_to_token_ids(start_context, tokenizer)
        local ids = gpt.generate_text_simple(model, encoded, 50, context_size)  -- under no_grad, as the book's
        print((gpt.token_ids_to_text(ids, tokenizer):gsub("\n", " ")))       -- compact print format
        model:train()
        return ids
    end
    function train_model_simple(model, train_loader, val_loader, optimizer, num_epochs, eval_freq, eval_iter,
                                start_context, tokenizer, max_steps)
        local train_losses, val_losses, track_tokens_seen = {}, {}, {}
        local step_losses, samples = {}, {}                -- kept for the checks against PyTorch
        local tokens_seen, global_step = 0, -1
        local total = num_epochs * #train_loader
        local started = os.time()
        for epoch = 1, num_epochs do
            model:train()
            -- train_loader(): this loop's own pass, which the evaluations' passes over the same
            -- loader inside it leave alone (as Python's for loop over a DataLoader does)
            for input_batch, target_batch in train_loader() do
                if max_steps and global_step + 1 >= max_steps then
                    return train_losses, val_losses, track_tokens_seen, step_losses, samples
                end
                optimizer:zero_grad()                     -- reset the gradients of the previous batch
                local loss = calc_loss_batch(input_batch, target_batch, model)
                loss:backward()                           -- the gradients of the loss
                optimizer:step()                          -- update the weights
                tokens_seen = tokens_seen + input_batch:numel()
                global_step = global_step + 1
                step_losses[global_step + 1] = loss:detach()
                lesson.printf("  [step %d of %d: loss %.4f, %d s so far]", global_step + 1, total,
                                       loss:item(), os.time() - started)
                if global_step % eval_freq == 0 then
                    local train_loss, val_loss = evaluate_model(model, train_loader, val_loader, eval_iter)
                    train_losses[#train_losses + 1] = train_loss
                    val_losses[#val_losses + 1] = val_loss
                    track_tokens_seen[#track_tokens_seen + 1] = tokens_seen
                    print(string.format("Ep %d (Step %06d): Train loss %.3f, Val loss %.3f", epoch, global_step,
                                        train_loss, val_loss))
                end
            end
            samples[epoch] = generate_and_print_sample(model, tokenizer, start_context)
        end
        return train_losses, val_losses, track_tokens_seen, step_losses, samples
    end
end)

lesson.step("ten epochs on \"The Verdict\"", function()
    num_epochs = 10
    if not whole_run then -- the quick run (--check, --html, ...: see the top of the lesson) trains nothing
        train_losses, val_losses, tokens_seen, step_losses, samples = {}, {}, {}, {}, {}
        lesson.printf("(The quick run stops here, before the first of the %d steps.)", num_epochs * #train_loader)
        return
    end
    model = nil
    collectgarbage()                                      -- the untrained model's 650 MB, before the next one
    -- Dropout's masks as PyTorch built without MKL draws them (Debian's python3-torch, which made the
    -- reference run), not attn's default "mkl" flavour (lesson 04): the same random numbers, another mask.
    torch.set_bernoulli_flavor("default")
    torch.manual_seed(123)
    model = gpt.GPTModel(GPT_CONFIG_124M)
    optimizer = torch.optim.AdamW(model:parameters(), {lr = 0.0004, weight_decay = 0.1})
    local started = os.time()
    train_losses, val_losses, tokens_seen, step_losses, samples = train_model_simple(
        model, train_loader, val_loader, optimizer, num_epochs, 5, 5, "Every effort moves you", tokenizer,
        max_steps)
    if #step_losses < num_epochs * #train_loader then
        lesson.say("Training took %d s for %d steps (stopped by ATTN_VERDICT_STEPS).", os.time() - started, #step_losses)
    else
        lesson.say("Training took %d s for %d steps.", os.time() - started, #step_losses)
    end
end)

lesson.say[[
The book's printed losses come from the author's machine, and it says so: yours may differ, which is
no reason for concern if they are roughly similar (a training loss below 1 and a validation loss
below 7). attn's must be PyTorch's on this machine for the same loop: each step's loss, each
evaluation and each epoch's sample, against PyTorch's run of the same code.]]

lesson.step("the losses against PyTorch's", function()
    -- how far apart the two runs are: the steps equal to the last bit, the first that is not, and the
    -- largest difference of a step's loss and of an evaluation (the numbers the lesson's comments and
    -- lessons/README.md quote come from this summary)
    local exact, first_apart, largest, largest_at = 0, nil, 0, nil
    for k, loss_k in ipairs(step_losses) do
        local expected = pytorch_if_any(string.format("train.step.%d.loss", k - 1))
        if not expected then
            lesson.say("PyTorch's reference run stops after step %d; the steps after it are not checked.", k - 2)
            break
        end
        lesson.check(lesson.tr("step %d's loss, as PyTorch computes it", k - 1), loss_k, expected,
                     {tol = k <= EXACT_STEPS and 0 or DRIFT_TOL})
        local diff = math.abs(loss_k:item() - expected:item())
        if diff == 0 then exact = exact + 1 elseif first_apart == nil then first_apart = k - 1 end
        if diff > largest then largest, largest_at = diff, k - 1 end
    end
    local eval_largest, eval_largest_at = 0, nil
    for i = 1, #train_losses do
        local expected_train = pytorch_if_any(string.format("train.eval.%d.train_loss", i - 1))
        if not expected_train then break end
        local expected_val = pytorch(string.format("train.eval.%d.val_loss", i - 1))
        local tol = (i - 1) * 5 < EXACT_STEPS and EVAL_TOL or DRIFT_TOL
        lesson.check(lesson.tr("evaluation %d's training loss, as PyTorch computes it", i - 1),
                     torch.tensor(train_losses[i]), expected_train, {tol = tol})
        lesson.check(lesson.tr("evaluation %d's validation loss, as PyTorch computes it", i - 1),
                     torch.tensor(val_losses[i]), expected_val, {tol = tol})
        for _, diff in ipairs({math.abs(train_losses[i] - expected_train:item()),
                               math.abs(val_losses[i] - expected_val:item())}) do
            if diff > eval_largest then eval_largest, eval_largest_at = diff, i - 1 end
        end
    end
    for epoch, ids in ipairs(samples) do
        local expected = pytorch_if_any(string.format("train.epoch.%d.sample", epoch))
        if not expected then break end
        -- greedy decoding: a drift far below the gap between the two likeliest tokens picks the same ones
        lesson.check(lesson.tr("epoch %d's sample, as PyTorch generates it", epoch), ids - 1, expected, {tol = 0})
    end
    if #step_losses > 0 then
        lesson.say("%d of the %d steps' losses are PyTorch's to the last bit.", exact, #step_losses)
        if first_apart ~= nil then
            lesson.say("The first step whose loss is not: step %d. The largest difference of a step's loss: %.3g (step %d).",
                       first_apart, largest, largest_at)
        end
        if eval_largest_at ~= nil then
            lesson.say("The largest difference of an evaluation's loss: %.3g (evaluation %d).", eval_largest, eval_largest_at)
        end
    end
    if #step_losses == num_epochs * #train_loader then
        lesson.check("the last training loss is below 1 (the book: roughly similar)", train_losses[#train_losses] < 1, true)
        lesson.check("the last validation loss is below 7 (the book: roughly similar)", val_losses[#val_losses] < 7, true)
    end
end)

lesson.step("the loss curves", function()
    if #train_losses == 0 then
        lesson.printf("(No evaluation in the quick run: the whole run plots its 18 evaluations here.)")
        return
    end
    -- Python: epochs_seen = torch.linspace(0, num_epochs, len(train_losses))
    local epochs_seen = torch.linspace(0, num_epochs, #train_losses):tolist()
    print(attention.plot{x = epochs_seen, xlabel = "Epochs", ylabel = "Loss", width = 60, height = 12,
                         series = {{"Training loss", train_losses}, {"Validation loss", val_losses}}})
    lesson.say("Tokens seen at the last evaluation: %d.", tokens_seen[#tokens_seen])
end)

lesson.section("5.4  Loading and saving model weights")

lesson.say[[
The trained weights, saved as the book saves them, torch.save(model:state_dict(), "model.pth"), and
loaded into a new GPTModel; then the model and the optimizer together, so that training can go on
where it stopped (AdamW keeps two moving averages per weight: without them the next steps would not
be the same). attn writes a safetensors file whatever the name, data only, never a pickle (?torch.save):
Python reads it with the safetensors package (safetensors.torch.load_file), not with torch.load.]]

lesson.step("saving and loading the trained model", function()
    if not whole_run then
        lesson.printf("(The quick run trained no model: the whole run saves it here, about 650 MB.)")
        return
    end
    torch.save(model:state_dict(), "model.pth")
    local trained = model
    model = gpt.GPTModel(GPT_CONFIG_124M)
    model:load_state_dict(torch.load("model.pth", {map_location = "cpu", weights_only = true}))
    model:eval()
    lesson.check("the loaded weights are the trained ones", torch.equal(model.out_head.weight, trained.out_head.weight), true)
end)

lesson.step("saving and loading the model and the optimizer", function()
    if not whole_run then
        lesson.printf("(The quick run trained no model: the whole run saves it here with AdamW's state, about 2 GB.)")
        return
    end
    torch.save({
        model_state_dict = model:state_dict(),
        optimizer_state_dict = optimizer:state_dict(),
    }, "model_and_optimizer.pth")
    checkpoint = torch.load("model_and_optimizer.pth", {weights_only = true})
    model = gpt.GPTModel(GPT_CONFIG_124M)
    model:load_state_dict(checkpoint["model_state_dict"])
    optimizer = torch.optim.AdamW(model:parameters(), {lr = 0.0005, weight_decay = 0.1})
    optimizer:load_state_dict(checkpoint["optimizer_state_dict"])
    model:train()
    lesson.check("the saved learning rate is back (not the new optimizer's 0.0005)", optimizer.param_groups[1].lr, 0.0004)
end)

lesson.section("4.4  Adding shortcut connections (chapter 4)")

lesson.say[[
Why GPTModel's blocks add their input back to their output: chapter 4's ExampleDeepNeuralNetwork,
five layers of Linear and GELU, with and without shortcuts. Without them the gradient of the first
layer's weight is a few ten-thousandths (the vanishing gradient); with them it stays large.]]

lesson.step("the mean gradient of each layer, without and with shortcuts", function()
    ExampleDeepNeuralNetwork = nn.Module:extend("ExampleDeepNeuralNetwork")
    function ExampleDeepNeuralNetwork:__init(layer_sizes, use_shortcut)
        self.use_shortcut = use_shortcut
        local layers = {}
        for i = 1, 5 do layers[i] = nn.Sequential(nn.Linear(layer_sizes[i], layer_sizes[i + 1]), gpt.GELU()) end
        self.layers = nn.ModuleList(layers)
    end
    function ExampleDeepNeuralNetwork:forward(x)
        for _, layer in ipairs(self.layers) do
            local layer_output = layer(x)
            if self.use_shortcut and tostring(x.shape) == tostring(layer_output.shape) then
                x = x + layer_output
            else
                x = layer_output
            end
        end
        return x
    end
    function print_gradients(model, x)
        local output = model(x)
        local loss = nn.MSELoss()(output, torch.tensor{{0.}})
        loss:backward()
        local means = {}
        for _, pair in ipairs(model:named_parameters()) do
            if pair[1]:find("weight") then
                means[#means + 1] = pair[2].grad:abs():mean()
                print(string.format("%s has gradient mean of %.17g", pair[1], means[#means]:item()))
            end
        end
        return means
    end
    local layer_sizes = {3, 3, 3, 3, 3, 1}
    local sample_input = torch.tensor{{1., 0., -1.}}
    torch.manual_seed(123)
    local without = print_gradients(ExampleDeepNeuralNetwork(layer_sizes, false), sample_input)
    print()
    torch.manual_seed(123)
    local with = print_gradients(ExampleDeepNeuralNetwork(layer_sizes, true), sample_input)
    local book_without = {0.00020173587836325169, 0.00012011159560643137, 0.0007152039906941354,
                          0.0013988736318424344, 0.005049645435065031}
    -- the book's printed numbers come from the author's machine: within float32's last bits of this
    -- machine's, which PyTorch's run here gives exactly (the last two checks)
    local book_with = {0.22169792652130127, 0.20694106817245483, 0.32896995544433594, 0.2665732204914093,
                       1.3258540630340576}
    for i = 1, 5 do
        lesson.check(lesson.tr("layer %d without shortcuts (the book's ch. 4 print_gradients)", i), without[i]:item(),
                     book_without[i], {tol = 2e-7})
    end
    for i = 1, 5 do
        lesson.check(lesson.tr("layer %d with shortcuts (the book's ch. 4 print_gradients)", i), with[i]:item(),
                     book_with[i], {tol = 2e-7})
    end
    lesson.check("without shortcuts, as PyTorch computes them", torch.stack(without), pytorch("shortcut.without"), {tol = 0})
    lesson.check("with shortcuts, as PyTorch computes them", torch.stack(with), pytorch("shortcut.with"), {tol = 0})
end)
