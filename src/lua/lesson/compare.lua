-- compare.lua — how lesson.check compares what attn computed with what the book printed,
-- and how it explains a mismatch (module attn.lesson.compare, used by attn.lesson).
--
--   compare.check(computed, expected, opts) -> ok, lines
--   compare.agree(a, b, tol)                -> ok, summary, lines      (lesson.agree, an identity)
--   compare.difference(a, b)                -> |a - b| (nan equals nan; integers without wrapping)
--
-- `lines` is the explanation of a failure (nil on success): "expected ...", "got ...", and where the
-- two differ most. Three kinds of expected value:
--   text     compared character for character with attn's print of `computed` (tostring); the
--            numbers read from both texts give the largest difference and its place
--   number   a number, or a nested table of numbers, or a tensor (numbers PyTorch computed, read
--            with lesson.reference): compared with the computed number / tensor / table within
--            opts.tol (absolute); without opts.tol a single number must be equal
--   boolean  plain equality
-- compare.agree compares two values attn computed: tensors, numbers, booleans, strings, torch.Size,
-- nested tables of numbers or booleans, or lists of any of these, element by element within tol
-- (0: exactly; nan equals nan, an infinity itself); the shapes must be the same.

local torch = require("attn.bind").torch
local errors = require("attn.errors")
local tr, trf, lookup = require("attn.i18n").tr, require("attn.i18n").trf, require("attn.i18n").lookup
local width = require("attn.text.width")
local compare = {}

local function is_tensor(v)
    return torch.is_tensor(v)
end

---------------------------------------------------------------------------------------------------
-- Numbers inside printed text
---------------------------------------------------------------------------------------------------

-- The number that starts at text[i], or nil: 0.9544, 2., 17, .5, 1.0000e-05, 1e+08, inf, -inf, nan.
-- The mantissa and the exponent are matched apart: one pattern "%d+%.?%d*[eE]..." backtracks through
-- every split of a long run of digits that has no exponent, quadratic in its length (a 40000-digit
-- string took 46 s to check).
local function number_at(text, i)
    local m = text:match("^%-?%d+%.?%d*", i) or text:match("^%-?%.%d+", i)
    if m then
        local e = text:match("^[eE][%+%-]?%d+", i + #m)
        return e and m .. e or m
    end
    return text:match("^%-?inf%f[^%w_]", i) or text:match("^nan%f[^%w_]", i)
end

local function to_number(tok)
    if tok == "nan" then return 0 / 0 end
    if tok == "inf" then return math.huge end
    if tok == "-inf" then return -math.huge end
    return tonumber(tok)
end

-- The numbers printed in text, in order, with where each is: {{text =, value =, s =, e =}, ...} (s, e:
-- byte positions). A number starts where a word could start, so the 32 of "float32" is not one.
function compare.scan(text)
    local list, i, n = {}, 1, #text
    while i <= n do
        local tok
        if i == 1 or not text:sub(i - 1, i - 1):match("[%w_%.]") then tok = number_at(text, i) end
        if tok then
            list[#list + 1] = {text = tok, value = to_number(tok), s = i, e = i + #tok - 1}
            i = i + #tok
        else
            i = i + 1
        end
    end
    return list
end

-- The values of the numbers printed in text, in order.
function compare.numbers(text)
    local list = {}
    for i, tok in ipairs(compare.scan(text)) do list[i] = tok.value end
    return list
end

-------------------------------------------------------------------------------------------------
-- Differences
---------------------------------------------------------------------------------------------------

local function is_nan(x) return x ~= x end

-- |a - b|, with nan equal to nan and an infinity equal to itself. Two integers (int64 values, token
-- ids) are subtracted without wrapping: 0 - math.mininteger wraps to math.mininteger, whose math.abs is
-- negative, so 0 would have passed for math.mininteger. The larger minus the smaller is the exact
-- difference read as unsigned (below 2^64), made a float.
local function difference(a, b)
    if math.type(a) == "integer" and math.type(b) == "integer" then
        if a == b then return 0 end
        local d = math.max(a, b) - math.min(a, b)
        return d >= 0 and d + 0.0 or (d + 0.0) + 2.0 ^ 64
    end
    if is_nan(a) or is_nan(b) then return (is_nan(a) and is_nan(b)) and 0 or math.huge end
    if a == b then return 0 end
    return math.abs(a - b)
end
compare.difference = difference

-- The largest difference between two lists of numbers: diff, index (nil when both are empty).
local function largest(a, b)
    local best, at = nil, nil
    for i = 1, math.min(#a, #b) do
        local d = difference(a[i], b[i])
        if best == nil or d > best then best, at = d, i end
    end
    return best, at
end

-- The 1-based index "[i, j, ...]" of the k-th element (row-major) of a tensor of the given shape.
local function index_of(k, shape)
    if #shape == 0 then return "" end
    local idx, rest = {}, k - 1
    for d = #shape, 1, -1 do
        idx[d] = rest % shape[d] + 1
        rest = rest // shape[d]
    end
    return "[" .. table.concat(idx, ", ") .. "]"
end

local function shape_of_tensor(t)
    local s = {}
    for d = 1, t:dim() do s[d] = t:size(d) end
    return s
end

local function fmt_diff(d)
    if d == math.huge then return "inf" end
    return string.format("%.1e", d)
end

-- Where a difference k (the k-th number) is: an index into the computed tensor when the numbers are
-- its elements, else "number k".
local function place(k, computed, count)
    if is_tensor(computed) and computed:numel() == count and computed:dim() > 0 then
        return trf("at %s", index_of(k, shape_of_tensor(computed)))
    end
    if count == 1 then return "" end
    return trf("at number %d", k)
end

-- The first character at which two texts differ, as "line L, column C".
local function first_difference(a, b)
    local line, col = 1, 1
    for i = 1, math.max(#a, #b) do
        local ca, cb = a:sub(i, i), b:sub(i, i)
        if ca ~= cb then return trf("line %d, column %d", line, col) end
        if ca == "\n" then
            line, col = line + 1, 1
        elseif ca:byte() < 0x80 or ca:byte() >= 0xC0 then   -- count UTF-8 characters, not bytes
            col = col + 1
        end
    end
    return nil
end

-- "expected  <text>" with later lines indented under the first. The label is translated (scripts/po.sh
-- extracts labelled's first argument; "a" and "b", the names of agree's two values, stay) and padded
-- to 10 columns as the terminal shows it.
local function labelled(label, text)
    local pad = string.rep(" ", 10)
    label = lookup(label)
    return (label .. string.rep(" ", math.max(1, 10 - width.of(label))) .. text:gsub("\n", "\n" .. pad))
end

---------------------------------------------------------------------------------------------------
-- Text
---------------------------------------------------------------------------------------------------

local function render(v)
    if type(v) == "string" then return v end
    local ok, s = pcall(tostring, v)
    if ok and type(s) == "string" then return s end
    return "<" .. type(v) .. ">"
end
compare.render = render

local function check_text(computed, expected)
    local got = render(computed)
    if got == expected then return true end
    local lines = {labelled("expected", expected), labelled("got", got)}
    local a, b = compare.numbers(expected), compare.numbers(got)
    local why = {}
    if #a ~= #b then
        why[#why + 1] = trf("%d numbers expected, %d printed", #a, #b)
    end
    local d, k = largest(a, b)
    if d and d > 0 then
        local where = place(k, computed, #b)
        why[#why + 1] = trf("largest difference %s", fmt_diff(d)) .. (where ~= "" and " " .. where or "")
    elseif d then
        why[#why + 1] = trf("the numbers agree; the text differs at %s", first_difference(expected, got))
    end
    if #why == 0 then why[1] = trf("the text differs at %s", first_difference(expected, got)) end
    lines[#lines + 1] = table.concat(why, tr("; "))
    return false, lines
end

---------------------------------------------------------------------------------------------------
-- Numbers and tables of numbers
---------------------------------------------------------------------------------------------------

-- Flattens a number, a one-element tensor, a tensor or a nested table into (values, shape), or
-- nil and a reason.
local function flatten(v)
    if is_tensor(v) then v = v:dim() == 0 and v:item() or v:tolist() end
    if type(v) == "number" then return {v}, {} end
    if type(v) ~= "table" then return nil, "a " .. type(v) .. " is not a number" end
    local shape, t = {}, v
    while type(t) == "table" do
        shape[#shape + 1] = #t
        t = t[1]
    end
    local values = {}
    local function walk(x, d)
        if d > #shape then
            values[#values + 1] = x
            return type(x) == "number"
        end
        if type(x) ~= "table" or #x ~= shape[d] then return false end
        for i = 1, #x do
            if not walk(x[i], d + 1) then return false end
        end
        return true
    end
    if not walk(v, 1) then return nil, tr("not a rectangular table of numbers") end
    return values, shape
end

-- A difference of 1e-5 of the value or less is an order of additions, not a wrong formula: say which
-- kernels computed the number, so that a reader knows what to report, never a bare ✗.
local function order_note(d, want, k)
    local v = want[k]
    if type(v) ~= "number" or d ~= d or d == math.huge or d > 1e-5 * math.max(1, math.abs(v)) then return nil end
    return trf("(a difference this small is an order of additions: attn computed this with its %s kernels on %d "
        .. "threads, which give the same bits everywhere; the expected numbers were computed by the book's "
        .. "PyTorch or by PyTorch 1.13 on one thread, OpenBLAS's Haswell kernels. Please report it.)",
        torch.kernels(), torch.get_num_threads())
end

local function shape_str(shape)
    return "[" .. table.concat(shape, ", ") .. "]"
end

-- A nested table of numbers in Lua syntax, for the "expected" line.
local function table_str(v)
    if type(v) == "number" then return string.format("%.8g", v) end
    if is_tensor(v) then return render(v) end
    local parts = {}
    for i = 1, #v do parts[i] = table_str(v[i]) end
    return "{" .. table.concat(parts, ", ") .. "}"
end

local function check_numbers(computed, expected, tol)
    local want, wshape = flatten(expected)
    if not want then errors.raisef("lesson.check: the expected table: %s", wshape) end
    local got, gshape = flatten(computed)
    local lines = {labelled("expected", table_str(expected)), labelled("got", render(computed))}
    if not got then
        lines[#lines + 1] = gshape
        return false, lines
    end
    if #want ~= #got or (#wshape > 0 and shape_str(wshape) ~= shape_str(gshape)) then
        lines[#lines + 1] = trf("shape %s, expected %s", shape_str(gshape), shape_str(wshape))
        return false, lines
    end
    local d, k = largest(want, got)
    if d == nil or d <= tol then return true end
    local where = #gshape > 0 and trf("at %s", index_of(k, gshape)) or ""
    lines[#lines + 1] = trf("largest difference %s", fmt_diff(d)) .. (where ~= "" and " " .. where or "")
        .. trf(", tolerance %g", tol)
    lines[#lines + 1] = order_note(d, want, k)
    return false, lines
end

---------------------------------------------------------------------------------------------------
-- Identities: two values attn computed (lesson.agree)
---------------------------------------------------------------------------------------------------

-- A value as agree compares it: {kind = "array", shape, values} for a tensor or a rectangular
-- nested table of numbers or booleans (a torch.Size too), {kind = "atom", value} for a number,
-- boolean or string, {kind = "list", items} for any other table (a list of tensors, say).
local function normal(v)
    if is_tensor(v) then
        if v:dim() == 0 then return {kind = "atom", value = v:item()} end
        local list = v:tolist()
        local values = {}
        local function walk(x)
            if type(x) == "table" then for i = 1, #x do walk(x[i]) end else values[#values + 1] = x end
        end
        walk(list)
        return {kind = "array", shape = shape_of_tensor(v), values = values}
    end
    local kind = type(v)
    if kind == "number" or kind == "boolean" or kind == "string" then return {kind = "atom", value = v} end
    if kind ~= "table" then errors.raisef("lesson.agree: cannot compare a %s", kind) end
    local values, shape = flatten(v)
    if not values then   -- flatten takes numbers only; booleans make a rectangular table too
        local t, dims = v, {}
        while type(t) == "table" and #t > 0 do dims[#dims + 1] = #t; t = t[1] end
        if type(t) == "boolean" then
            local vals, ok = {}, true
            local function walk(x, d)
                if d > #dims then
                    ok = ok and type(x) == "boolean"
                    vals[#vals + 1] = x
                elseif type(x) ~= "table" or #x ~= dims[d] then
                    ok = false
                else
                    for i = 1, #x do walk(x[i], d + 1) end
                end
            end
            walk(v, 1)
            if ok then values, shape = vals, dims end
        end
    end
    if values and #v > 0 then return {kind = "array", shape = shape, values = values} end
    local items = {}
    for i = 1, #v do items[i] = normal(v[i]) end
    return {kind = "list", items = items}
end

-- The difference of two scalars: a number (booleans and strings: 0 when equal), or nil when they
-- cannot be compared (a number with a string).
local function scalar_difference(a, b)
    if type(a) == "number" and type(b) == "number" then return difference(a, b) end
    if type(a) == type(b) then return a == b and 0 or math.huge end
    return nil
end

-- Walks a and b together. Returns the largest difference and where it is (a path such as
-- "item 2, at [1, 3]"), or nil and the reason they cannot be compared.
local function agree_walk(a, b, path, state)
    local function at(s) return path == "" and s or (s == "" and path or path .. tr(", ") .. s) end
    if a.kind == "atom" and b.kind == "atom" then
        local d = scalar_difference(a.value, b.value)
        if not d then return nil, at(trf("a %s and a %s", type(a.value), type(b.value))) end
        if state.best == nil or d > state.best then state.best, state.where = d, path end
        if type(a.value) == "number" then state.numbers = true end
        return true
    end
    if a.kind == "array" and b.kind == "array" then
        if shape_str(a.shape) ~= shape_str(b.shape) then
            return nil, at(trf("shape %s and %s", shape_str(a.shape), shape_str(b.shape)))
        end
        for k = 1, #a.values do
            local d = scalar_difference(a.values[k], b.values[k])
            if not d then return nil, at(trf("a %s and a %s", type(a.values[k]), type(b.values[k]))) end
            if type(a.values[k]) == "number" then state.numbers = true end
            if state.best == nil or d > state.best then
                state.best, state.where = d, at(trf("at %s", index_of(k, a.shape)))
            end
        end
        if #a.values == 0 and state.best == nil then state.best, state.where = 0, path end
        return true
    end
    if a.kind == "list" and b.kind == "list" then
        if #a.items ~= #b.items then
            return nil, at(trf("%d items and %d", #a.items, #b.items))
        end
        for i = 1, #a.items do
            local ok, why = agree_walk(a.items[i], b.items[i], at(trf("item %d", i)), state)
            if not ok then return nil, why end
        end
        return true
    end
    local function what(x)
        if x.kind == "atom" then return trf("a %s", type(x.value)) end
        if x.kind == "array" then return trf("shape %s", shape_str(x.shape)) end
        return trf("a list of %d", #x.items)
    end
    return nil, at(trf("%s and %s", what(a), what(b)))
end

-- A value for the "a" and "b" lines of a failure: tensors as printed, tables in Lua syntax.
local function value_str(v)
    if type(v) == "number" then return string.format("%.8g", v) end
    if type(v) == "string" then return string.format("%q", v) end
    if type(v) ~= "table" or getmetatable(v) then return render(v) end
    local parts = {}
    for i = 1, #v do parts[i] = value_str(v[i]) end
    return "{" .. table.concat(parts, ", ") .. "}"
end

-- compare.agree(a, b, tol) -> ok, summary, lines. summary is what the ≡ line adds ("largest
-- difference 2.98e-08, tolerance 1e-06", "exact", or "" when no number was compared); lines
-- explain a failure.
function compare.agree(a, b, tol)
    local state = {}
    local ok, why = agree_walk(normal(a), normal(b), "", state)
    local function show(label, v) return labelled(label, value_str(v)) end
    if not ok then
        return false, nil, {show("a", a), show("b", b), trf("cannot be compared: %s", why)}
    end
    local best = state.best or 0
    local summary = ""
    if state.numbers and best == 0 then
        summary = tr("exact")
    elseif state.numbers and tol > 0 then
        summary = trf("largest difference %.2e, tolerance %g", best, tol)
    elseif state.numbers then
        summary = trf("largest difference %.2e", best)
    end
    if best <= tol then return true, summary end
    local where = state.where ~= "" and (" " .. state.where) or ""
    local reason
    if state.numbers and best ~= math.huge then
        reason = trf("largest difference %s", fmt_diff(best)) .. where .. trf(", tolerance %g", tol)
    else
        reason = tr("they differ") .. where
    end
    return false, nil, {show("a", a), show("b", b), reason}
end

---------------------------------------------------------------------------------------------------

function compare.check(computed, expected, opts)
    opts = opts or {}
    local tol = opts.tol
    if tol ~= nil and (type(tol) ~= "number" or tol < 0 or tol ~= tol) then
        errors.raisef("lesson.check: tol must be a number >= 0, got %s", tostring(tol))
    end
    local kind = type(expected)
    if kind == "string" then
        return check_text(computed, expected)
    elseif kind == "boolean" then
        if computed == expected then return true end
        return false, {labelled("expected", tostring(expected)), labelled("got", render(computed))}
    elseif kind == "number" then
        if tol == nil then
            local got = is_tensor(computed) and computed:numel() == 1 and computed:item() or computed
            if got == expected or (got ~= got and expected ~= expected) then return true end
            return false, {labelled("expected", tostring(expected)), labelled("got", render(computed)),
                           tr("not equal (give {tol = ...} to compare within a tolerance)")}
        end
        return check_numbers(computed, expected, tol)
    elseif kind == "table" or is_tensor(expected) then
        if tol == nil then
            if kind == "table" then
                errors.raise("lesson.check: a table of expected numbers needs a stated tolerance, e.g. {tol = 5e-5}")
            end
            errors.raise("lesson.check: a tensor of expected numbers needs a stated tolerance, e.g. {tol = 5e-5}")
        end
        return check_numbers(computed, expected, tol)
    end
    errors.raisef("lesson.check: the expected value must be text, a number, a table of numbers or a boolean, got %s",
          kind)
end

return compare
