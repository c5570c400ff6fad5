-- The Jupyter kernel's cells as chunks (src/lua/kernel/execute.lua's execute.chunks): a cell of statements
-- that ends in an expression runs as the two, and finding where the expression starts reads each line a
-- bounded number of times. The kernel's wire and JSON (preloaded by the kernel's C side) are not needed
-- here: stand-ins while the module loads, taken away after so that no other spec sees them.
local stubs = {["attn.kernel.wire"] = {}, ["attn.json"] = {array = function(t) return t end}}
local saved = {}
for name, stub in pairs(stubs) do
    saved[name] = package.loaded[name]
    if saved[name] == nil then package.loaded[name] = stub end
end
local before = {}
for name in pairs(package.loaded) do before[name] = true end
local execute = require("attn.kernel.execute")
for name in pairs(stubs) do package.loaded[name] = saved[name] end
for name in pairs(package.loaded) do -- the modules loaded over the stand-ins: loaded afresh by others
    if not before[name] then package.loaded[name] = nil end
end

describe("execute.chunks (the kernel's cells)", function()
    it("a cell of statements and an expression at its end: the two", function()
        local c = execute.chunks("y = 41\ny + 1")
        assert.same({"y = 41", "y + 1", tail_line = 1}, c)
        assert.same({"x = 1\n"}, execute.chunks("x = 1\n"))
        assert.same({"1 + 1"}, execute.chunks("1 + 1"))
        local multi = execute.chunks("t = {1, 2}\n#t +\n  1\n\n")
        assert.same({"t = {1, 2}", "#t +\n  1\n\n", tail_line = 1}, multi)
    end)

    it("a long cell with a syntax error at its end: each line read a bounded number of times (it was N²)", function()
        local lines = {}
        for i = 1, 32000 do lines[i] = "x" .. i .. " = " .. i end
        lines[#lines + 1] = "x +"
        local code = table.concat(lines, "\n")
        -- count what the parser is given: strings, and the pieces a reader returns
        local real_load, given = load, 0
        _G.load = function(chunk, ...)
            if type(chunk) == "string" then
                given = given + #chunk
                return real_load(chunk, ...)
            end
            return real_load(function()
                local piece = chunk()
                given = given + (piece and #piece or 0)
                return piece
            end, ...)
        end
        local ok, c = pcall(execute.chunks, code)
        _G.load = real_load
        assert.is_true(ok, c)
        assert.same({code}, c) -- no split: the cell runs as one chunk, and its error is Lua's
        assert.is_true(given < 10 * #code, string.format("the parser was given %d bytes for a cell of %d", given, #code))
    end)
end)
