-- The web page's figures (src/lua/web/figures.lua): with the hook installed, a heatmap's and a plot's
-- text is the terminal's drawing as before behind an OSC marker, and the SVG handed to the page is
-- the one `attn --html` draws of the same figure (draw/figures.lua); labels are escaped in it; text a
-- lesson reads back gets neither; the marker takes no column; undo puts everything back.
local web_figures = require("attn.web.figures")
local figures = require("attn.draw.figures")
local heatmap = require("attn.draw.heatmap")
local plot = require("attn.draw.plot")
local lesson = require("attn.lesson")
local width = require("attn.text.width")

local W = torch.tensor{{0.1, 0.9}, {0.25, 0.75}}
local OPTS = {rows = {"<script>", "b"}, cols = {"a&b", "d"}, color = true}

-- What the figures collection of `attn --html` keeps for one drawing, and the text drawn meanwhile.
local function recorded(draw)
    local c = figures.open()
    local ok, text = pcall(draw)
    c:close()
    assert(ok, text)
    return c.list[1], text
end

describe("the web page's figures", function()
    local sent, undo
    before_each(function()
        sent = {}
        undo = web_figures.install(function(n, svg) sent[#sent + 1] = {n = n, svg = svg} end)
    end)
    after_each(function() undo() end) -- (a second undo puts back the same: nothing)

    it("a heatmap: the marker, then the terminal's drawing; the page gets attn --html's SVG", function()
        local text = heatmap.render(W, OPTS)
        local n, rest = text:match("^\27%]7717;(%d+)\7(.*)$")
        assert.are.equal("1", n)
        assert.are.equal(1, #sent)
        undo()
        assert.are.equal(heatmap.render(W, OPTS), rest)
        local fig = recorded(function() return heatmap.render(W, OPTS) end)
        assert.are.equal(figures.svg(fig), sent[1].svg)
    end)

    it("labels are escaped in the SVG", function()
        heatmap.render(W, OPTS)
        assert.is_falsy(sent[1].svg:find("<script>", 1, true))
        assert.is_truthy(sent[1].svg:find("&lt;script&gt;", 1, true))
        assert.is_truthy(sent[1].svg:find("a&amp;b", 1, true))
    end)

    it("a plot: its text behind the marker, its SVG to the page", function()
        local opts = {x = {1, 2, 3}, series = {{"<i>loss</i>", {3, 2, 1}}}}
        local text = plot(opts)
        local n, rest = text:match("^\27%]7717;(%d+)\7(.*)$")
        assert.are.equal(tostring(sent[1].n), n)
        undo()
        assert.are.equal(plot(opts), rest)
        local fig = recorded(function() return plot(opts) end)
        assert.are.equal(figures.svg(fig), sent[1].svg)
        assert.is_falsy(sent[1].svg:find("<i>", 1, true))
    end)

    it("text a lesson reads back (lesson.capture) has no marker and sends nothing", function()
        local drawn
        lesson.capture(function() drawn = heatmap.render(W, OPTS) end)
        assert.is_falsy(drawn:find("\27]", 1, true))
        assert.are.equal(0, #sent)
    end)

    it("the marker takes no column (text.width's plain)", function()
        local text = heatmap.render(W, OPTS)
        undo()
        local plain = heatmap.render(W, OPTS)
        assert.are.equal(width.of(width.plain(plain)), width.of(width.plain(text)))
    end)

    it("undo: heatmaps and plots are drawn without markers again", function()
        undo()
        assert.is_falsy(heatmap.render(W, OPTS):find("\27]", 1, true))
        assert.is_falsy(plot{x = {1, 2}, series = {{"a", {1, 2}}}}:find("\27]", 1, true))
    end)
end)
