-- rewrite.lua — `attn --verify --update`: the notes with each output block holding what its ```lua
-- block printed (module attn.verify.rewrite). Every other byte of the file stays as it was.
--
--   rewrite.apply(notes, outputs) -> the new text, how many blocks were rewritten, how many added
--     notes: verify/blocks.lua's; outputs[i]: what cell i printed (normalised by verify/output.lua),
--     or nil to leave cell i alone (skipped, failed with an error, or already matching)
-- A cell without an output block gets one right after its ```lua block (none when it printed
-- nothing), inside the same list item or block quote.

local rewrite = {}

-- A fence for text: three backticks, or more than the longest run of backticks starting a line of it
-- (so the text cannot close its own block). ch is "`" or "~", min the length to reach.
local function fence_for(text, ch, min)
    local n = math.max(3, min or 3)
    for line in text:gmatch("[^\n]+") do
        local run = line:match("^ ? ? ?(" .. (ch == "`" and "`" or "~") .. "+)")
        if run and #run >= n then n = #run + 1 end
    end
    return string.rep(ch, n)
end

-- The lines of text, each behind the container's prefix (no trailing spaces on an empty line).
local function content_lines(text, prefix)
    local out = {}
    for line in text:gmatch("([^\n]*)\n") do
        out[#out + 1] = line == "" and (prefix:gsub("%s+$", "")) or prefix .. line
    end
    return out
end

function rewrite.apply(notes, outputs)
    local lines, eol = notes.lines, notes.eol
    -- replacement[l] = the lines that take the place of line l (edits never overlap: one per block)
    local replace, after = {}, {}
    local changed, added = 0, 0
    for i, cell in ipairs(notes.cells) do
        local text = outputs[i]
        local out = cell.output
        if text and out then
            local fence = out.fence
            local new_fence = fence_for(text, fence:sub(1, 1), #fence)
            if new_fence ~= fence then   -- the new text would close the old fence: longer fences
                replace[out.line] = {(lines[out.line]:gsub(fence, new_fence, 1))}
                replace[out.last] = {(lines[out.last]:gsub(fence, new_fence, 1))}
            end
            for l = out.line + 1, out.last - 1 do replace[l] = {} end
            local body = content_lines(text, out.prefix)
            local first = replace[out.line] or {lines[out.line]}
            for _, l in ipairs(body) do first[#first + 1] = l end
            replace[out.line] = first
            changed = changed + 1
        elseif text and text ~= "" then
            local code = cell.code
            local fence = fence_for(text, "`")
            local new = {fence .. "output"}
            for _, l in ipairs(content_lines(text, code.prefix)) do new[#new + 1] = l end
            new[#new + 1] = code.prefix .. fence
            new[1] = code.prefix .. new[1]
            after[code.last] = new
            added = added + 1
        end
    end
    local out = {}
    local default_eol = eol[1] == "\r\n" and "\r\n" or "\n"
    for l = 1, #lines do
        local ending = eol[l] ~= "" and eol[l] or default_eol
        if replace[l] then
            for _, r in ipairs(replace[l]) do out[#out + 1] = r .. ending end
        else
            out[#out + 1] = lines[l] .. ending
        end
        if after[l] then
            for _, r in ipairs(after[l]) do out[#out + 1] = r .. ending end
        end
    end
    -- a file that ended without a newline still does
    if #lines > 0 and eol[#lines] == "" and not replace[#lines] and not after[#lines] then
        out[#out] = out[#out]:sub(1, -(#default_eol + 1))
    end
    return (notes.bom or "") .. table.concat(out), changed, added
end

return rewrite
