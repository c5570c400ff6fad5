-- output.lua — whether what a block printed is what the notes' output block shows (module
-- attn.verify.output), and the explanation when it is not.
--
--   output.compare(expected, got [, at]) -> true, or false and {line =, text = {...}}
--     at: the file's line of expected's first line (1 when not given); line: the file's line where
--     the first difference is; text: the lines that explain it (expected and got with the differing
--     numbers marked, the largest difference at its line of the file)
--   output.normal(text) -> text as compared (text/printed.lua's printed.normal)
--
-- The texts must be equal, except in their numbers: a number matches when it is within half a unit
-- of the last digit the notes show (0.7070 takes 0.70702, 3 takes 3.4), so notes may round. Numbers
-- are read as lesson.check reads the book's text (lesson/compare.lua).

local compare = require("attn.lesson.compare")
local printed = require("attn.text.printed")
local width = require("attn.text.width").of
local i18n = require("attn.i18n")

local output = {}

local lines_of = printed.lines

-- output.normal is the text --update writes (verify/run.lua): text/printed.lua says how it is made
output.normal = printed.normal

-- Half a unit of the last digit of a number as written: 0.7070 -> 5e-05, 3 -> 0.5, 1.5e-05 -> 5e-07.
local function half_unit(tok)
    local mantissa, exp = tok:match("^%-?([%d%.]+)[eE]([%+%-]?%d+)$")
    mantissa = mantissa or tok:match("^%-?([%d%.]+)$")
    if not mantissa then return 0 end   -- inf, nan: exactly
    local decimals = #(mantissa:match("%.(%d*)$") or "")
    return 0.5 * 10.0 ^ ((tonumber(exp) or 0) - decimals)
end

local difference = compare.difference -- integers without wrapping: -9223372036854775808 is not 0

-- Each line's numbers, and the line with every number replaced by one mark (its "shape").
local function read_lines(lines)
    local out = {}
    for i, l in ipairs(lines) do
        local nums = compare.scan(l)
        local shape, pos = {}, 1
        for _, n in ipairs(nums) do
            shape[#shape + 1] = l:sub(pos, n.s - 1) .. "\0"
            pos = n.e + 1
        end
        shape[#shape + 1] = l:sub(pos)
        out[i] = {text = l, numbers = nums, shape = table.concat(shape)}
    end
    return out
end

-- A line and, under it, ^ under the numbers listed in marks (positions into the line).
local function marked(pad, line, marks)
    local out = {pad .. line}
    if marks and #marks > 0 then
        local m, col = {}, 0
        for _, n in ipairs(marks) do
            local before = width(line:sub(1, n.s - 1))
            m[#m + 1] = string.rep(" ", before - col) .. string.rep("^", width(n.text))
            col = before + width(n.text)
        end
        out[2] = string.rep(" ", width(pad)) .. table.concat(m)   -- columns: a Chinese label is wider than its bytes
    end
    return out
end

local function labelled(label, lines, marks)
    local out = {}
    label = i18n.lookup(label)   -- translated; padded to 10 columns as the terminal shows it
    local gap = string.rep(" ", math.max(1, 10 - width(label)))
    if #lines == 0 then return {label .. gap .. i18n.tr("(nothing)")} end
    for i, l in ipairs(lines) do
        local pad = i == 1 and label .. gap or string.rep(" ", 10)
        for _, s in ipairs(marked(pad, l, marks[i])) do out[#out + 1] = s end
    end
    return out
end

local function explain(exp_lines, got_lines, exp_marks, got_marks, last_line)
    local text = labelled("expected", exp_lines, exp_marks)
    for _, l in ipairs(labelled("got", got_lines, got_marks)) do text[#text + 1] = l end
    text[#text + 1] = last_line
    return text
end

function output.compare(expected, got, at)
    at = (at or 1) - 1
    local exp_lines, got_lines = lines_of(expected), lines_of(got)
    local a, b = read_lines(exp_lines), read_lines(got_lines)
    -- the text apart from the numbers
    for i = 1, math.max(#a, #b) do
        if not a[i] or not b[i] or a[i].shape ~= b[i].shape then
            local why
            if not a[i] then
                why = i18n.trf("%d more line(s) printed than the notes show", #b - #a)
            elseif not b[i] then
                why = i18n.trf("%d line(s) of the notes not printed", #a - #b)
            else
                local col = 1
                while a[i].text:sub(col, col) == b[i].text:sub(col, col) do col = col + 1 end
                why = i18n.trf("the text differs at line %d, column %d", at + i,
                                    width(a[i].text:sub(1, col - 1)) + 1)
            end
            return false, {line = at + math.min(i, #a + 1), text = explain(exp_lines, got_lines, {}, {}, why)}
        end
    end
    -- the numbers, each within half a unit of the notes' last digit
    local exp_marks, got_marks, first, worst = {}, {}, nil, nil
    for i = 1, #a do
        for k, n in ipairs(a[i].numbers) do
            local g = b[i].numbers[k]
            local d, tol = difference(n.value, g.value), half_unit(n.text)
            if d > tol * (1 + 1e-9) then
                exp_marks[i] = exp_marks[i] or {}
                got_marks[i] = got_marks[i] or {}
                table.insert(exp_marks[i], n)
                table.insert(got_marks[i], g)
                first = first or i
                if not worst or d > worst.d then worst = {d = d, tol = tol, n = n, g = g, line = i} end
            end
        end
    end
    if not first then return true end
    local why = i18n.trf("largest difference %.1e at line %d: %s printed where the notes show %s (%s)",
                              worst.d, at + worst.line, worst.g.text, worst.n.text,
                              worst.tol > 0 and i18n.trf("which allows ±%g", worst.tol) or i18n.tr("exactly"))
    return false, {line = at + first, text = explain(exp_lines, got_lines, exp_marks, got_marks, why)}
end

return output
