-- README.md's prompt sessions that are marked for it (an HTML comment naming this file just before the
-- block): each `attn> ` line (with its `  ..> ` continuation lines) is evaluated the way the prompt
-- evaluates it (repl.eval: an expression's values are printed), and what attn prints must be the lines the
-- README shows under it, every one, in order. So the README cannot show output attn does not print.
-- The sessions read Qwen3's real tokenizer.json, which make test fetches into build/hf-tokenizers.
local repl = require("attn.repl")
local MARK = "<!-- tests/lua/readme_spec.lua"

-- The marked sessions: {{first_line =, steps = {{chunk =, expected = {lines}}}}}.
local function sessions()
    local lines = {}
    for l in io.lines("README.md") do lines[#lines + 1] = l end
    local found, i = {}, 1
    while i <= #lines do
        if lines[i]:sub(1, #MARK) == MARK then
            assert(lines[i + 1] == "```", "README.md:" .. (i + 1) .. ": a fenced block must follow the mark")
            local session = {first_line = i + 2, steps = {}}
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
                    local step = assert(session.steps[#session.steps], "README.md:" .. i .. ": output before any attn> line")
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

describe("README.md's marked prompt sessions", function()
    local all = sessions()
    it("has at least one (the Chinese sentence's overview and cached generation)", function()
        assert.is_true(#all >= 1)
    end)
    for _, session in ipairs(all) do
        it("the session at README.md:" .. session.first_line .. " prints what the README shows", function()
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
