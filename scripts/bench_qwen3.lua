-- bench_qwen3.lua — attn's side of scripts/bench-qwen3.sh. Run by ./attn:
--   ./attn scripts/bench_qwen3.lua DIR N
-- DIR: the Qwen3-0.6B-shaped model scripts/bench_qwen3.py wrote (config.json, model.safetensors, ids.txt).
-- Loads it with qwen3.Qwen3Model.from_pretrained, then prints one line:
--   load_ms rss_before_kb rss_after_kb hwm_kb weight_bytes forward_ms decode_ms
-- rss: VmRSS before and after loading; hwm: VmHWM (the peak) after loading; weight_bytes: the model's
-- parameters as float32 (the tied head counted once); forward_ms: the median of 3 forwards of the 512 ids
-- of ids.txt (after one warm-up); decode_ms: the median of 3 greedy decodes of N tokens with the KV cache
-- after a 16-token prompt (the prompt's forward not timed), as scripts/bench_qwen3.py measures PyTorch.
local dir, n = arg[1], tonumber(arg[2] or "16")
local N_PROMPT = 16

local function status_kb(field)
    for line in io.lines("/proc/self/status") do
        local kb = line:match("^" .. field .. ":%s+(%d+) kB")
        if kb then return tonumber(kb) end
    end
end

local function now_ms()
    local f = io.popen("date +%s%N")
    local ns = f:read("n")
    f:close()
    return ns / 1e6
end

local function median(xs)
    table.sort(xs)
    return xs[#xs // 2 + 1]
end

collectgarbage()
local before = status_kb("VmRSS")
local t = now_ms()
local model = qwen3.Qwen3Model.from_pretrained(dir)
local load_ms = now_ms() - t
collectgarbage()
local after, hwm = status_kb("VmRSS"), status_kb("VmHWM")
local bytes, seen = 0, {}
for _, p in ipairs(model:parameters()) do
    if not seen[p] then bytes, seen[p] = bytes + 4 * p:numel(), true end
end

local ids = {}
for id in io.open(dir .. "/ids.txt"):read("a"):gmatch("%d+") do ids[#ids + 1] = tonumber(id) + 1 end -- attn's ids
local x = torch.tensor{ids}

local forward = {}
for i = 1, 4 do
    local s = now_ms()
    model(x)
    if i > 1 then forward[#forward + 1] = now_ms() - s end -- the first is the warm-up
    collectgarbage()
end

local decode = {}
local prompt = x:narrow(2, 1, N_PROMPT)
for r = 1, 3 do
    model:reset_kv_cache()
    local logits = model(prompt, {use_cache = true})
    local s = now_ms()
    for _ = 1, n do
        local nxt = torch.argmax(logits:select(2, logits.shape[2]), -1, true)
        logits = model(nxt, {use_cache = true})
    end
    decode[r] = now_ms() - s
    collectgarbage()
end
print(string.format("%.1f %d %d %d %d %.1f %.1f", load_ms, before, after, hwm, bytes, median(forward), median(decode)))
