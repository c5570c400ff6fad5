-- page.lua — one self-contained web page from steps laid out as data (module attn.html.page): a
-- lesson's (`attn --html`, lesson/html.lua, from lesson/record.lua's doc) or a tracer's stages
-- (tr:save, html/trace_page.lua). Each step shows the sections and paragraphs before it, its
-- title, its code (the `-- Python:` comments set apart), what it printed as the terminal prints it,
-- its heatmaps as inline SVG with the value in each cell, its plots (attention.plot) as SVG line
-- plots, and its checks (✓, ≡ or ✗, with what was expected and what was got). Style and script are
-- inline (html/assets.lua): the page makes no request to any network. Every piece of text is
-- escaped, so a token "<script>" shows as text.
--
--   page.render(doc [, counts]) -> the page's text
--       doc: {title =, source =, intro = {items}, steps = {{n =, of =, title =, code = {lines},
--             before = {items}, items = {items}}, ...}, after = {items}} (lesson/record.lua says what
--             the items are); counts: {passed =, failed =, identities =}, the checks' (none: no counts)
local bind = require("attn.bind")
local assets = require("attn.html.assets")
local heatmap_svg = require("attn.draw.heatmap_svg")
local figures = require("attn.draw.figures") -- figures.svg: a heatmap (heatmap_svg) or a plot as SVG
local escape = require("attn.text.escape").html
local i18n = require("attn.i18n")

local page = {}

-- The words of the page itself, in one place for translation: marked here for the catalogs (N returns
-- its argument), translated when a page is rendered, in the language chosen then (--lang, ATTN_LANG).
local function N(msgid) return msgid end
local ENGLISH = {
    step = N("step %d/%d"),
    present = N("Present (P)"),
    steps = N("steps: %d"),
    counts = N("steps: %d · checks: %d passed, %d failed"),
    identities = N(" (%d of them identities)"),
    summary = N("end of lesson · checks: %d passed, %d failed"),
    expected = N("expected"), got = N("got"), same = N("expected and got"),
    one_way = N("one way"), other_way = N("the other way"), both_ways = N("both ways"),
    more = N("… (%d more characters)"),
    back = N("← back"), next = N("next →"), leave = N("leave (Esc)"),
    -- TRANSLATORS: %1 is the step shown, %2 the number of steps (filled in by the page's script)
    where = N("step %1 of %2 · → Space next · ← back · Home End · Esc leave"),
    contents = N("Steps"),
}
local WORDS = {}

-- The page's language as HTML names it ("zh_CN" -> "zh-CN").
local function html_lang()
    return (i18n.lang():gsub("_", "-"))
end

-- Prose as paragraphs: blank lines part them; a line that starts indented or as a list item keeps
-- its own line, the others flow together.
local function paragraphs(text)
    local out = {}
    for para in (text .. "\n\n"):gmatch("(.-)\n%s*\n") do
        if para:match("%S") then
            local lines = {}
            for line in (para .. "\n"):gmatch("(.-)\n") do
                local keep = #lines > 0 and (line:match("^%s") or line:match("^[-•*] ") or line:match("^%d+[.)] "))
                lines[#lines + 1] = (keep and "<br>" or (#lines > 0 and " " or "")) .. escape(line)
            end
            out[#out + 1] = "<p>" .. table.concat(lines) .. "</p>"
        end
    end
    return table.concat(out, "\n")
end

-- A step's code: each line, with its `-- Python: ...` comment in a span of its own.
local function code_block(lines)
    if #lines == 0 then return "" end
    local out = {}
    for i, l in ipairs(lines) do
        local code, py = l:match("^(.-)(%s*%-%-%s*Python:.*)$")
        if code then
            out[i] = escape(code) .. '<span class="py">' .. escape(py) .. "</span>"
        else
            out[i] = escape(l)
        end
    end
    return '<pre class="code"><code>' .. table.concat(out, "\n") .. "</code></pre>"
end

-- Frames of one picture changing (lesson.heatmaps' {frames = title}): one shown at a time, and a
-- slider (a range input) over them; assets.js shows the frame the slider points at and its title.
local function frames_block(list)
    local out = {}
    for i, fig in ipairs(list) do
        out[i] = '<div class="frame" data-title="' .. escape(fig.title or "") .. '"' .. (i > 1 and " hidden" or "")
            .. ">" .. heatmap_svg.render(fig) .. "</div>"
    end
    return '<div class="frames"><p class="scrub"><input type="range" min="1" max="' .. #list .. '" value="1" '
        .. 'aria-label="' .. escape(list[1].frames) .. '"> <output>' .. escape(list[1].title or "")
        .. "</output></p>" .. table.concat(out, "\n") .. "</div>"
end

-- What was printed: text as <pre>, heatmaps side by side when printed on one line. The spaces a
-- drawing was indented or padded with in the terminal are dropped around the figure.
local function output_block(parts)
    local out, row = {}, nil
    local function close_row()
        if row and row.frames then
            out[#out + 1] = frames_block(row)
        elseif row then
            out[#out + 1] = '<div class="figures">' .. table.concat(row, "\n") .. "</div>"
        end
        row = nil
    end
    for i, p in ipairs(parts) do
        if type(p) == "table" then
            if row and row.frames ~= p.frames then close_row() end
            row = row or {frames = p.frames}
            row[#row + 1] = p.frames and p or figures.svg(p)
        elseif not (p:match("^[ \t]*$") and type(parts[i - 1]) == "table") then
            local text = p
            if type(parts[i - 1]) == "table" then text = text:gsub("^[ \t]*\n", "") end
            if type(parts[i + 1]) == "table" then text = text:gsub("\n?[ \t]*$", "") end
            if text:match("%S") then
                close_row()
                out[#out + 1] = '<pre class="out">' .. escape((text:gsub("\n$", ""))) .. "</pre>"
            elseif text:find("\n") then
                close_row()
            end
        end
    end
    close_row()
    return table.concat(out, "\n")
end

-- A check's side as shown: a whole model's parameters would make the page heavy; the start of them
-- is shown, and how much is left out.
local LONGEST = 3000
local function shortened(text)
    if #text <= LONGEST then return escape(text) end
    local cut = LONGEST
    while cut > 1 and text:byte(cut + 1) and text:byte(cut + 1) >= 0x80 and text:byte(cut + 1) < 0xC0 do cut = cut - 1 end
    return escape(text:sub(1, cut)) .. "\n" .. escape(string.format(WORDS.more, #text - cut))
end

local function check_block(c)
    local mark, class = "✓", "ok"
    if not c.ok then mark, class = "✗", "bad" elseif c.identity then mark, class = "≡", "same" end
    local head = '<span class="mark">' .. mark .. "</span> " .. escape(c.what)
        .. (c.note and c.note ~= "" and (' <span class="note">(' .. escape(c.note) .. ")</span>") or "")
    local inner = {}
    for _, l in ipairs(c.lines or {}) do inner[#inner + 1] = "<pre>" .. escape(l) .. "</pre>" end
    if c.got or c.expected then
        local sides = {{WORDS.expected, c.expected or ""}, {WORDS.got, c.got or ""}}
        if c.identity then   -- lesson.agree(what, a, b): two ways to one value
            sides = {{WORDS.one_way, c.got or ""}, {WORDS.other_way, c.expected or ""}}
        end
        if c.expected == c.got then sides = {{c.identity and WORDS.both_ways or WORDS.same, c.got}} end
        local out = {}
        for i, side in ipairs(sides) do out[i] = "<div><b>" .. escape(side[1]) .. "</b><pre>" .. shortened(side[2]) .. "</pre></div>" end
        inner[#inner + 1] = '<div class="sides">' .. table.concat(out) .. "</div>"
    end
    if #inner == 0 then return '<div class="check ' .. class .. '">' .. head .. "</div>" end
    return '<details class="check ' .. class .. '"' .. (c.ok and "" or " open") .. "><summary>" .. head
        .. "</summary>" .. table.concat(inner, "\n") .. "</details>"
end

local function item_block(item)
    if item.kind == "section" then return '<h2 class="section">' .. escape(item.text) .. "</h2>" end
    if item.kind == "say" then return paragraphs(item.text) end
    if item.kind == "output" then return output_block(item.parts) end
    if item.kind == "check" then return check_block(item) end
    return ""
end

local function items_block(list)
    local out = {}
    for _, item in ipairs(list) do out[#out + 1] = item_block(item) end
    return table.concat(out, "\n")
end

local function step_block(s, total)
    return table.concat({
        string.format('<section class="step" id="step-%d" data-step="%d">', s.n, s.n),
        items_block(s.before),
        string.format('<h3 class="step-title"><span class="num">%s</span> %s</h3>',
                      string.format(WORDS.step, s.n, s.of or total), escape(s.title)),
        code_block(s.code),
        items_block(s.items),
        "</section>"}, "\n")
end

function page.render(doc, counts)
    for k, msgid in pairs(ENGLISH) do WORDS[k] = i18n.tr(msgid) end
    local steps, contents = {}, {}
    for i, s in ipairs(doc.steps) do
        steps[i] = step_block(s, #doc.steps)
        contents[i] = string.format('<li><a href="#step-%d">%s</a></li>', s.n, escape(s.title))
    end
    local head, summary = string.format(WORDS.steps, #doc.steps), nil
    if counts then
        local passed, failed, identities = counts.passed or 0, counts.failed or 0, counts.identities or 0
        local them = identities > 0 and string.format(WORDS.identities, identities) or ""
        head = string.format(WORDS.counts, #doc.steps, passed, failed) .. them
        summary = string.format(WORDS.summary, passed, failed) .. them
    end
    local title = doc.title or doc.name or ""
    return table.concat({
        "<!DOCTYPE html>",
        '<html lang="' .. escape(html_lang()) .. '">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        -- nothing from any network: no fetch, no image, no font, no frame; the page's own style
        -- and script only
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
            .. "script-src 'unsafe-inline'; img-src data:\">",
        '<meta name="generator" content="attn">',
        "<title>" .. escape(title) .. "</title>",
        "<style>" .. assets.css .. "</style>",
        "</head>",
        "<body>",
        "<header>",
        "<h1>" .. escape(title) .. "</h1>",
        doc.source and ('<p class="source">' .. escape(doc.source) .. "</p>") or "",
        '<p class="counts">' .. escape(head) .. "</p>",
        '<p class="tools"><button id="present" type="button">' .. escape(WORDS.present) .. "</button></p>",
        "</header>",
        #contents > 0 and ("<nav><b>" .. escape(WORDS.contents) .. "</b><ol>" .. table.concat(contents) .. "</ol></nav>") or "",
        "<main>",
        '<div class="intro">' .. items_block(doc.intro or {}) .. "</div>",
        table.concat(steps, "\n"),
        '<div class="after">' .. items_block(doc.after or {}) .. "</div>",
        summary and ('<p class="summary">' .. escape(summary) .. "</p>") or "",
        "</main>",
        '<div class="bar"><button id="prev" type="button">' .. escape(WORDS.back) .. '</button><button id="next" type="button">'
            .. escape(WORDS.next) .. '</button><span class="where" id="where" data-format="' .. escape(WORDS.where)
            .. '"></span><button id="leave" type="button">' .. escape(WORDS.leave) .. "</button></div>",
        "<script>" .. assets.js .. "</script>",
        "</body>",
        "</html>",
        ""}, "\n")
end

-- page.write(path, text, who) -> the size written; an error that names who (the option or the
-- function the user called) and says why, when path cannot be written. Written as every file attn
-- writes is (src/core/safe_write.c: a new file renamed over path, never a write into it).
function page.write(path, text, who)
    return bind.files.write(path, text, who)
end

return page
