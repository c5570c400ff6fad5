-- bits.lua — runs one lesson the way --check does, then prints a digest of the exact bits of every float
-- tensor it left in a global (and of every parameter of every module it left), one line each, sorted by
-- name: "name [shape] fnv1a64". Two runs print the same lines only if every one of those numbers is the
-- same to the last bit. tests/lessons/test_same_bits.sh diffs the lines of runs under other kernels,
-- instruction sets and thread counts (and tests/arm, an aarch64 build's under qemu).
--   attn tests/lessons/bits.lua LESSON.lua
local path = arg[1]
local run = require("attn.lesson.run")
local before = {}
for k in pairs(_G) do before[k] = true end
local result = run.file(path, {mode = "check"})

local PRIME, BASIS = 1099511628211, -3750763034362895579 -- FNV-1a 64, as Lua's wrapping integers
local function digest(t)
    local h = BASIS
    local values = t:detach():reshape(-1):tolist()
    for first = 1, #values, 4096 do -- packed a slice at a time: table.unpack has a limit
        local last = math.min(first + 4095, #values)
        local bytes = string.pack("<" .. string.rep("f", last - first + 1), table.unpack(values, first, last))
        for i = 1, #bytes do h = (h ~ bytes:byte(i)) * PRIME end
    end
    return string.format("%016x", h)
end

local lines = {}
local function add(name, t)
    if torch.is_tensor(t) and t.dtype == torch.float32 and t:numel() > 0 then
        lines[#lines + 1] = string.format("%s %s %s", name, tostring(t.shape):match("%b[]"), digest(t))
    end
end
for name, v in pairs(_G) do
    if not before[name] then
        add(name, v)
        if type(v) == "table" and type(v.parameters) == "function" then
            local ok, params = pcall(v.parameters, v)
            if ok then for i, p in ipairs(params) do add(name .. ":parameters()[" .. i .. "]", p) end end
        end
    end
end
table.sort(lines)
print(string.format("%s: %s, %d passed, %d failed", path, result.status, result.passed or 0, result.failed or 0))
for _, l in ipairs(lines) do print(l) end
