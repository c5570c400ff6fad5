-- heatmap.lua — a matrix drawn in the terminal, with row and column labels (module attn.draw.heatmap).
--
--   heatmap.render(t, opts) -> text      t a 2-D tensor; opts (all optional):
--       rows, cols   lists of labels (tokens) for the rows and the columns
--       color        true: 256-colour cells with the value in each; false: plain text with a shade
--                    (░▒▓█) after each value; default: attn.term's (a terminal, no NO_COLOR)
--       shade        false: no colours and no shading, just the labelled numbers (the tracer's
--                    non-weight matrices)
--       range        {lo, hi}: the values mapped to the lightest and darkest cell (default: the
--                    smallest and largest finite value of t)
--
-- The numbers are PyTorch's print of t, cell by cell (so precision follows torch.set_printoptions, and
-- -inf / nan show as such), except that a matrix PyTorch would print in scientific notation gets fixed
-- decimals (fixed_cells below); the colour only adds to them.
--
--   heatmap.level(v, lo, hi) -> where v lies in the colour scale, 0..1 (nil for -inf, inf and nan)
--   heatmap.record(fn) -> the recorder it replaces. While one is set (lesson/record.lua, for --html),
--       every shaded matrix render would draw is handed to fn as data instead: fn{t =, opts =, cells =,
--       exact = (the cells as PyTorch prints them), values =, rows =, cols =, lo =, hi =} returns the text render returns in its place (a marker
--       the recorder finds again in what was printed), or nil to have it drawn as text after all.
local heatmap = {}
local torch = require("attn.bind").torch
local text = require("attn.text.width")
local term = require("attn.term")
local errors = require("attn.errors") -- errors point at the user's line, not at this file
local raisef = errors.raisef

local ESC = "\27["
-- Light to dark: ivory, greens, teals, blues (xterm 256-colour indices).
local PALETTE = {230, 194, 157, 121, 86, 43, 37, 31, 25, 19}
local SHADES = {" ", "░", "▒", "▓", "█"}

local width, pad_left, pad_right = text.of, text.pad_left, text.pad_right

local recorder = nil
function heatmap.record(fn)
    local old = recorder
    recorder = fn
    return old
end

-- A label as shown: a string of at most 12 columns.
local function label(x)
    return text.cut((tostring(x):gsub("[%c]", " ")), 12)
end

-- The cells of a 2-D tensor as PyTorch prints them: {{"0.9995", ...}, ...}, or nil when the print
-- is summarised ("...") and so does not hold every cell.
local function cells_of(t)
    local s = tostring(t):gsub("%s+", " ")
    local rows = {}
    for row in s:gmatch("%[([^%[%]]*)%]") do
        local r = {}
        for cell in (row .. ","):gmatch("%s*([^,]-)%s*,") do r[#r + 1] = cell end
        rows[#rows + 1] = r
    end
    if #rows ~= t.shape[1] or s:find("...", 1, true) then return nil end
    return rows
end

-- A matrix PyTorch prints in scientific notation (its largest value over its smallest is above 1000, as
-- attention weights are after training) is hard to read cell by cell: its cells are written instead
-- with fixed decimals chosen from the largest magnitude, five digits in all and at most four decimals
-- (0.9998, 0.0001, 12.346, 1234.5), so every cell has the same format; -inf, inf and nan stay as
-- PyTorch prints them. The exact numbers are PyTorch's print of the tensor (and the page's tooltips).
local function fixed_cells(cells, values)
    local sci = false
    for _, row in ipairs(cells) do
        for _, c in ipairs(row) do if c:find("e", 1, true) and c:find("%d") then sci = true end end
    end
    if not sci then return cells end
    local top = 0
    for _, row in ipairs(values) do
        for _, v in ipairs(row) do
            if v == v and v ~= math.huge and v ~= -math.huge then top = math.max(top, math.abs(v)) end
        end
    end
    if top >= 1e5 then return cells end -- too large for fixed decimals to stay narrow
    local decimals = top > 0 and math.max(0, math.min(4, 4 - math.floor(math.log(top, 10)))) or 4
    local fmt = "%." .. decimals .. "f"
    local out = {}
    for i, row in ipairs(values) do
        out[i] = {}
        for j, v in ipairs(row) do
            if v == v and v ~= math.huge and v ~= -math.huge then
                local c = string.format(fmt, v)
                out[i][j] = c:match("^%-[0.]+$") and c:sub(2) or c
            else
                out[i][j] = cells[i][j]
            end
        end
    end
    return out
end
heatmap.fixed_cells = fixed_cells

-- Where v lies between lo and hi, 0..1 (nil for -inf, inf and nan); heatmap_svg.lua shades by it too.
local function level(v, lo, hi)
    if v ~= v or v == math.huge or v == -math.huge then return nil end
    if hi <= lo then return 0.5 end
    local x = (v - lo) / (hi - lo)
    return x < 0 and 0 or (x > 1 and 1 or x)
end
heatmap.level = level

local function finite_range(values)
    local lo, hi = math.huge, -math.huge
    for _, row in ipairs(values) do
        for _, v in ipairs(row) do
            if v == v and v ~= math.huge and v ~= -math.huge then
                if v < lo then lo = v end
                if v > hi then hi = v end
            end
        end
    end
    return lo, hi
end

local function colour_cell(text, v, x)
    if x == nil then -- -inf (masked) grey, nan dark red
        local bg = (v == -math.huge) and 238 or 52
        return ESC .. "48;5;" .. bg .. ";38;5;250m" .. text .. ESC .. "0m"
    end
    local i = math.floor(x * (#PALETTE - 1) + 0.5) + 1
    local fg = i <= #PALETTE // 2 and "30" or "97"
    return ESC .. "48;5;" .. PALETTE[i] .. ";" .. fg .. "m" .. text .. ESC .. "0m"
end

local function check_labels(what, labels, n, dimname)
    if labels == nil then return nil end
    if type(labels) ~= "table" then
        raisef("attention.heatmap: %s must be a list of labels, got %s", what, type(labels))
    end
    if #labels ~= n then
        raisef("attention.heatmap: %d %s labels for %d %s", #labels, what:sub(1, -2), n, dimname)
    end
    local out = {}
    for i = 1, n do out[i] = label(labels[i]) end
    return out
end

-- The matrix checked: a 2-D tensor, and its labels (lists of as many as it has rows and columns).
local function check_matrix(t, opts)
    if not torch.is_tensor(t) then
        raisef("attention.heatmap: expected a 2-D tensor, got %s", type(t))
    end
    if t:dim() ~= 2 then
        local shape = tostring(t.shape):match("%[.*%]")
        if t:dim() > 2 then
            raisef("attention.heatmap: expected a 2-D tensor (a matrix), got shape %s; pick one matrix, e.g. t[1]", shape)
        end
        raisef("attention.heatmap: expected a 2-D tensor (a matrix), got shape %s; a vector can be drawn as t:view(1, -1)",
               shape)
    end
    local n, m = t.shape[1], t.shape[2]
    return n, m, check_labels("rows", opts.rows, n, "rows"), check_labels("cols", opts.cols, m, "columns")
end

-- The values the lightest and the darkest cell stand for: opts.range, else the finite values' own.
local function value_range(values, r)
    if r == nil then return finite_range(values) end
    if type(r) ~= "table" or type(r[1]) ~= "number" or type(r[2]) ~= "number" or not (r[1] <= r[2]) then
        raisef("attention.heatmap: range must be {low, high}, two numbers with low <= high, got %s",
               type(r) == "table" and "{" .. tostring(r[1]) .. ", " .. tostring(r[2]) .. "}" or type(r))
    end
    return r[1], r[2]
end

-- The widths: of a column (the widest number, one more for plain shading, or the widest column
-- label) and of the row labels.
local function measure(h)
    local tw = 0 -- text width of the widest number
    for i = 1, h.n do for j = 1, h.m do tw = math.max(tw, width(h.cells[i][j])) end end
    local cw = tw + ((h.shade and not h.color) and 1 or 0) -- plain shading adds one column
    for j = 1, h.m do cw = math.max(cw, h.cols and width(h.cols[j]) or 0) end
    local rw = 0
    for i = 1, h.n do rw = math.max(rw, h.rows and width(h.rows[i]) or 0) end
    return cw, rw
end

-- One cell, cw columns wide: the number on its colour, the number and its shade, or the number alone.
local function draw_cell(h, i, j, cw)
    local cell, v = h.cells[i][j], h.values[i][j]
    local x = level(v, h.lo, h.hi)
    if h.color then
        return colour_cell(" " .. pad_left(cell, cw) .. " ", v, x)
    elseif h.shade then
        local s = x and SHADES[math.floor(x * (#SHADES - 1) + 0.5) + 1] or " "
        return pad_left(cell .. s, cw)
    end
    return pad_left(cell, cw)
end

-- The lines: the column labels over the cells, each row after its label.
local function draw(h)
    local cw, rw = measure(h)
    local gap = h.color and "" or "  "
    local cellw = h.color and cw + 2 or cw -- colour cells get a space of padding on each side
    local lines = {}
    local lead = h.rows and (string.rep(" ", rw) .. "  ") or ""
    if h.cols then
        local head = {}
        for j = 1, h.m do head[j] = pad_left(h.cols[j], cellw) end
        lines[#lines + 1] = (lead .. table.concat(head, gap)):gsub("%s+$", "")
    end
    for i = 1, h.n do
        local parts = {}
        for j = 1, h.m do parts[j] = draw_cell(h, i, j, cw) end
        local row = (h.rows and (pad_right(h.rows[i], rw) .. "  ") or "") .. table.concat(parts, gap)
        lines[#lines + 1] = h.color and row or row:gsub("%s+$", "")
    end
    return table.concat(lines, "\n")
end

--- heatmap.render(t, opts) -> the matrix as text (no trailing newline).
function heatmap.render(t, opts)
    opts = opts or {}
    local n, m, rows, cols = check_matrix(t, opts)
    if n == 0 or m == 0 then return "(empty matrix " .. tostring(t.shape):match("%[.*%]") .. ")" end
    local cells = cells_of(t)
    if not cells then return tostring(t) end -- too big to draw cell by cell: PyTorch's summary
    local values = t:float():tolist()
    local shade = opts.shade ~= false
    local color = shade and opts.color
    if color == nil and shade then
        color = term.color
    end
    local lo, hi = value_range(values, opts.range)
    local exact = cells
    cells = fixed_cells(cells, values)
    local marker = recorder and shade and
        recorder{t = t, opts = opts, cells = cells, exact = exact, values = values, rows = rows, cols = cols, lo = lo,
                 hi = hi}
    if marker then return marker end
    return draw{n = n, m = m, cells = cells, values = values, rows = rows, cols = cols, lo = lo, hi = hi,
                shade = shade, color = color}
end

return heatmap
