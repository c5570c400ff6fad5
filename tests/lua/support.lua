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

-- Reads a file of tab-separated cases "case<TAB>lua<TAB>python<TAB>third<TAB>v1 v2 ..." (the formats of
-- scripts/torch_reference_learn.py and torch_reference_grads.py) into {lua =, python =, [third] =, values =}.
function support.tab_cases(path, third)
    local cases = {}
    for line in io.lines(path) do
        local lua, python, x, vals = line:match("^case\t([^\t]*)\t([^\t]*)\t([^\t]*)\t(.*)$")
        if lua then
            local values = {}
            for v in vals:gmatch("%S+") do values[#values + 1] = v end
            cases[#cases + 1] = {lua = lua, python = python, [third] = x, values = values}
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
    local f = t:detach():reshape(-1) -- numbers, not 0-d tensors, when t requires grad
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

-- The book's print of In [k] without its autograd suffix, laid out as PyTorch prints a tensor without
-- one: "...],\n       grad_fn=<CatBackward0>)" and "...], grad_fn=<MmBackward0>)" become "...])".
function support.book_tensor_values(k)
    return (support.book_tensor(k):gsub(",%s*grad_fn=<[%w_]+>%)$", ")"))
end

-- The cases of a reference file in the "case"/"tensor"/"int64" layout (transformer.txt, models.txt):
-- R.cases[name] = {key = value, t = {tensor name -> line}, order = {tensor names}}, and
--   R.load(c, name)             the case's tensor `name` as an attn tensor (float32 bits, or int64 ids)
--   R.check(c, name, got, tol)  got equals it: shape, then values bit for bit (tol 0) or within tol
--   R.attn_name(py)             PyTorch's parameter name as attn's ("fc_layers.0" -> "fc_layers.1")
--   R.check_params(c, module, tol)   every parameter, in order, by name
-- busted's assert is the spec file's, not a global: the spec passes it.
function support.case_file(file, assert)
    local R = {cases = {}}
    for _, line in ipairs(support.reference(file)) do
        if line.kind == "case" then
            R.cases[line.name] = line
            line.t, line.order = {}, {}
        else
            local c = assert(R.cases[line.case], "tensor before its case: " .. tostring(line.case))
            c.t[line.name] = line
            c.order[#c.order + 1] = line.name
        end
    end
    local function line_of(c, name)
        return assert(c.t[name], "case " .. c.name .. " has no tensor " .. name)
    end
    function R.load(c, name)
        local line, flat = line_of(c, name), {}
        for i, v in ipairs(line.values) do
            flat[i] = line.kind == "int64" and math.tointeger(tonumber(v)) or support.from_bits(v)
        end
        local t = line.kind == "int64" and torch.tensor(flat, {dtype = torch.int64}) or torch.tensor(flat)
        return t:view(support.shape(line.shape))
    end
    function R.check(c, name, got, tol)
        local line = line_of(c, name)
        assert.are.same(support.shape(line.shape), support.shape(tostring(got.shape)), "shape of " .. name)
        if tol == 0 then
            assert.is_nil(support.same_bits(got, line.values), name)
            return
        end
        local worst, flat = 0, support.flat(got)
        for i, hex in ipairs(line.values) do
            local d = math.abs(flat[i] - support.from_bits(hex))
            worst = math.max(worst, d ~= d and math.huge or d)
        end
        assert(worst <= tol, string.format("%s: max |attn - torch| = %.3g > %g", name, worst, tol))
    end
    function R.attn_name(py)
        local parts = {}
        for part in py:gmatch("[^.]+") do
            parts[#parts + 1] = part:match("^%d+$") and tostring(tonumber(part) + 1) or part
        end
        return table.concat(parts, ".")
    end
    function R.check_params(c, module, tol)
        local want = {}
        for _, name in ipairs(c.order) do
            if name:find("^param%.") then want[#want + 1] = name end
        end
        local got = module:named_parameters()
        assert.are.equal(#want, #got, "number of parameters")
        for i, pair in ipairs(got) do
            assert.are.equal(R.attn_name(want[i]:sub(7)), pair[1], "parameter " .. i)
            R.check(c, want[i], pair[2], tol or 0)
        end
    end
    return R
end

return support
