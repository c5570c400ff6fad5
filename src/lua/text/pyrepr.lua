-- pyrepr.lua — numbers as Python writes them, for the reprs of modules that must read as PyTorch's
-- (module attn.pyrepr): Dropout(p=0.5, inplace=False), LayerNorm((4,), eps=1e-05, ...).
--
--   pyrepr.float(x)    Python's repr(float): the shortest text that reads back the same, with ".0" on
--                      whole numbers (0.5 -> "0.5", 0 -> "0.0", 0.1 -> "0.1", 1e-05 -> "1e-05")
local pyrepr = {}

function pyrepr.float(x)
    local s
    for digits = 1, 17 do
        s = string.format("%." .. digits .. "g", x)
        if tonumber(s) == x then
            break
        end
    end
    if not s:find("[%.eni]") then
        s = s .. ".0"
    end
    return s
end

return pyrepr
