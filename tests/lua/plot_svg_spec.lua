-- attention.plot as SVG (src/lua/draw/plot_svg.lua, plot_data.lua) and as a figure of a web page or
-- a notebook cell (draw/figures.lua): the picture's structure (a group per series, a marker per
-- point, inside the axes, higher values higher up), its labels escaped, the same refusals as the
-- terminal's drawing, and the text a recorded page finds again where the plot was printed.
local plot_svg = require("attn.draw.plot_svg")
local figures = require("attn.draw.figures")
local i18n = require("attn.i18n")

local D_K = {x = {3, 64, 768, 4096}, logx = true, xlabel = "d_k", ylabel = "norm", title = "gradient",
             series = {{"raw", {0.8, 0.96, 0.23, 0.03}}, {"scaled", {1.0, 1.2, 1.1, 0.9}}}}

-- The attributes of the first element with this class (a table of name -> text).
local function attrs(svg, class)
    local tag = svg:match('<[%w]+ class="' .. class .. '"([^>]*)>')
    assert.is_truthy(tag, "no element of class " .. class)
    local a = {}
    for k, v in tag:gmatch('([%w%-]+)="([^"]*)"') do a[k] = v end
    return a
end

-- Each series' group: its name and its markers' {cx, cy, x, y}.
local function series_of(svg)
    local out = {}
    for head, body in svg:gmatch('<g class="series"([^>]*)>(.-)</g>') do
        local s = {name = head:match('data%-name="([^"]*)"'), points = tonumber(head:match('data%-points="(%d+)"')),
                   markers = tonumber(head:match('data%-markers="(%d+)"')), at = {}}
        for m in body:gmatch('<[%w]+ class="marker"([^>]*)>') do
            local cx = m:match(' cx="([^"]+)"')
            local cy = m:match(' cy="([^"]+)"')
            if not cx then -- a triangle or a square: the middle of its first two corners' box
                local x, y = m:match(' x="([^"]+)" y="([^"]+)"')
                if x then
                    cx, cy = tonumber(x) + 4, tonumber(y) + 4
                else
                    local x1, y1 = m:match('d="M([%d.]+) ([%d.]+)')
                    cx, cy = tonumber(x1), tonumber(y1) + 5.5
                end
            end
            s.at[#s.at + 1] = {cx = tonumber(cx), cy = tonumber(cy), x = tonumber(m:match('data%-x="([^"]+)"')),
                               y = tonumber(m:match('data%-y="([^"]+)"'))}
        end
        out[#out + 1] = s
    end
    return out
end

describe("attention.plot as SVG", function()
    after_each(function() i18n.lang("en") end)

    it("has a group per series, a marker per point inside the axes, higher values higher up", function()
        local svg = plot_svg.render(D_K)
        assert.is_truthy(svg:find('^<svg xmlns="http://www.w3.org/2000/svg" class="plot"'))
        assert.is_truthy(svg:find("</svg>$"))
        assert.is_nil(svg:find("<script", 1, true))
        local area = attrs(svg, "area")
        local x0, y0 = tonumber(area.x), tonumber(area.y)
        local x1, y1 = x0 + tonumber(area.width), y0 + tonumber(area.height)
        local series = series_of(svg)
        assert.are.equal(2, #series)
        assert.are.same({"raw", "scaled"}, {series[1].name, series[2].name})
        for si, s in ipairs(series) do
            assert.are.equal(4, s.points)
            assert.are.equal(4, s.markers)
            assert.are.equal(4, #s.at)
            for i, p in ipairs(s.at) do
                assert.are.equal(D_K.x[i], p.x)
                assert.are.equal(D_K.series[si][2][i], p.y)
                assert.is_true(p.cx > x0 and p.cx < x1 and p.cy > y0 and p.cy < y1, "outside the axes")
                if i > 1 then assert.is_true(p.cx > s.at[i - 1].cx) end -- x grows to the right
            end
            for i = 1, 4 do
                for j = 1, 4 do
                    if s.at[i].y > s.at[j].y then assert.is_true(s.at[i].cy < s.at[j].cy) end
                end
            end
        end
        -- a log scale: 64 is nearer 768 than 3 is to 64 (16 times against 21 times)
        local a = series[1].at
        assert.is_true(a[3].cx - a[2].cx < a[2].cx - a[1].cx)
        -- the legend names each series with its marker (a circle, then an open circle)
        local legend = svg:match('<g class="legend".-</g>')
        assert.are.equal(2, select(2, legend:gsub('class="marker"', "")))
        assert.is_truthy(legend:find(">raw</text>", 1, true) and legend:find(">scaled</text>", 1, true))
        assert.is_truthy(legend:find('<circle class="marker"[^>]*fill="none"'))
    end)

    it("labels its axes and title; an x tick under each of few points", function()
        local svg = plot_svg.render(D_K)
        assert.is_truthy(svg:find('<text class="xlabel"[^>]*>d_k %(log scale%)</text>'))
        assert.is_truthy(svg:find('<text class="ylabel"[^>]*>norm</text>'))
        assert.is_truthy(svg:find('<text class="title"[^>]*>gradient</text>'))
        local xticks = {}
        for t in svg:match('<g class="xticks".-</g>'):gmatch('<text class="tick"[^>]*>([^<]*)</text>') do
            xticks[#xticks + 1] = t
        end
        assert.are.same({"3", "64", "768", "4096"}, xticks)
        local yticks = {}
        for t in svg:match('<g class="yticks".-</g>'):gmatch('<text class="tick"[^>]*>([^<]*)</text>') do
            yticks[#yticks + 1] = tonumber(t)
        end
        assert.is_true(#yticks >= 3)
        for i = 2, #yticks do -- round numbers, evenly spaced (0.2 apart for 0.03 .. 1.2)
            assert.is_true(math.abs((yticks[i] - yticks[i - 1]) - (yticks[2] - yticks[1])) < 1e-9)
        end
        i18n.lang("zh_CN")
        assert.is_truthy(plot_svg.render(D_K):find(">d_k（对数刻度）</text>", 1, true))
    end)

    it("escapes every label: a name with <&> and quotes stays text", function()
        local svg = plot_svg.render{x = {1, 2}, xlabel = "<x>", ylabel = "a & b", title = "<script>alert(1)</script>",
                                    series = {{"<b>\"q\" 'r'</b>", {1, 2}}}}
        assert.is_nil(svg:find("<b>", 1, true))
        assert.is_nil(svg:find("<script", 1, true))
        assert.is_nil(svg:find("<x>", 1, true))
        assert.is_truthy(svg:find("&lt;b&gt;&quot;q&quot; &#39;r&#39;&lt;/b&gt;", 1, true))
        assert.is_truthy(svg:find(">a &amp; b</text>", 1, true))
        assert.is_truthy(svg:find(">&lt;script&gt;alert(1)&lt;/script&gt;</text>", 1, true))
        assert.are.equal("<b>\"q\" 'r'</b>", (svg:match('data%-name="([^"]*)"'):gsub("&lt;", "<"):gsub("&gt;", ">")
            :gsub("&quot;", '"'):gsub("&#39;", "'")))
    end)

    it("marks about 30 points of a long series, the last among them; the line goes through all", function()
        local xs, ys = {}, {}
        for i = 1, 100 do xs[i], ys[i] = i, 1 / i end
        local svg = plot_svg.render{x = xs, series = {{"loss", ys}}}
        local s = series_of(svg)[1]
        assert.are.equal(100, s.points)
        assert.are.equal(25, s.markers) -- every 4th: 1, 5, ..., 93, and 100 in place of 97
        assert.are.equal(25, #s.at)
        assert.are.equal(100, s.at[#s.at].x)
        local line = svg:match('<polyline class="line" points="([^"]*)"')
        assert.are.equal(100, select(2, line:gsub(",", "")))
    end)

    it("draws a single point and a flat series without dividing by zero", function()
        for _, opts in ipairs({{x = {5}, series = {{"one", {2}}}}, {x = {1, 2, 3}, series = {{"flat", {7, 7, 7}}}}}) do
            local svg = plot_svg.render(opts)
            assert.is_nil(svg:find("nan", 1, true))
            assert.is_nil(svg:find("inf", 1, true))
            assert.are.equal(#opts.x, #series_of(svg)[1].at)
        end
    end)

    it("refuses what the terminal's drawing refuses, with its message", function()
        local cases = {
            {nil, "expected a table"},
            {{x = {}, series = {{"a", {}}}}, "x must be a non%-empty list"},
            {{x = {1, 2}, series = {{"a", {1}}}}, "series%[1%] has 1 numbers but x has 2"},
            {{x = {1, 2}, series = {}}, "series must be a list"},
            {{x = {1, 0 / 0}, series = {{"a", {1, 2}}}}, "x%[2%] must be a finite number"},
            {{x = {0, 1}, series = {{"a", {1, 2}}}, logx = true}, "logx needs x > 0"},
            {{x = {1, 2}, series = {{"a", {1, 2}}}, title = {}}, "title must be a string"},
            {{x = {1, 2}, series = {{"a", {1, 2}}}, svg = 1}, "svg must be a string"},
        }
        for _, c in ipairs(cases) do
            for _, f in ipairs({attention.plot, plot_svg.render}) do
                local ok, err = pcall(f, c[1])
                assert.is_false(ok)
                assert.is_truthy(tostring(err):find("attention.plot: ", 1, true), tostring(err))
                assert.is_truthy(tostring(err):find(c[2]), tostring(err))
            end
        end
        i18n.lang("zh_CN")
        local ok, err = pcall(attention.plot, {x = {1, 2}, series = {{"a", {1, 2}}}, xlabel = {}})
        assert.is_false(ok)
        assert.is_truthy(tostring(err):find("attention.plot：xlabel 必须是字符串", 1, true), tostring(err))
    end)

    it("{svg = file} writes the picture to the file, returns nothing, names attention.plot when it cannot", function()
        local path = os.tmpname()
        local opts = {svg = path}
        for k, v in pairs(D_K) do opts[k] = v end
        assert.is_nil(attention.plot(opts))
        local f = assert(io.open(path))
        local text = f:read("a")
        f:close()
        os.remove(path)
        assert.is_truthy(text:find('^<%?xml version="1.0" encoding="UTF%-8"%?>\n<svg '))
        assert.are.equal(2, #series_of(text))
        opts.svg = "/nonexistent-dir/p.svg"
        local ok, err = pcall(attention.plot, opts)
        assert.is_false(ok)
        assert.is_truthy(tostring(err):find("attention.plot", 1, true), tostring(err))
    end)

    it("the terminal's drawing has the title above it", function()
        local text = attention.plot(D_K)
        assert.are.equal("gradient", text:match("^%s*(%S+)"))
    end)
end)

describe("attention.plot on a recorded page", function()
    it("is found again where its text is printed, as a figure with its description", function()
        local c = figures.open()
        local ok, err = pcall(function()
            local text = attention.plot(D_K)
            local parts = c:parts("before\n" .. text .. "\nbetween\n" .. text .. "\nafter")
            assert.are.equal(5, #parts)
            assert.are.same({"before\n", "\nbetween\n", "\nafter"}, {parts[1], parts[3], parts[5]})
            assert.are.equal("plot", parts[2].kind)
            assert.are.equal(text, parts[2].plain)
            assert.is_truthy(figures.svg(parts[2]):find('class="plot"', 1, true))
            assert.are.equal(2, #series_of(figures.svg(parts[4])))
        end)
        c:close()
        assert(ok, err)
    end)

    it("is not kept when the collection refuses it (lesson.capture), nor after it is closed", function()
        local c = figures.open(function() return false end)
        local text = attention.plot(D_K)
        assert.are.same({text}, c:parts(text))
        c:close()
        local c2 = figures.open()
        local before = attention.plot{x = {1, 2}, series = {{"a", {2, 1}}}}
        c2:close()
        local c3 = figures.open()
        assert.are.same({before}, c3:parts(before)) -- made under another collection: text
        c3:close()
    end)

    it("is found when made before the collection opened, if the collection asks for recent plots (a notebook)", function()
        local before = attention.plot{x = {1, 2, 3}, series = {{"earlier", {3, 1, 2}}}}
        local c = figures.open(nil, {recent = true})
        local parts = c:parts(before .. "\n")
        c:close()
        assert.are.equal(2, #parts)
        assert.are.equal("plot", parts[1].kind)
        assert.are.equal("earlier", parts[1].plot.series[1].name)
        assert.are.equal("\n", parts[2])
    end)
end)

-- A lesson that prints a plot, written to a file as a lesson is (os.tmpname: lesson/record.lua reads a path).
describe("a lesson's plot", function()
    local path
    setup(function()
        path = os.tmpname()
        local f = assert(io.open(path, "w"))
        f:write([[
lesson.title("a plot")
lesson.step("the loss", function()
    print(attention.plot{x = {1, 2, 3}, series = {{"loss", {3, 2, 1.5}}}, xlabel = "step"})
    local kept = attention.plot{x = {1, 2}, series = {{"kept", {1, 2}}}}
    lesson.print(#kept > 0)
end)
]])
        f:close()
    end)
    teardown(function() os.remove(path) end)

    it("on the web page: the SVG where the lesson printed it, a plot only kept stays out", function()
        local doc = require("attn.lesson.record").file(path)
        local figs, text = {}, {}
        for _, item in ipairs(doc.steps[1].items) do
            for _, p in ipairs(item.parts or {}) do
                if type(p) == "table" then figs[#figs + 1] = p else text[#text + 1] = p end
            end
        end
        assert.are.equal(1, #figs)
        assert.are.equal("loss", figs[1].plot.series[1].name)
        assert.are.equal("true", table.concat(text):match("%S+"))
        local page = require("attn.html.page").render(doc)
        assert.are.equal(1, select(2, page:gsub('<svg xmlns="http://www.w3.org/2000/svg" class="plot"', "")))
    end)

    it("in a --markdown handout: the terminal's drawing, in the output block", function()
        local md = require("attn.lesson.markdown").handout(path)
        assert.is_nil(md:find("<svg", 1, true))
        local block = md:match("```output\n(.-)```")
        assert.is_truthy(block and block:find("● loss", 1, true) and block:find("step", 1, true), md)
        assert.is_truthy(block:find("[\226][\160-\163]")) -- braille (U+2800..U+28FF)
    end)
end)
