-- bench_train_step.lua — attn's side of scripts/bench-train-step.sh: chapter 5's training step on GPT-2
-- small (GPT_CONFIG_124M with context_length 256, as chapter 5 uses it; dropout 0.1, train mode), seeded
-- random weights, a random batch of 2 × 256 token ids and targets:
--     opt:zero_grad(); loss = F.cross_entropy(model(ids):flatten(1, 2), targets:flatten());
--     loss:backward(); opt:step()          with torch.optim.AdamW(lr = 4e-4, weight_decay = 0.1)
-- argv: warm-up steps, timed steps. Prints "wall_ms cpu_ms peak_rss_kb": the median step's wall-clock
-- time, the median step's CPU time (every thread's: os.clock; steadier than the wall clock when other
-- processes share the cores) and the peak resident memory (VmHWM of this process, read at the end).
-- Not a test.
local warmup, steps = tonumber(arg[1]) or 2, tonumber(arg[2]) or 5
local F = nn.functional

local function now_ms()
    local p = io.popen("date +%s%N")
    local ns = tonumber(p:read("a"))
    p:close()
    return ns / 1e6
end

local function peak_rss_kb()
    for line in io.lines("/proc/self/status") do
        local kb = line:match("^VmHWM:%s+(%d+) kB")
        if kb then return tonumber(kb) end
    end
end

torch.manual_seed(123)
local cfg = gpt.config_124M()
cfg.context_length = 256
local model = gpt.GPTModel(cfg)
model:train()
local ids = torch.randint(1, cfg.vocab_size + 1, {2, 256})
local targets = torch.randint(1, cfg.vocab_size + 1, {2, 256})
local opt = torch.optim.AdamW(model:parameters(), {lr = 4e-4, weight_decay = 0.1})

local function train_step()
    opt:zero_grad()
    local loss = F.cross_entropy(model(ids):flatten(1, 2), targets:flatten())
    loss:backward()
    opt:step()
    return loss
end

for _ = 1, warmup do train_step() end
local walls, cpus = {}, {}
for i = 1, steps do
    local t, c = now_ms(), os.clock()
    train_step()
    cpus[i], walls[i] = (os.clock() - c) * 1e3, now_ms() - t
end
table.sort(walls)
table.sort(cpus)
print(string.format("%.1f %.1f %d", walls[(steps + 1) // 2], cpus[(steps + 1) // 2], peak_rss_kb()))
