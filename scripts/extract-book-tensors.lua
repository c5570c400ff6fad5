-- extract-book-tensors.lua — every distinct tensor printed in a chapter's text (the book's outputs), for
-- tests/lessons/test_book_tensors.sh. The book's text is not in the repository, so the result is
-- committed: tests/data/book/ch3_tensors.txt was made with
--   ./attn scripts/extract-book-tensors.lua CHAPTER-3.txt > tests/data/book/ch3_tensors.txt
-- where CHAPTER-3.txt is the text of LLMs-from-scratch ch. 3 (Chinese edition) with its notebook cells
-- and their outputs (plain lua5.4 runs it too).
--
-- A printed tensor starts at "tensor(" not preceded by a name character or a dot (so code such as
-- torch.tensor( is not one) and ends at its matching ")". Its text is kept exactly, PyTorch's
-- autograd suffix included ("...],\n       grad_fn=<SumBackward1>)"): attn has autograd and prints
-- it the same way. Tensors printed twice are listed once, in order of first appearance, each under a
-- line "=== N  (In [k], line L)" naming the notebook cell it came from.
local path = arg[1]
if not path then
    io.stderr:write("usage: extract-book-tensors.lua SEED.txt\n")
    os.exit(2)
end
local f = assert(io.open(path, "rb"))
local text = f:read("a")
f:close()

-- the notebook cell ("In [k]") and line number of a position
local function where(pos)
    local before = text:sub(1, pos)
    local _, line = before:gsub("\n", "")
    local cell
    for c in before:gmatch("In %[(%d+)%]") do cell = c end
    return cell, line + 1
end

local seen, list = {}, {}
local pos = 1
while true do
    local s, e = text:find("tensor%(", pos)
    if not s then break end
    local prev = s > 1 and text:sub(s - 1, s - 1) or ""
    if prev:match("[%w_%.]") then
        pos = e + 1
    else
        local depth, i = 0, e
        repeat
            local c = text:sub(i, i)
            if c == "(" then depth = depth + 1 elseif c == ")" then depth = depth - 1 end
            i = i + 1
        until depth == 0 or i > #text
        local t = text:sub(s, i - 1)
        if not seen[t] then
            seen[t] = true
            local cell, line = where(s)
            list[#list + 1] = {text = t, cell = cell, line = line}
        end
        pos = i
    end
end

io.write("# Every distinct tensor printed in seed 004 (LLMs from scratch, ch. 3), grad_fn included.\n")
io.write("# Made by scripts/extract-book-tensors.lua; checked by tests/lessons/test_book_tensors.sh.\n")
for n, t in ipairs(list) do
    io.write(string.format("=== %d  (In [%s], line %d)\n", n, t.cell or "?", t.line), t.text, "\n")
end
