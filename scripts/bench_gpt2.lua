-- bench_gpt2.lua — attn's side of scripts/bench-gpt2.sh. Run by ./attn:
--   ./attn scripts/bench_gpt2.lua forward           GPTModel(GPT_CONFIG_124M), random seeded weights, eval:
--                                                   median of 3 forwards on 1024 tokens, in ms
--   ./attn scripts/bench_gpt2.lua save FILE         GPT-2 small's weights (random, tied: ~500 MB) as safetensors
--   ./attn scripts/bench_gpt2.lua load FILE         safetensors.load_file(FILE): ms, then the resident memory
--                                                   (VmRSS) before, after loading, and after reading every weight
local what, file = arg[1], arg[2]

local function rss_kb()
    for line in io.lines("/proc/self/status") do
        local kb = line:match("^VmRSS:%s+(%d+) kB")
        if kb then return tonumber(kb) end
    end
end

local function now_ms()
    local f = io.popen("date +%s%N")
    local ns = f:read("n")
    f:close()
    return ns / 1e6
end

if what == "forward" then
    torch.set_grad_enabled(false) -- as PyTorch's side (bench_gpt2.py: torch.no_grad); no graph recorded
    torch.manual_seed(123)
    local cfg = gpt.config_124M()
    local model = gpt.GPTModel(cfg)
    model:eval()
    local ids = torch.randint(1, 50258, {1, 1024})
    model(ids) -- warm-up
    local times = {}
    for i = 1, 3 do
        local t = now_ms()
        model(ids)
        times[i] = now_ms() - t
    end
    table.sort(times)
    print(string.format("%.1f", times[2]))
elseif what == "save" then
    torch.manual_seed(123)
    local cfg = gpt.config_124M()
    cfg.qkv_bias = true
    local model = gpt.GPTModel(cfg)
    local state = {}
    for _, np in ipairs(model:named_parameters()) do
        if np[1] ~= "out_head.weight" then state[np[1]] = np[2] end -- tied in GPT-2: ~124M numbers
    end
    safetensors.save_file(state, file)
elseif what == "load" then
    collectgarbage()
    local before = rss_kb()
    local t = now_ms()
    local w = safetensors.load_file(file)
    local ms = now_ms() - t
    local after = rss_kb()
    local sum = 0
    for _, v in pairs(w) do sum = sum + v:sum():item() end -- touch every page
    local touched = rss_kb()
    print(string.format("%.1f %d %d %d", ms, before, after, touched))
else
    error("usage: attn scripts/bench_gpt2.lua forward | save FILE | load FILE")
end
