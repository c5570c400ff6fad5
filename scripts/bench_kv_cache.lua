-- bench_kv_cache.lua — attn's side of scripts/bench-kv-cache.sh. Run by ./attn:
--   ./attn scripts/bench_kv_cache.lua generate N   GPTModel(GPT_CONFIG_124M), random seeded weights, eval:
--                                                  N new tokens after a 4-token prompt, with the KV cache and
--                                                  without; prints: cached ms, uncached ms, the cached
--                                                  decode step in ms (fastest block of 5), the bytes of
--                                                  weights a step reads
--   ./attn scripts/bench_kv_cache.lua bandwidth    memory bandwidth: bytes read and written by copying a
--                                                  400 MB tensor, over the time (fastest of 5), in bytes/s
local what, n = arg[1], tonumber(arg[2] or "200")

local function now_ms()
    local f = io.popen("date +%s%N")
    local ns = f:read("n")
    f:close()
    return ns / 1e6
end

if what == "generate" then
    torch.manual_seed(123)
    local cfg = gpt.config_124M()
    local model = gpt.GPTModel(cfg)
    model:eval()
    local prompt = torch.tensor{{15497, 12, 315, 717}}   -- "Hello, I am": GPT-2's ids + 1
    local t = now_ms()
    local cached = gpt.generate_text_simple_cached(model, prompt, n)
    local cached_ms = now_ms() - t
    -- the decode step alone: one token against a cache of the prompt and about n tokens, under no_grad as
    -- the generation runs it; three blocks of 5 steps, each timed as a whole, the fastest kept (on a
    -- shared machine the fastest is the one least slowed by other jobs)
    local best = math.huge
    torch.no_grad(function()
        for _ = 1, 3 do
            model:reset_kv_cache()
            model(cached:narrow(2, 1, cached.shape[2] - 5), {use_cache = true})
            local s = now_ms()
            for i = 1, 5 do model(cached:narrow(2, cached.shape[2] - 5 + i, 1), {use_cache = true}) end
            best = math.min(best, (now_ms() - s) / 5)
        end
    end)
    t = now_ms()
    local plain = gpt.generate_text_simple(model, prompt, n, cfg.context_length)
    local plain_ms = now_ms() - t
    assert(torch.equal(plain, cached), "cached and uncached generation made different ids")
    -- the weights a decode step reads: every parameter but the two embeddings' unread rows
    local bytes = 0
    for _, p in ipairs(model:parameters()) do bytes = bytes + 4 * p:numel() end
    bytes = bytes - 4 * (model.tok_emb.weight:numel() + model.pos_emb.weight:numel())
    print(string.format("%.1f %.1f %.2f %d", cached_ms, plain_ms, best, bytes))
elseif what == "bandwidth" then
    local x = torch.ones(100 * 1000 * 1000)   -- 400 MB
    local times = {}
    for i = 1, 5 do
        local t = now_ms()
        local y = x:clone()
        times[i] = now_ms() - t
        y = nil
        collectgarbage()
    end
    table.sort(times)
    print(string.format("%.0f", 2 * 4e8 / (times[1] / 1000)))   -- read 400 MB, write 400 MB
else
    error("usage: ./attn scripts/bench_kv_cache.lua generate N | bandwidth")
end
