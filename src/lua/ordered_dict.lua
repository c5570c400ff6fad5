-- ordered_dict.lua — Python's OrderedDict for what PyTorch returns as one (module attn.ordered_dict):
-- m:state_dict(), and the tables torch.load rebuilds. A plain Lua table whose pairs() goes through the
-- keys in the order they were added, as Python's iteration does:
--   local d = ordered_dict.new()      d["a.weight"] = w; d.b = 2
--   for k, v in pairs(d) do ... end   "a.weight" first, then "b"
--   ordered_dict.keys(d)              {"a.weight", "b"}
-- Reading and writing keys is plain indexing; assigning nil removes a key.
local ordered_dict = {}

local KEYS = setmetatable({}, {__mode = "k"}) -- dict -> its keys in the order they were added

local MT = {__name = "OrderedDict"}

-- A new key (an existing one's assignment does not come here): appended to the order. A key assigned
-- nil and then again goes to the end, as del d[k]; d[k] = v does in Python.
function MT.__newindex(d, k, v)
    if v == nil then return end
    local keys = KEYS[d]
    for i = #keys, 1, -1 do
        if keys[i] == k then table.remove(keys, i) end
    end
    keys[#keys + 1] = k
    rawset(d, k, v)
end

function MT.__pairs(d)
    local keys, i = KEYS[d], 0
    return function()
        while true do
            i = i + 1
            local k = keys[i]
            if k == nil then return nil end
            local v = rawget(d, k)
            if v ~= nil then return k, v end
        end
    end, d, nil
end

local function repr(v)
    if type(v) == "string" then return "'" .. v .. "'" end
    return tostring(v)
end

-- OrderedDict([('weight', tensor(...)), ('bias', tensor(...))]), as Python prints one.
function MT.__tostring(d)
    local items = {}
    for k, v in pairs(d) do
        items[#items + 1] = "(" .. repr(k) .. ", " .. repr(v) .. ")"
    end
    if #items == 0 then return "OrderedDict()" end
    return "OrderedDict([" .. table.concat(items, ", ") .. "])"
end

function ordered_dict.new()
    local d = setmetatable({}, MT)
    KEYS[d] = {}
    return d
end

function ordered_dict.is(d)
    return type(d) == "table" and getmetatable(d) == MT
end

-- The keys of d in order (of any table: a plain one's keys in pairs' order).
function ordered_dict.keys(d)
    local out = {}
    for k in pairs(d) do out[#out + 1] = k end
    return out
end

return ordered_dict
