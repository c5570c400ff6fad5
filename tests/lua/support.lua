-- support.lua — shared helpers for the Lua specs (loaded with dofile; busted runs inside attn).
local support = {}

-- Runs `lines` through the REPL's evaluator, as if typed at the attn> prompt one line at a time,
-- and returns everything it printed: auto-printed values, print() output, what the library writes
-- with io.write (a heatmap, a tracer's steps, help) and "error: ..." lines.
function support.session(lines)
    local repl = require("attn.repl")
    local out = {}
    local function write(s) out[#out + 1] = s end
    local saved_print, saved_write = print, io.write
    print = function(...)
        local parts = {}
        for i = 1, select("#", ...) do parts[i] = tostring((select(i, ...))) end
        write(table.concat(parts, "\t") .. "\n")
    end
    io.write = function(...)
        for i = 1, select("#", ...) do write(tostring((select(i, ...)))) end
        return io.output()
    end
    local ok, err = pcall(function()
        local pending = nil
        for _, line in ipairs(lines) do
            local chunk = pending and (pending .. "\n" .. line) or line
            local status = repl.eval(chunk, {write = write, error = function(m) write("error: " .. m .. "\n") end})
            pending = status == "incomplete" and chunk or nil
        end
        assert(pending == nil, "session ended inside an unfinished chunk: " .. tostring(pending))
    end)
    print, io.write = saved_print, saved_write
    if not ok then error(err, 0) end
    return table.concat(out)
end

-- The float32 bit pattern of a number (as the reference files write them: 0x3e979a80).
function support.bits(x)
    return string.unpack("<I4", string.pack("<f", x))
end

function support.from_bits(s)
    return (string.unpack("<f", string.pack("<I4", tonumber(s))))
end

-- Reads tests/data/torch/<name>.txt: lines "<kind> key=value ... : v1 v2 ..." into
-- {kind = ..., key = value (strings), values = {strings}}.
function support.reference(name)
    local cases = {}
    for line in io.lines("tests/data/torch/" .. name .. ".txt") do
        if not line:match("^#") and line:match("%S") then
            local head, tail = line:match("^(.-)%s*:%s*(.*)$")
            local case = {values = {}}
            for word in head:gmatch("%S+") do
                local k, v = word:match("^([^=]+)=(.*)$")
                if k then case[k] = v else case.kind = word end
            end
            for v in tail:gmatch("%S+") do case.values[#case.values + 1] = v end
            cases[#cases + 1] = case
        end
    end
    return cases
end

-- "3,2" -> {3, 2}
function support.shape(s)
    local t = {}
    for n in s:gmatch("%d+") do t[#t + 1] = tonumber(n) end
    return t
end

-- All elements of a tensor in row-major order, as a Lua list.
function support.flat(t)
    local out = {}
    local f = t:reshape(-1)
    for i = 1, f:numel() do out[i] = f[i] end
    return out
end

-- Compares a tensor with expected float32 bit patterns; returns nil or a message naming the first
-- difference.
function support.same_bits(t, expected_hex, from)
    local got = support.flat(t)
    from = from or 1
    for i, hex in ipairs(expected_hex) do
        local g = got[from + i - 1]
        if g == nil or support.bits(g) ~= tonumber(hex) then
            return string.format("element %d: expected %s, got %s", from + i - 1, hex,
                                 g and string.format("0x%08x", support.bits(g)) or "nothing")
        end
    end
    return nil
end

-- The text of the tensor that Build a Large Language Model (From Scratch), ch. 3 prints for its cell In [k], as
-- tests/data/book/ch3_tensors.txt holds it (the book's text, grad_fn dropped; the first one of the
-- cell when it prints several). The book's numbers, for the expected side of a check.
function support.book_tensor(k)
    local head = "^=== %d+  %(In %[" .. k .. "%], line %d+%)$"
    local lines, inside = {}, false
    for line in io.lines("tests/data/book/ch3_tensors.txt") do
        if line:match("^=== ") then
            if inside then break end
            inside = line:match(head) ~= nil
        elseif inside then
            lines[#lines + 1] = line
        end
    end
    assert(#lines > 0, "no tensor printed by In [" .. k .. "] in tests/data/book/ch3_tensors.txt")
    return table.concat(lines, "\n")
end

return support
