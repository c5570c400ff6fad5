-- README.md's prompt sessions that are marked for it (an HTML comment naming this file just before the
-- block), and the manual's (src/cli/man/attn-tour.7: a troff comment naming this file before a .nf
-- block): each `attn> ` line (with its `  ..> ` continuation lines) is evaluated the way the prompt
-- evaluates it (repl.eval: an expression's values are printed), and what attn prints must be the lines the
-- page shows under it, every one, in order. So neither can show output attn does not print.
-- The sessions read Qwen3's real tokenizer.json, which make test fetches into build/hf-tokenizers.
-- And README.md's map ("Where things live"): every file under src/ (but src/po's catalogs) is named in
-- it, and every name in it exists.
local repl = require("attn.repl")
local MARK = "<!-- tests/lua/readme_spec.lua"

local MAN_MARK = '.\\" tests/lua/readme_spec.lua'

-- The lines of a file; for a man page, its marked blocks' lines as man shows them (\e a backslash, \& nothing),
-- each block opened by the line "```" and closed by "```" as in the README.
local function page_lines(path)
    local lines, numbers, literal, n = {}, {}, false, 0
    for l in io.lines(path) do
        n = n + 1
        if path:match("%.7$") then
            if l:sub(1, #MAN_MARK) == MAN_MARK then l = MARK
            elseif l == ".nf" then l, literal = "```", true
            elseif l == ".fi" then l, literal = "```", false
            elseif l:match("^%.R[SE]") then l = nil
            elseif literal then l = l:gsub("^\\&", ""):gsub("\\e", "\\")
            end
        end
        if l then lines[#lines + 1], numbers[#lines + 1] = l, n end
    end
    return lines, numbers
end

-- The marked sessions: {{file =, first_line =, steps = {{chunk =, expected = {lines}}}}}.
local function sessions(path)
    local lines, numbers = page_lines(path)
    local found, i = {}, 1
    while i <= #lines do
        if lines[i]:sub(1, #MARK) == MARK then
            assert(lines[i + 1] == "```", path .. ":" .. numbers[i + 1] .. ": a fenced block must follow the mark")
            local session = {file = path, first_line = numbers[i + 2], steps = {}}
            i = i + 2
            while lines[i] ~= "```" do
                local chunk = lines[i]:match("^attn> (.*)$")
                if chunk then
                    while lines[i + 1]:match("^  %.%.> ") do
                        i = i + 1
                        chunk = chunk .. "\n" .. lines[i]:match("^  %.%.> (.*)$")
                    end
                    session.steps[#session.steps + 1] = {chunk = chunk, expected = {}}
                else
                    local step = assert(session.steps[#session.steps], path .. ":" .. numbers[i] .. ": output before any attn> line")
                    table.insert(step.expected, lines[i])
                end
                i = i + 1
            end
            found[#found + 1] = session
        end
        i = i + 1
    end
    return found
end

-- What evaluating chunk at the prompt prints (its results and what the library writes), as lines.
local function printed(chunk)
    local out = {}
    local saved = io.write
    io.write = function(...) for k = 1, select("#", ...) do out[#out + 1] = tostring((select(k, ...))) end end
    local errs = {}
    local ok, err = pcall(repl.eval, chunk, {write = function(s) out[#out + 1] = s end,
                                             error = function(msg) errs[#errs + 1] = msg end}, true)
    io.write = saved
    assert(ok, err)
    assert(#errs == 0, "error: " .. table.concat(errs, "\n"))
    local lines = {}
    for l in (table.concat(out) .. "\n"):gmatch("(.-)\n") do lines[#lines + 1] = l end
    if lines[#lines] == "" then lines[#lines] = nil end
    return lines
end

describe("README.md's and the manual's marked prompt sessions", function()
    local all = sessions("README.md")
    for _, s in ipairs(sessions("src/cli/man/attn-tour.7")) do all[#all + 1] = s end
    it("has at least one (the Chinese sentence's overview and cached generation)", function()
        assert.is_true(#all >= 1)
    end)
    for _, session in ipairs(all) do
        it("the session at " .. session.file .. ":" .. session.first_line .. " prints what the page shows", function()
            local term = require("attn.term")
            local color = term.color
            term.color = false -- as a terminal with NO_COLOR shows it
            local ok, err = pcall(function()
                for _, step in ipairs(session.steps) do
                    assert.are.same(step.expected, printed(step.chunk), "attn> " .. step.chunk)
                end
            end)
            term.color = color
            assert(ok, err)
        end)
    end
end)

-- README.md's map: the fenced block after "## Where things live". A line starting at the margin names a
-- folder (src/lua/nn/); the file names on it and on the indented lines after it are in that folder (or,
-- with a slash, below it; outside src/, from the top of the checkout).
local FILE = "[%w_%-][%w_%-%./]*%.(%w+)"
local KINDS = {c = true, h = true, lua = true, md = true, ["1"] = true, ["7"] = true, png = true,
               svg = true, tsv = true, sh = true, js = true, json = true, html = true, css = true, mk = true}

local function exists(path)
    local f = io.open(path, "r")
    if f then f:close() end
    return f ~= nil
end

local function map()
    local lines, inside, fence = {}, false, false
    for l in io.lines("README.md") do
        if l == "## Where things live" then inside = true
        elseif inside and l:match("^## ") then break
        elseif inside and l:match("^```") then
            if fence then break end
            fence = true
        elseif fence then lines[#lines + 1] = l
        end
    end
    local named, missing, folder = {}, {}, nil
    for n, l in ipairs(lines) do
        local top = l:match("^(%S+/)")
        if top then
            folder = top
            if not exists(top) then missing[#missing + 1] = "README.md map line " .. n .. ": folder " .. top end
        end
        for word in l:gmatch("[^%s,;:()]+") do
            local ext = word:match("^" .. FILE .. "$")
            if ext and KINDS[ext] and word ~= top then
                local path = folder and folder:match("^src/") and folder .. word
                             or (folder and exists(folder .. word) and folder .. word) or word
                if exists(path) then named[path] = true
                else missing[#missing + 1] = "README.md map line " .. n .. ": " .. word .. " (" .. path .. ")" end
            end
        end
    end
    return named, missing, #lines
end

describe("README.md's map of where things live", function()
    local named, missing, nlines = map()
    it("is there", function() assert.is_true(nlines > 20) end)
    it("names only files and folders that exist", function()
        assert.are.same({}, missing)
    end)
    it("names every file under src/ (but src/po's catalogs)", function()
        local unnamed = {}
        local list = assert(io.popen("find src -type f -not -path 'src/po/*' | sort"))
        for path in list:lines() do
            if not named[path] then unnamed[#unnamed + 1] = path end
        end
        list:close()
        assert.are.same({}, unnamed)
    end)
    it("is part of a README of at most 300 lines", function()
        local n = 0
        for _ in io.lines("README.md") do n = n + 1 end
        assert.is_true(n <= 300, "README.md has " .. n .. " lines")
    end)
end)
