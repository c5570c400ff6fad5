-- options.lua — the keyword options of attn's Lua library, checked (module attn.options).
--
-- Python's keyword arguments become a trailing table in attn: nn.Linear(3, 2, {bias = false}). A key
-- the function does not know would be ignored without a word, and {Bias = false} would build a layer
-- with a bias: so every options table the library reads passes through options.check, which knows the
-- rule that src/bind/args.c's lt_check_options applies to the C bindings (the same messages):
--
--   options.check(fn, opts, known)     opts (a table, or nil) has only keys listed in known (a list of
--                                      names); otherwise "fn: unknown option 'Bias' (did you mean
--                                      'bias'?)" at the user's line, or the list of the options. PyTorch's
--                                      aliases count: axis where dim is known, keepdims where keepdim is.
--                                      Returns opts (or {} for nil).
--   options.near(key, names)           the name of names nearest to key when it is a near miss, or nil
local errors = require("attn.errors")
local trf = require("attn.i18n").trf
local options = {}

local ALIASES = {dim = "axis", keepdim = "keepdims"} -- PyTorch's python_arg_parser.cpp

-- Edit distance of a and b (insertions, deletions, substitutions), letters compared without case.
local function distance(a, b)
    a, b = a:lower(), b:lower()
    if #a > 63 or #b > 63 then return 99 end
    local row = {}
    for j = 0, #b do row[j] = j end
    for i = 1, #a do
        local diag = row[0]
        row[0] = i
        for j = 1, #b do
            local best = diag + (a:byte(i) == b:byte(j) and 0 or 1)
            best = math.min(best, row[j] + 1, row[j - 1] + 1)
            diag, row[j] = row[j], best
        end
    end
    return row[#b]
end

-- At most 1 edit for a key of up to 4 letters, 2 for a longer one (Bias -> bias, dims -> dim), or one
-- the start of the other, of 3 letters or more (diag -> diagonal, training -> train).
function options.near(key, names)
    local best, best_d = nil, 99
    for _, name in ipairs(names) do
        local d = distance(key, name)
        local short, long = key:lower(), name:lower()
        if #short > #long then short, long = long, short end
        if #short >= 3 and long:sub(1, #short) == short then d = 0 end
        if d < best_d then best, best_d = name, d end
    end
    if best and best_d <= (#key <= 4 and 1 or 2) then return best end
    return nil
end

function options.check(fn, opts, known)
    if opts == nil then return {} end
    local names, is_known = {}, {}
    for _, k in ipairs(known) do
        names[#names + 1], is_known[k] = k, true
        if ALIASES[k] then names[#names + 1], is_known[ALIASES[k]] = ALIASES[k], true end
    end
    for key in pairs(opts) do
        if type(key) ~= "string" then
            errors.raise(trf("%s: options are given by name, as {dim = 1}; got the key %s", fn, tostring(key)))
        elseif not is_known[key] then
            local near = options.near(key, names)
            if near then
                errors.raise(trf("%s: unknown option '%s' (did you mean '%s'?)", fn, key, near))
            elseif #known == 0 then
                errors.raise(trf("%s: unknown option '%s' (%s takes no options)", fn, key, fn))
            end
            errors.raise(trf("%s: unknown option '%s' (the options are: %s)", fn, key, table.concat(known, ", ")))
        end
    end
    for k, alias in pairs(ALIASES) do
        if is_known[k] and opts[k] ~= nil and opts[alias] ~= nil then
            errors.raise(trf("%s: give %s or its alias %s, not both", fn, k, alias))
        end
    end
    return opts
end

return options
