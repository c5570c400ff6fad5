-- attention.plot (src/lua/draw/plot.lua): a line plot in the terminal, in braille, with labelled
-- axes and a legend; errors name attention.plot.
describe("attention.plot", function()
    local function plot_of(opts) return attention.plot(opts) end

    it("draws each series' points with its marker, the axes' labels and the legend", function()
        local s = plot_of{x = {3, 64, 768, 4096}, series = {{"raw", {0.8, 0.96, 0.23, 0.03}}, {"scaled", {1.0, 1.2, 1.1, 0.9}}},
                          xlabel = "d_k", ylabel = "norm", logx = true, width = 40, height = 8}
        local lines = {}
        for l in (s .. "\n"):gmatch("(.-)\n") do lines[#lines + 1] = l end
        assert.are.equal("norm", lines[1]:match("%S+"))
        assert.is_truthy(lines[2]:find("^ *1%.5┤"))       -- a round number above the largest y (1.2) at the top
        assert.is_truthy(lines[9]:find("^ *0┤"))          -- one below the smallest (0.03) at the bottom
        assert.is_truthy(lines[10]:find("└" .. string.rep("─", 40), 1, true))
        assert.is_truthy(lines[11]:find("3") and lines[11]:find("4096"))
        assert.is_truthy(lines[12]:find("d_k (log scale)", 1, true))
        -- the second series is drawn last, so its 4 points all show; the first's where not covered
        assert.are.equal(5, select(2, s:gsub("○", ""))) -- 4 points and the legend's
        assert.is_true(select(2, s:gsub("●", "")) >= 3)
        assert.is_truthy(s:find("● raw   ○ scaled", 1, true))
        local braille = 0
        for _, c in utf8.codes(s) do if c > 0x2800 and c <= 0x28FF then braille = braille + 1 end end
        assert.is_true(braille > 20) -- the segments between the points
        -- every row of the plot area is the width asked for (in characters)
        for r = 2, 9 do
            local _, e = lines[r]:find("┤", 1, true)
            if not e then _, e = lines[r]:find("│", 1, true) end
            assert.are.equal(40, utf8.len(lines[r]:sub(e + 1)))
        end
    end)

    it("puts the largest point at the top row and the smallest at the bottom", function()
        local s = plot_of{x = {1, 2}, series = {{"up", {0, 10}}}, width = 10, height = 4}
        local rows = {}
        for l in (s .. "\n"):gmatch("(.-)\n") do rows[#rows + 1] = l end
        assert.is_truthy(rows[1]:find("●$"))      -- (2, 10): right end of the top row
        assert.is_truthy(rows[4]:find("┤●"))      -- (1, 0): left end of the bottom row
    end)

    it("labels the y axis at round numbers, not at the data's own (a loss from 2.287 to 0.006769)", function()
        local s = plot_of{x = {1, 100, 200}, series = {{"loss", {2.287, 1.147, 0.006769}}}, width = 40}
        local labels = {}
        for l in s:gmatch("([%d%.]+)┤") do labels[#labels + 1] = l end
        assert.are.same({"2.5", "2", "1.5", "1", "0.5", "0"}, labels)
        assert.is_nil(s:find("2.287", 1, true))
    end)

    it("takes tensors' numbers (0-d tensors)", function()
        assert.is_string(plot_of{x = {1, 2}, series = {{"t", {torch.tensor(1.5), torch.tensor(2.5)}}}})
    end)

    it("refuses what it cannot draw, naming attention.plot", function()
        local cases = {
            {nil, "expected a table"},
            {{x = {}, series = {{"a", {}}}}, "x must be a non%-empty list"},
            {{x = {1, 2}, series = {{"a", {1}}}}, "series%[1%] has 1 numbers but x has 2"},
            {{x = {1, 2}, series = {}}, "series must be a list"},
            {{x = {1, 2}, series = {{1, {1, 2}}}}, "series%[1%] must be a pair"},
            {{x = {1, 0 / 0}, series = {{"a", {1, 2}}}}, "x%[2%] must be a finite number"},
            {{x = {0, 1}, series = {{"a", {1, 2}}}, logx = true}, "logx needs x > 0"},
            {{x = {1, 2}, series = {{"a", {1, 2}}}, width = 2}, "width must be an integer"},
            {{x = {1, 2}, series = {{"a", {1, 2}}}, colour = true}, "unknown option colour"},
        }
        for _, c in ipairs(cases) do
            local ok, err = pcall(attention.plot, c[1])
            assert.is_false(ok)
            assert.is_truthy(tostring(err):find("attention.plot: ", 1, true), tostring(err))
            assert.is_truthy(tostring(err):find(c[2]), tostring(err))
        end
    end)
end)
