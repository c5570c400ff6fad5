-- docs_spec.lua — every public function of attn has help, and every help example runs and prints
-- what it says it prints. Run inside attn: ./attn /usr/bin/busted -o TAP tests/lua/docs_spec.lua
--
-- The docs live in src/lua/docs*.lua (module attn.docs). An example is Lua typed at the prompt; a
-- line starting with "-->" is what the code above it prints: its print output and, when its last
-- line is an expression, that expression's value, tab-separated as the REPL shows it.

local help = require("attn.help")
local methods = require("attn.bind").methods

-- Loads the docs afresh, recording every name registered, in order.
local registered = {}
do
    local modules = {"attn.docs"}
    for name in pairs(package.preload) do
        if name:match("^attn%.docs%.") then modules[#modules + 1] = name end
    end
    for _, m in ipairs(modules) do
        package.loaded[m] = nil
    end
    local register = help.register
    help.register = function(name, entry, value)
        registered[#registered + 1] = name
        return register(name, entry, value)
    end
    local ok, err = pcall(require, "attn.docs")
    help.register = register
    assert(ok, err)
end

local function sorted_keys(t, keep)
    local list = {}
    for k, v in pairs(t) do
        if type(k) == "string" and keep(k, v) then list[#list + 1] = k end
    end
    table.sort(list)
    return list
end

local function is_function(_, v) return type(v) == "function" end

-- A class of nn: a table with its own __index (nn.Module, nn.Linear, ...).
local function is_class(v)
    return type(v) == "table" and rawget(v, "__index") == v
end

-- The names every public function must be documented under.
local function public_names()
    local names = {}
    for _, k in ipairs(sorted_keys(torch, is_function)) do names[#names + 1] = "torch." .. k end
    for _, k in ipairs(sorted_keys(methods, is_function)) do names[#names + 1] = "Tensor:" .. k end
    for _, k in ipairs(sorted_keys(nn, function(_, v) return type(v) == "function" or is_class(v) end)) do
        names[#names + 1] = "nn." .. k
        if is_class(nn[k]) then
            -- the methods each class defines itself; metamethods are internals, __init is not
            local own = sorted_keys(nn[k], function(name, v)
                return type(v) == "function" and (name == "__init" or not name:find("^__"))
            end)
            for _, m in ipairs(own) do names[#names + 1] = "nn." .. k .. ":" .. m end
        end
    end
    for _, k in ipairs(sorted_keys(nn.functional, is_function)) do names[#names + 1] = "nn.functional." .. k end
    names[#names + 1] = "attention"
    for _, k in ipairs(sorted_keys(attention, is_function)) do names[#names + 1] = "attention." .. k end
    names[#names + 1] = "help"
    names[#names + 1] = "safetensors"
    names[#names + 1] = "tiktoken"
    names[#names + 1] = "gpt"
    for _, k in ipairs(sorted_keys(gpt, function(_, v) return type(v) == "function" or is_class(v) end)) do
        names[#names + 1] = "gpt." .. k
    end
    names[#names + 1] = "gpt.GPTModel.from_pretrained"
    for _, k in ipairs({"step", "run", "text"}) do names[#names + 1] = "Generator:" .. k end
    for _, k in ipairs(sorted_keys(tiktoken, is_function)) do names[#names + 1] = "tiktoken." .. k end
    for _, k in ipairs(sorted_keys(require("attn.tiktoken.bpe").Encoding_class, function(name, v)
        return type(v) == "function" and not name:find("^_")
    end)) do names[#names + 1] = "Encoding:" .. k end
    for _, t in ipairs({{"qwen3", qwen3, "Qwen3Model"}, {"llama", llama, "Llama3Model"}}) do
        names[#names + 1] = t[1]
        for _, k in ipairs(sorted_keys(t[2], function(_, v)
            return type(v) == "function" or is_class(v)
        end)) do names[#names + 1] = t[1] .. "." .. k end
        names[#names + 1] = t[1] .. "." .. t[3] .. ".from_pretrained"
    end
    names[#names + 1] = "tokenizers"
    names[#names + 1] = "tokenizers.Tokenizer"
    for _, k in ipairs(sorted_keys(tokenizers, is_function)) do names[#names + 1] = "tokenizers." .. k end
    for _, k in ipairs(sorted_keys(tokenizers.Tokenizer, function(name, v)
        return type(v) == "function" and not name:find("^_")
    end)) do -- from_file, from_str, from_pretrained are called with a dot, the others are methods
        names[#names + 1] = "tokenizers.Tokenizer" .. (k:find("^from_") and "." or ":") .. k
    end
    for _, k in ipairs(sorted_keys(safetensors, is_function)) do
        names[#names + 1] = "safetensors." .. k
    end
    for _, k in ipairs(sorted_keys(help, is_function)) do names[#names + 1] = "help." .. k end
    for _, p in ipairs({"shape", "T", "mT", "ndim", "dtype"}) do names[#names + 1] = "Tensor." .. p end
    for _, v in ipairs({"inf", "nan", "float32", "float", "bool"}) do names[#names + 1] = "torch." .. v end
    return names
end

-- ---- running examples ---------------------------------------------------------------------------

local INPUTS = {{0.43, 0.15, 0.89}, {0.55, 0.87, 0.66}, {0.57, 0.85, 0.64},
                {0.22, 0.58, 0.33}, {0.77, 0.25, 0.10}, {0.05, 0.80, 0.55}}

-- Splits an example into steps {code = lines, expect = lines or nil}.
local function steps_of(example)
    local steps, code = {}, {}
    local function flush(expect)
        steps[#steps + 1] = {code = code, expect = expect}
        code = {}
    end
    for line in (example .. "\n"):gmatch("(.-)\n") do
        local out = line:match("^%s*%-%->%s?(.*)$")
        if out then
            local last = steps[#steps]
            if #code == 0 and last and last.expect then
                last.expect[#last.expect + 1] = out
            else
                flush({out})
            end
        else
            code[#code + 1] = line
        end
    end
    if #code > 0 then flush(nil) end
    return steps
end

-- Compiles a step: its last line as an expression if it is one (as the REPL does), else all of it
-- as statements.
local function compile(lines, env)
    local body = table.concat(lines, "\n", 1, #lines - 1)
    local f = load(body .. "\nreturn " .. lines[#lines], "=example", "t", env)
    if f then return f end
    local err
    f, err = load(table.concat(lines, "\n"), "=example", "t", env)
    return f, err
end

-- Runs example in a fresh environment (with the book's `inputs`, print and help output captured,
-- the generator seeded with 0). Returns nil on success, else a message.
local function run_example(name, example)
    local out = {}
    local env = setmetatable({}, {__index = _G})
    env.inputs = torch.tensor(INPUTS)
    env.print = function(...)
        local parts = {}
        for i = 1, select("#", ...) do parts[i] = tostring((select(i, ...))) end
        out[#out + 1] = table.concat(parts, "\t") .. "\n"
    end
    local saved_write, saved_flavor, saved_print, saved_io_write = help.write, torch.get_bernoulli_flavor(),
        _G.print, io.write
    help.write = function(s) out[#out + 1] = s end
    _G.print = env.print
    io.write = function(...) -- what the library writes (attention.trace, attention.heatmap) comes here too
        for i = 1, select("#", ...) do out[#out + 1] = tostring((select(i, ...))) end
        return io.output()
    end
    torch.manual_seed(0)
    local problem
    for i, step in ipairs(steps_of(example)) do
        out = {}
        local f, err = compile(step.code, env)
        if not f then problem = "step " .. i .. " does not compile: " .. err break end
        local r = table.pack(pcall(f))
        if not r[1] then problem = "step " .. i .. " raised: " .. tostring(r[2]) break end
        if step.expect then
            if r.n > 1 then out[#out + 1] = require("attn.repl").results(table.unpack(r, 2, r.n)) end
            local got = table.concat(out):gsub("\n$", "")
            local want = table.concat(step.expect, "\n")
            if got ~= want then
                problem = string.format("step %d prints\n%s\nbut the example says\n%s", i, got, want)
                break
            end
        end
    end
    help.write = saved_write
    _G.print, io.write = saved_print, saved_io_write
    torch.set_bernoulli_flavor(saved_flavor)
    torch.set_printoptions{profile = "default"}
    torch.set_grad_enabled(true) -- an example may switch gradients off (?torch.set_grad_enabled)
    return problem and (name .. ": " .. problem)
end

-- ---- the specs ------------------------------------------------------------------------------------

describe("docs", function()
    it("registers a sig, doc and example for every public function, method, property and class", function()
        local missing = {}
        for _, name in ipairs(public_names()) do
            local entry = help.lookup(name)
            if not entry then
                missing[#missing + 1] = name .. " (no doc)"
            else
                for _, f in ipairs({"sig", "doc", "example"}) do
                    if type(entry[f]) ~= "string" or entry[f]:find("^%s*$") then
                        missing[#missing + 1] = name .. " (empty " .. f .. ")"
                    end
                end
            end
        end
        assert.are.same({}, missing)
    end)

    it("registers no doc for a name that does not exist", function()
        local stale = {}
        for _, name in ipairs(registered) do
            local exists
            if name:match("^Generator:") then
                exists = require("attn.gpt.step").Generator_class[name:sub(#"Generator:" + 1)] ~= nil
            elseif name:match("^Encoding:") then
                exists = require("attn.tiktoken.bpe").Encoding_class[name:sub(#"Encoding:" + 1)] ~= nil
            elseif name:match("^attention%.trace:") then -- a tracer's method (tr:backward): on a tracer's class
                exists = getmetatable(attention.trace{x = torch.zeros(2, 2)})[name:sub(#"attention.trace:" + 1)] ~= nil
            elseif name == "Tensor" or name:match("^Tensor%.") or name == "nn.Module.training" then
                exists = true -- properties and topics: not fields of any table
            elseif name:match("^Tensor:") then
                exists = methods[name:sub(#"Tensor:" + 1)] ~= nil
            else
                local v = _G
                for part in name:gmatch("[^%.:]+") do v = type(v) == "table" and rawget(v, part) or nil end
                exists = v ~= nil
            end
            if not exists then stale[#stale + 1] = name end
        end
        assert.are.same({}, stale)
    end)

    it("finds a function's doc from the value itself", function()
        local wrong = {}
        local function check(value, want)
            local _, name = help.lookup(value)
            if name ~= want then wrong[#wrong + 1] = want .. " found as " .. tostring(name) end
        end
        for _, k in ipairs(sorted_keys(torch, is_function)) do check(torch[k], "torch." .. k) end
        for _, k in ipairs(sorted_keys(methods, is_function)) do
            -- a method that is also torch.k is the same function, and shows the torch entry
            check(methods[k], methods[k] == torch[k] and "torch." .. k or "Tensor:" .. k)
        end
        check(nn.Linear, "nn.Linear")
        check(nn.Module, "nn.Module")
        check(nn.Module.parameters, "nn.Module:parameters")
        check(nn.Linear(3, 2).parameters, "nn.Module:parameters")
        check(nn.functional.softmax, "nn.functional.softmax")
        check(help, "help")
        check(torch.float32, "torch.float32")
        assert.are.same({}, wrong)
    end)

    it("lists every tensor method in help(\"Tensor\")", function()
        local text = help.text("Tensor")
        for _, k in ipairs(sorted_keys(methods, is_function)) do
            assert.matches(k, text, 1, true)
        end
    end)

    it("runs every example and prints what the example says", function()
        assert.is_true(#registered > 100)
        local failures = {}
        for _, name in ipairs(registered) do
            local entry = help.lookup(name)
            local problem = entry and entry.example and run_example(name, entry.example)
            if problem then failures[#failures + 1] = problem end
        end
        assert(#failures == 0, #failures .. " example(s) failed:\n\n" .. table.concat(failures, "\n\n"))
    end)

    it("shows a shared function under both names, each leading with the form asked for", function()
        -- Tensor:softmax and torch.softmax share a text; both names give it, each leading with its form
        assert.matches("^x:softmax%(dim%)", help.text("Tensor:softmax"))
        assert.matches("^torch%.softmax%(x, dim%)", help.text("torch.softmax"))
    end)
end)

describe("help", function()
    local saved_write, out
    before_each(function()
        saved_write, out = help.write, {}
        help.write = function(s) out[#out + 1] = s end
    end)
    after_each(function()
        help.write = saved_write
        _G.zz_docs_x = nil
    end)

    it("shows the signature, the doc and the example of torch.softmax", function()
        local entry = help.lookup("torch.softmax")
        local text = help.text(torch.softmax)
        assert.matches("torch.softmax(x, dim)", text, 1, true)
        assert.matches(entry.example:match("^[^\n]*"), text, 1, true)
        assert.matches("Example:", text, 1, true)
        assert.matches("dim=0 is 1 here", text, 1, true)
        help(torch.softmax)
        assert.are.equal(text .. "\n", table.concat(out))
    end)

    it("answers ?torch.softmax, help(\"Tensor:view\"), help(nn.Linear) and x:method names", function()
        assert.are.equal(help.text(torch.softmax), help.text("torch.softmax"))
        assert.matches("^x:view%(size%.%.%.%)", help.text("Tensor:view"))
        assert.matches("^nn%.Linear%(in_features, out_features", help.text(nn.Linear))
        assert.matches("^nn%.Module", help.text(nn.Module))
        _G.zz_docs_x = torch.ones(2, 2)
        assert.matches("^x:view%(size%.%.%.%)", help.text("zz_docs_x:view"))
        assert.matches("^a:matmul%(b%)", help.text("zz_docs_x:matmul")) -- x is a tensor: its method
        assert.matches("^x:view%(size%.%.%.%)", help.text("not_defined_yet:view"))
        assert.matches("^x:view", help.text(_G.zz_docs_x.view))
        assert.matches("^x%.shape", help.text("Tensor.shape"))
        assert.matches("^m:parameters%(%)", help.text(nn.Linear(3, 2).parameters))
        assert.matches("^help%(%[x%]%)", help.text(help))
        assert.matches("^torch%.inf", help.text("torch.inf"))
    end)

    it("lists the documented members of torch and nn", function()
        local t = help.text(torch)
        assert.matches("torch.softmax", t, 1, true)
        assert.matches("torch.manual_seed", t, 1, true)
        local n = help.text(nn)
        assert.matches("nn.Linear", n, 1, true)
        assert.matches("nn.functional.softmax", help.text(nn.functional), 1, true)
    end)

    it("says there is no help for an unknown name, without an error", function()
        local ok, text = pcall(help.text, "no.such.thing")
        assert.is_true(ok)
        assert.are.equal("no help for no.such.thing; try help() for a tour", text)
        assert.has_no.errors(function() help("no.such.thing") end)
        assert.matches("^no help for no%.such%.thing", table.concat(out))
    end)

    it("prints the tour for help()", function()
        help()
        local text = table.concat(out)
        assert.matches("^attn", text)
        assert.matches("?torch.softmax", text, 1, true)
        assert.are.equal(help.text() .. "\n", text)
    end)
end)
