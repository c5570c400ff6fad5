-- init.lua — attn as a Jupyter kernel (module attn.kernel; src/cli/kernel.c reads the sockets and calls
-- it): one function per request type, each returning the content of its reply. Around every request
-- the kernel says "busy" and then "idle" on iopub, as the protocol (5.3) asks.
--
--   kernel.start(connection_file) -> display   once, before the first request: io.read and os.exit for
--                                   cells; returns display(x, ...), which src/cli/kernel.c makes a global
--   kernel.handle(msg) -> "stop" when the kernel is to end (a shutdown_request), "abort" when a cell
--       failed and the cells queued behind it are to be dropped (stop_on_error), else nil
--   kernel.abort(msg) -> as handle, for a request queued behind a failed cell: an execute_request is
--       answered "aborted" without running (as ipykernel does after an error), others handled
--       msg: {channel = "shell" | "control", ids =, header =, parent_header =, metadata =, content =}
--
-- Requests handled: kernel_info, execute (execute.lua), complete, inspect, is_complete
-- (introspect.lua), history (always empty: the kernel keeps none), comm_info (no comms), shutdown
-- (with restart or not: the client starts the new process), interrupt (signal mode is the one
-- advertised: this reply only says the request was seen). Other types are logged and get no reply.
local wire = require("attn.kernel.wire")
local json = require("attn.json")
local execute = require("attn.kernel.execute")
local introspect = require("attn.kernel.introspect")
local output = require("attn.kernel.output")
local display = require("attn.kernel.display")
local repl = require("attn.repl")
local tr = require("attn.i18n").tr

local kernel = {}

local function kernel_info()
    return {
        status = "ok", protocol_version = "5.3", implementation = "attn", implementation_version = wire.version,
        language_info = {name = "lua", version = _VERSION:match("[%d.]+"), mimetype = "text/x-lua",
                         file_extension = ".lua", pygments_lexer = "lua", codemirror_mode = "lua"},
        banner = repl.banner(wire.version, _VERSION),
        help_links = json.array{},
    }
end

local HANDLERS = {
    kernel_info_request = kernel_info,
    execute_request = execute.run,
    complete_request = introspect.complete,
    inspect_request = introspect.inspect,
    is_complete_request = introspect.is_complete,
    history_request = function() return {status = "ok", history = json.array{}} end,
    comm_info_request = function() return {status = "ok", comms = {}} end,
    interrupt_request = function() return {status = "ok"} end,
}

-- os.exit in a cell would end the kernel under the notebook (which then says only "the kernel died"):
-- it stops the cell with an error instead; the Kernel menu's Restart is the way to a fresh state.
local function no_exit()
    error(tr("os.exit does not end a Jupyter kernel: it stops this cell (Kernel > Restart starts afresh)"), 2)
end

function kernel.start()
    local show = display.install()
    io.read = execute.read
    os.exit = no_exit
    wire.send("iopub", "status", {execution_state = "starting"})
    return show
end

function kernel.handle(msg)
    local t = type(msg.header) == "table" and msg.header.msg_type
    if type(t) ~= "string" then
        wire.log("a message without a msg_type: ignored")
        return nil
    end
    wire.send("iopub", "status", {execution_state = "busy"}, msg)
    local stop = nil
    if t == "shutdown_request" then
        wire.send(msg.channel, "shutdown_reply", {status = "ok", restart = msg.content.restart == true}, msg)
        stop = "stop"
    elseif HANDLERS[t] then
        local ok, content = pcall(HANDLERS[t], msg)
        if not ok then   -- a request with missing or wrong fields: an error reply, the kernel goes on
            wire.log(t .. ": " .. tostring(content))
            output.finish()
            content = {status = "error", ename = "error", evalue = output.clean(tostring(content)),
                       traceback = json.array{}}
        end
        if t == "execute_request" and content.status == "error" and msg.content.stop_on_error ~= false
            and msg.content.silent ~= true then
            -- the requests queued behind the failed cell, taken off the socket before its reply goes
            -- out: a request the client sends after reading the error is not one of them
            wire.hold_queued()
            stop = "abort"
        end
        wire.send(msg.channel, (t:gsub("_request$", "_reply")), content, msg)
    else
        wire.log("unknown message type " .. t .. ": ignored")
    end
    wire.send("iopub", "status", {execution_state = "idle"}, msg)
    return stop
end

function kernel.abort(msg)
    if type(msg.header) ~= "table" or msg.header.msg_type ~= "execute_request" then return kernel.handle(msg) end
    wire.send("iopub", "status", {execution_state = "busy"}, msg)
    wire.send("shell", "execute_reply", {status = "aborted", execution_count = execute.count()}, msg)
    wire.send("iopub", "status", {execution_state = "idle"}, msg)
    return nil
end

return kernel
