-- execute.lua — an execute_request (module attn.kernel.execute): the cell runs as a chunk typed at the
-- prompt runs (attn.repl's eval: values printed as the REPL prints them, top-level locals kept, `_`
-- the last result, ?name for help), with what it writes sent as streams and its value as the
-- execute_result. Errors name the cell and the line: "In[3]:2: ..." (one-line cells: the message).
--
--   execute.run(msg) -> the execute_reply's content
--   execute.count()  -> the execution count so far
local wire = require("attn.kernel.wire")
local json = require("attn.json")
local output = require("attn.kernel.output")
local repl = require("attn.repl")
local errors = require("attn.errors")
local tr = require("attn.i18n").tr

local execute = {}
local count = 0
local current_msg = nil  -- the request being run, for input()

function execute.count() return count end

-- io.read in a cell: an input_request to the client (Jupyter's stdin channel), when it allows one.
local function kernel_read(fmt)
    if current_msg == nil or current_msg.content.allow_stdin ~= true then
        error(tr("io.read: this Jupyter client does not take input (allow_stdin is false)"), 2)
    end
    output.flush()
    local text = wire.input("", false, current_msg)
    if text == nil then return nil end
    if fmt == "n" or fmt == "*n" then return tonumber(text) end
    if fmt == "L" or fmt == "*L" then return text .. "\n" end
    return text
end

local function error_content(msg)
    local ename = errors.is_interrupt(msg) and "interrupted" or "error"
    return {ename = ename, evalue = output.clean(msg), traceback = json.array{output.clean("error: " .. msg)}}
end

-- Whether lines[from..#lines], after "return ", load as an expression. The parser is fed line by line
-- (load's reader), so that it stops at its first error having read only that far: joining each tail
-- into one string made a cell of N lines cost N² (32,000 lines with a syntax error at the end: 36 s).
local function tail_is_expression(lines, from)
    local i, started = from - 1, false
    return load(function()
        if not started then
            started = true
            return "return "
        end
        i = i + 1
        if i > #lines then return nil end
        return lines[i] .. "\n" -- never "", which would end the chunk early
    end, "=cell", "t") ~= nil
end

-- The chunks a cell runs as. A cell is one chunk, as a paste at the prompt; but a cell of statements
-- that ends in an expression ("y = 41\ny + 1"), which Lua cannot load as one chunk, runs as the
-- statements and then the expression, whose value is shown (as IPython shows a cell's last value).
function execute.chunks(code)
    local body = code:gsub("^=", "return ")
    if load("return " .. body, "=cell", "t") or load(repl.rewrite_locals(body), "=cell", "t") then return {code} end
    local lines = {}
    for line in (code .. "\n"):gmatch("(.-)\n") do lines[#lines + 1] = line end
    local last = #lines -- the last line that is not blank: a tail must reach it
    while last > 0 and not lines[last]:find("%S") do last = last - 1 end
    for k = math.min(#lines, last) - 1, 1, -1 do
        if tail_is_expression(lines, k + 1) then
            local head = table.concat(lines, "\n", 1, k)
            if load(repl.rewrite_locals(head), "=cell", "t") then
                return {head, table.concat(lines, "\n", k + 1), tail_line = k}
            end
        end
    end
    return {code}
end

-- Runs the chunks of a cell through the REPL's eval, the next only when the one before went well.
-- The expression at the end keeps its line numbers in messages: the lines before it are blank.
local function eval_cell(code, sink)
    local chunks = execute.chunks(code)
    local status = repl.eval(chunks[1], sink, true)
    if chunks[2] and status == "ok" then
        status = repl.eval(string.rep("\n", chunks.tail_line) .. chunks[2], sink, true)
    end
    return status
end

function execute.run(msg)
    local c = msg.content
    if type(c.code) ~= "string" then error("execute_request without code", 0) end
    -- a NUL (\u0000) ends the code where the JSON decoder stops: the rest would silently not run
    if msg.content_has_nul then error(tr("the cell holds a NUL character (\\u0000), which attn cannot run: remove it"), 0) end
    local silent = c.silent == true
    if not silent and c.store_history ~= false then count = count + 1 end
    local n = count
    if not silent then wire.send("iopub", "execute_input", {code = c.code, execution_count = n}, msg) end
    output.begin(msg, silent)
    current_msg = msg
    repl.chunkname = "=In[" .. n .. "]"
    local result, err = nil, nil
    local sink = {write = function(s) result = (result or "") .. s end, error = function(m) err = m end}
    local ok, status = wire.run(eval_cell, c.code, sink)
    if not ok then err = errors.text(status) end
    local data = nil   -- the value's, while the cell's plots are still known (output.finish forgets them)
    if result and not err and not silent then
        output.flush()
        data = output.value(result)
    end
    output.finish()
    current_msg = nil
    if err then
        local e = error_content(err)
        if not silent then wire.send("iopub", "error", e, msg) end
        e.status, e.execution_count = "error", n
        return e
    end
    if data then
        wire.send("iopub", "execute_result", {execution_count = n, metadata = {}, data = data}, msg)
    end
    return {status = "ok", execution_count = n, user_expressions = {}, payload = json.array{}}
end

execute.read = kernel_read
return execute
