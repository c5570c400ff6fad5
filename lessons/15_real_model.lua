-- 15_real_model.lua — Build a Large Language Model (From Scratch), ch. 4–5: the 6-token example's
-- attention in a real model. GPT-2 small (OpenAI's weights, in Hugging Face's files) loaded into chapter
-- 4's GPTModel, a sentence through it, every layer × head at a glance, one head stepped through, and
-- generation one token at a time.
--   ./attn lessons/15_real_model.lua           straight through
--   ./attn --step lessons/15_real_model.lua    one step at a time
-- It needs GPT-2 small's files, which attn does not ship (about 550 MB): without them lesson.needs says
-- where attn looked and how to get them, and the lesson ends there (--check counts it as skipped).
-- Checks: the book's numbers (chapter 2's token ids; chapter 4's parameter counts) and identities
-- (the traced stages composed give what the model computes).

lesson.title("A real model: GPT-2's attention, head by head",
             {source = "Build a Large Language Model (From Scratch), ch. 4–5"})

lesson.section("The files")

lesson.say[[
Every lesson so far worked on matrices small enough to read. GPT-2 small has 12 layers of 12 heads
each, 768 dimensions and a vocabulary of 50,257 tokens. attn loads it into chapter 4's GPTModel from
the two files of Hugging Face's download of "gpt2" (openai-community/gpt2): config.json and
model.safetensors (weights as data: safetensors, never a pickle). It finds them in $ATTN_GPT2_DIR,
~/.cache/attn/gpt2 or the Hugging Face cache (where huggingface-cli and transformers download gpt2).
The tokenizer needs GPT-2's vocabulary too (see ?tiktoken).
]]

lesson.needs{"gpt2", "gpt2 vocabulary"}   -- not shipped: without them the lesson says how to get them

lesson.section("Tokens")

lesson.say[[
Chapter 2 encodes a sentence with tiktoken's GPT-2 encoding and prints its ids. attn's ids are one
more than the book's (attn counts from 1, as Lua does); the pieces are the same.
]]

lesson.step("the book's sentence, tokenized", function()
    tokenizer = tiktoken.get_encoding("gpt2")               -- Python: tokenizer = tiktoken.get_encoding("gpt2")
    text = "Hello, do you like tea? <|endoftext|> In the sunlit terraces of someunknownPlace."
    integers = tokenizer:encode(text, {allowed_special = {"<|endoftext|>"}})
    local book = {15496, 11, 466, 345, 588, 8887, 30, 220, 50256, 554, 262, 4252, 18250, 8812, 2114, 286, 617,
                  34680, 27271, 13}                        -- the ids chapter 2 prints
    local ours_minus_one = {}
    for i, id in ipairs(integers) do ours_minus_one[i] = id - 1 end
    lesson.show("integers", table.concat(integers, ", "))
    lesson.check("the book's ids (ours minus one)", table.concat(ours_minus_one, ", "), table.concat(book, ", "))
    lesson.agree("decode gives the text back", tokenizer:decode(integers), text)
end)

lesson.section("The model")

lesson.say[[
from_pretrained reads config.json (12 layers, 12 heads, 768 dimensions, 1024 positions), reads the
weights, and puts every weight where chapter 5's load_weights_into_gpt puts it: GPT-2's Conv1D
layers store [in, out], so each weight is transposed, and the fused c_attn is split into W_query,
W_key and W_value. GPT-2's output head is its token embedding (weight tying), which is why chapter 4
counts 163,009,536 parameters for GPTModel and 124,412,160 for GPT-2. Both counts are for
GPT_CONFIG_124M, whose qkv_bias is false; OpenAI's GPT-2 has query, key and value biases (chapter 5
sets qkv_bias = true to load it), 2,304 more numbers in each of the 12 layers.
]]

lesson.step("GPT-2 small in chapter 4's GPTModel", function()
    model = gpt.GPTModel.from_pretrained("gpt2")
    local total = model:num_parameters()
    local qkv_biases = 0                                    -- GPT-2 has them; GPT_CONFIG_124M (qkv_bias = false) not
    for _, block in ipairs(model.trf_blocks) do
        for _, w in ipairs({block.att.W_query, block.att.W_key, block.att.W_value}) do
            qkv_biases = qkv_biases + w.bias:numel()
        end
    end
    lesson.show("model.cfg", string.format("emb_dim %d, n_layers %d, n_heads %d, context_length %d",
                model.cfg.emb_dim, model.cfg.n_layers, model.cfg.n_heads, model.cfg.context_length))
    lesson.show("parameters (the head tied to the embedding)", total)
    lesson.show("of them, query/key/value biases", qkv_biases)
    lesson.check("without those biases, the book's count for GPT-2 (124M)", total - qkv_biases, 124412160)
    lesson.check("and with its own output head, the book's count of GPTModel",
                 total - qkv_biases + model.out_head.weight:numel(), 163009536)
end)

lesson.section("Every head at a glance")

lesson.say[[
Each map below is one head of one layer on the sentence: a row per token (the query), a column per
earlier token (the key), darker where the weight is larger; the causal mask leaves the upper right
blank. Some heads put almost everything on the first token, some on the token just before (a dark
diagonal under the main one), some spread out. This is bertviz's model view, in the terminal.
]]

lesson.step("attention.overview", function()
    sentence = "The cat sat on the mat because it was tired."
    maps = attention.overview{module = model, text = sentence}
end)

lesson.section("One head, stage by stage")

lesson.say[[
The same stages as the 6-token example, now inside layer 5: the input is the residual stream after
four blocks, normalised by the block's LayerNorm; head 12's queries, keys and values are 64 of the
768 columns of W_query, W_key and W_value; then the scores, the causal mask, the scaling by √64 and
the softmax. Head 12 of layer 5 (4.11 when both are counted from 0, as Python does) is reported in
interpretability work on GPT-2 small as a previous-token head: look for the weights just left of the
diagonal. attention.overview shows which other heads do the same.
]]

lesson.step("attention.trace of layer 5, head 12", function()
    tr = attention.trace{module = model, layer = 5, head = 12, text = sentence}
    tr:step("weights")
    lesson.agree("the overview's map of layer 5, head 12 is the traced weights", maps.layers[5][12], tr.weights)
end)

lesson.say[[
Tracing all twelve heads of the layer and putting their contexts side by side gives what
MultiHeadAttention computes inside the model: out_proj of the concatenation is the block's attention
output, to the last bit.
]]

lesson.step("the heads make the layer", function()
    local contexts = {}
    for h = 1, 12 do
        local t = attention.trace{module = model, layer = 5, head = h, text = sentence, write = function() end}
        t:run()
        contexts[h] = t.context
    end
    local block = model.trf_blocks[5]
    local merged = torch.cat(contexts, -1):unsqueeze(1)
    lesson.agree("out_proj(heads 1..12) = the block's attention", block.att.out_proj(merged),
                 block.att(tr.x:unsqueeze(1)))
end)

lesson.section("Generating, one token at a time")

lesson.say[[
Chapter 5's generate, stepped: each step runs the whole model on the text so far, and the last
position's row of the causal mask (it sees every token up to itself) decides the next token.
Greedy here (temperature 0), so every run gives the same words.
]]

lesson.step("gpt.Generator", function()
    g = gpt.Generator{model = model, text = "Every effort moves you", tokenizer = tokenizer, max_new_tokens = 3}
    g:run()
    lesson.show("g:text()", g:text())
    lesson.agree("the same ids as generate_text_simple", g.idx,
                 gpt.generate_text_simple(model, gpt.text_to_token_ids("Every effort moves you", tokenizer), 3, 1024))
end)
