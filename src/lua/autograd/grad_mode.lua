-- grad_mode.lua — whether ops record the graph (module attn.autograd.grad_mode): torch.no_grad,
-- torch.enable_grad, torch.set_grad_enabled, torch.is_grad_enabled.
--
-- PyTorch's `with torch.no_grad():` is, in Lua 5.4, either a function run without grad
--     torch.no_grad(function() w:sub_(w.grad * lr) end)
-- or a to-be-closed value, which restores the mode when its block ends, by error or not:
--     do local _ <close> = torch.no_grad(); ... end
local graph = require("attn.autograd.graph")
local errors = require("attn.errors")

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

local function mode(name, enabled)
    return function(f, ...)
        if f == nil then
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
