-- warnings.lua — PyTorch's warnings (module attn.warnings): where PyTorch calls Python's warnings.warn,
-- attn prints the same message, translated, as Python prints it by default — once for each place in the
-- user's code that causes it (the "default" action: a second call from the same line with the same
-- message is silent), on standard error, naming the user's file and line:
--
--   notes.lua:12: UserWarning: Using a target size (torch.Size([3, 1])) that is different to ...
--
--   warnings.warn(fmt, ...)    a UserWarning: fmt translated (i18n.trf; scripts/po.sh extracts it), at the
--                              line attn.errors would name for an error raised here
--   warnings.set_sink(f)       where the lines go: f(text), or nil for standard error. attn --verify sends
--                              them to its report (verify/run.lua): a note's output blocks hold what its
--                              code prints, as a PyTorch transcript holds stdout, never the warnings
--
-- In the Jupyter kernel standard error is the cell's stderr stream (src/cli/kernel_capture.c), where
-- ipykernel shows PyTorch's. Each kernel cell and each REPL line is a chunk of its own, so the same
-- line number in another cell warns again, as IPython's cells do.
local C = require("attn.bind").errors -- the rule of which frame is the user's: src/bind/args.c
local i18n = require("attn.i18n")

local warnings = {}
local shown = {}  -- "where .. message" -> true: the call sites that have warned
local stderr = io.stderr -- attn's own, kept before any note's environment can replace io
local stdout = io.stdout
local sink = nil

function warnings.set_sink(f) sink = f end

function warnings.warn(fmt, ...)
    local where = C.where()
    local message = i18n.trf(fmt, ...)
    -- no position (a C caller, or a tail call such as the REPL's `return f(x)`): every call is shown, as
    -- IPython shows a warning again in each new cell
    local key = where .. message
    if where ~= "" and shown[key] then return end
    shown[key] = true
    local text = where .. "UserWarning: " .. message .. "\n"
    if sink then
        sink(text)
    else
        -- what was printed before the warning comes before it, wherever both streams go (a file, a pipe: the
        -- C library holds standard output back in blocks, standard error not at all)
        stdout:flush()
        stderr:write(text)
        stderr:flush()
    end
end

return warnings
