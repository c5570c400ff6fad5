-- grad_mode.lua — whether ops record the graph (module attn.autograd.grad_mode): torch.no_grad,
-- torch.enable_grad, torch.set_grad_enabled, torch.is_grad_enabled.
--
-- PyTorch's `with torch.no_grad():` is, in Lua 5.4, either a function run without grad
--     torch.no_grad(function() w:sub_(w.grad * lr) end)
-- or a to-be-closed value, which restores the mode when its block ends, by error or not:
--     do local _ <close> = torch.no_grad(); ... end
local graph = require("attn.autograd.graph")
local errors = require("attn.errors")
local files = require("attn.bind").files

local M = {}

local guard_mt = {
    __close = function(self) graph.enabled = self.previous end,
    __tostring = function(self) return self.name end,
    __name = "grad_mode",
}

-- f(...) with grad mode set to `enabled`, the previous mode restored afterwards (even on error)
function M.call_with(enabled, f, ...)
    local previous = graph.enabled
    graph.enabled = enabled
    local r = table.pack(pcall(f, ...))
    graph.enabled = previous
    if not r[1] then error(r[2], 0) end
    return table.unpack(r, 2, r.n)
end

-- The text of line `line` of the chunk whose source (debug.getinfo's) is src, when attn can see it: a
-- file's ("@path", read once), a chunk loaded from a string (its source is the text), or what the REPL
-- and the kernel registered in M.chunk_text by chunk name. nil otherwise.
M.chunk_text = {}
local file_lines = setmetatable({}, {__mode = "k"})
local function line_of(src, line)
    local text = M.chunk_text[src]
    if not text and src:sub(1, 1) == "@" then
        local lines = file_lines[src]
        if not lines then
            local f = files.open(src:sub(2))
            lines = {}
            if f then
                for l in f:lines() do lines[#lines + 1] = l end
                f:close()
            end
            file_lines[src] = lines
        end
        return lines[line]
    end
    if not text and src:sub(1, 1) ~= "=" then text = src end
    if not text then return nil end
    local n = 0
    for l in (text .. "\n"):gmatch("(.-)\n") do
        n = n + 1
        if n == line then return l end
    end
end

-- torch.no_grad() as a statement of its own: Python's `torch.no_grad()` outside a with does nothing,
-- attn's turned autograd off for the rest of the script or session (the guard it returns is never
-- closed). Refused where the line can be seen, with the two forms that work; any other use (assigned,
-- <close>, passed on) is left alone.
local function refuse_bare(name, level)
    local info = debug.getinfo(level, "Sl")
    if not info or not info.currentline or info.currentline <= 0 then return end
    local text = line_of(info.source, info.currentline)
    if text and text:match("^%s*torch%." .. name .. "%(%s*%)%s*;?%s*$") then
        if name == "no_grad" then
            errors.raisef("torch.no_grad() on its own line would switch autograd off for the rest of the script or "
                          .. "session (Python's needs a with): run a function, torch.no_grad(function() ... end), or "
                          .. "close it with its block, do local _ <close> = torch.no_grad(); ... end")
        end
        errors.raisef("torch.enable_grad() on its own line would switch autograd on for the rest of the script or "
                      .. "session (Python's needs a with): run a function, torch.enable_grad(function() ... end), or "
                      .. "close it with its block, do local _ <close> = torch.enable_grad(); ... end")
    end
end

local function mode(name, enabled)
    return function(f, ...)
        if f == nil then
            refuse_bare(name, 3)
            local guard = setmetatable({previous = graph.enabled, name = "torch." .. name .. "()"}, guard_mt)
            graph.enabled = enabled
            return guard
        end
        if type(f) ~= "function" then
            errors.raisef("%s: expected a function to run, or nothing (local _ <close> = torch.%s()), got %s",
                          name, name, type(f))
        end
        return M.call_with(enabled, f, ...)
    end
end

M.no_grad = mode("no_grad", false)
M.enable_grad = mode("enable_grad", true)

function M.set_grad_enabled(enabled)
    if type(enabled) ~= "boolean" then
        errors.raisef("set_grad_enabled: expected true or false, got %s", type(enabled))
    end
    local guard = setmetatable({previous = graph.enabled, name = "torch.set_grad_enabled()"}, guard_mt)
    graph.enabled = enabled
    return guard
end

function M.is_grad_enabled()
    return graph.enabled
end

-- f wrapped so that it always runs with grad off (nn.init's functions, reset_parameters: PyTorch's
-- initialisers fill parameters in place under no_grad)
function M.without_grad(f)
    return function(...) return M.call_with(false, f, ...) end
end

return M
