-- Bad input: every misuse is a Lua error that names the function and says what was wrong (the
-- argument, the shapes or the value), and attn keeps working afterwards. Nothing here may crash.
local torch, nn = torch, nn

-- The four messages the issue spells out, matched exactly.
local EXACT = {
    {"torch.ones(6, 3):matmul(torch.ones(2, 3))", "matmul: cannot multiply [6, 3] by [2, 3] (3 ≠ 2)"},
    {"torch.rand(2, -1)", "rand: size 2 must be non-negative, got -1"},
    {"torch.tensor{{1, 2, 3}, {4, 5, 6}, {7, 8}}", "tensor: row 3 has 2 elements, expected 3"},
    {"torch.zeros(1e6, 1e6)", "zeros: 1e12 elements (4 TB) is more than this machine can hold"},
}

-- Each case: code, then plain substrings the message must contain (the first is the function name).
local CASES = {
    -- creation and sizes
    {"torch.zeros(1e10, 1e10, 1e10)", "zeros:", "is more than this machine can hold"},
    {"torch.zeros(2.5)", "zeros:", "size 1 must be an integer, got 2.5"},
    {"torch.ones(2, 'a')", "ones:", 'size 2 must be an integer, got string "a"'},
    {"torch.zeros(0/0)", "zeros:", "size 1 must be an integer"},
    {"torch.zeros(1, 1, 1, 1, 1, 1, 1, 1, 1)", "zeros:", "at most 8"},
    {"torch.empty(-3)", "empty:", "size 1 must be non-negative, got -3"},
    {"torch.full(3, 1)", "full:", "size must be a table"},
    {"torch.full({2, 2}, 'x')", "full:", "fill_value must be a number"},
    {"torch.eye(-2)", "eye:", "must be non-negative, got -2"},
    {"torch.arange(0, 5, 0)", "arange:", "step must be nonzero"},
    {"torch.arange(5, 0, 1)", "arange:", "inconsistent with step sign"},
    {"torch.arange()", "arange:", "expected arange(end)"},
    {"torch.tensor('abc')", "tensor:", "data must be a number"},
    {"torch.tensor{{1, 2}, {3, 'x'}}", "tensor:", "element [2][2] is a string, expected a number"},
    {"torch.tensor{{1, 2}, 3}", "tensor:", "row 2 is a number, expected a list of 2"},
    {"torch.tensor{{{{{{{{{1}}}}}}}}}", "tensor:", "at most 8 dimensions"},
    {"torch.tensor{torch.ones(2), torch.ones(2)}", "tensor:", "element 1 is a tensor of 2 elements; use torch.stack"},
    {"torch.zeros(2, 2, {dtype = 'int64'})", "zeros:", "dtype must be torch.float32, torch.int64 or torch.bool"},
    -- views and indexing
    {"torch.ones(2, 3):view(4)", "view:", "shape [4] is invalid for input of size 6"},
    {"torch.ones(2, 3).T:view(6)", "view:", "call :contiguous() first, or use :reshape()"},
    {"torch.ones(2, 3):view(-1, -1)", "view:", "only one dimension can be -1"},
    {"torch.ones(2, 3):reshape(4)", "reshape:", "shape [4] is invalid for input of size 6"},
    {"torch.ones(2, 3):transpose(1, 3)", "transpose:", "dim 3 is out of range for a 2-D tensor"},
    {"torch.ones(2, 3):transpose(1)", "transpose:", "expected two dims"},
    {"torch.ones(2, 3):permute(1)", "permute:", "expected 2 dims for a 2-D tensor, got 1"},
    {"torch.ones(2, 3):permute(1, 1)", "permute:", "dim 1 appears twice"},
    {"torch.ones(2, 3):unsqueeze(5)", "unsqueeze:", "dim 5 is out of range"},
    {"torch.ones(3):expand(2, 4)", "expand:", "cannot expand [3]"},
    {"torch.ones(2, 3):narrow(2, 3, 2)", "narrow:", "out of range for dim 2 of size 3"},
    {"torch.ones(2, 3):select(1, 4)", "select:", "index 4 is out of range for dim 1 of size 2"},
    {"torch.ones(3)[0]", "index:", "index 0 is out of range: attn counts from 1"},
    {"torch.ones(3)[5]", "index:", "index 5 is out of range for dim 1 of size 3"},
    {"torch.ones(3)[-4]", "index:", "index -4 is out of range"},
    {"torch.ones(2, 3)[{1, 'x'}]", "index:", "entry 2 must be an index"},
    {"torch.ones(2, 3)[{1, {3, 2}}]", "index:", "range {3, 2} is empty"},
    {"torch.tensor(1)[1]", "index:", "a 0-d tensor cannot be indexed"},
    {"torch.ones(2).foo", "tensor has no method or field 'foo'"},
    {"local t = torch.ones(2); t.x = 1", "assign:", "cannot set field 'x'"},
    {"local t = torch.zeros(2, 3); t[1] = torch.ones(4)", "copy:", "cannot assign a [4] tensor to a [3] slot"},
    {"local t = torch.zeros(2); t[1] = 'x'", "assign:", "value must be a number"},
    {"torch.ones(2, 3):size(3)", "size:", "dim 3 is out of range"},
    {"#torch.tensor(1)", "len:", "a 0-d tensor has no length"},
    {"torch.ones(2):item()", "item:", "a tensor with 2 elements"},
    -- arithmetic and comparisons
    {"torch.ones(2, 3) + torch.ones(4)", "add:", "shapes [2, 3] and [4] cannot be broadcast"},
    {"torch.ones(2) + 'a'", "add:", "expected tensors or numbers"},
    {"torch.ones(2) * {}", "mul:", "expected tensors or numbers"},
    {"torch.ones(2) < torch.ones(2)", "compare:", "use a:lt(b)"},
    {"torch.ones(2) // 2", "//:", "use / for division"},
    {"torch.ones(2):pow('x')", "pow:", "expected tensors or numbers"},
    {"torch.where(1, torch.ones(2), torch.zeros(2))", "where:", "condition must be a tensor"},
    {"torch.ones(2):add_(torch.ones(2, 2))", "add_:", "in-place operations cannot change the shape"},
    -- reductions
    {"torch.ones(2):sum(3)", "sum:", "dim 3 is out of range for a 1-D tensor"},
    {"torch.ones(2):sum(1, 'yes')", "sum:", "keepdim must be true or false"},
    {"torch.zeros(0):max()", "max:", "cannot reduce an empty dimension"},
    {"torch.ones(2, 3):mean(0)", "mean:", "dim 0 is not valid: attn counts dims from 1"},
    -- products and the attention stages
    {"torch.dot(torch.ones(2, 2), torch.ones(2))", "dot:", "expected two 1-D tensors, got [2, 2] and [2]"},
    {"torch.dot(torch.ones(3), torch.ones(2))", "dot:", "[3] and [2] (3 ≠ 2)"},
    {"torch.mm(torch.ones(2, 2, 2), torch.ones(2, 2))", "mm:", "expected two matrices (2-D), got [2, 2, 2]"},
    {"torch.tensor(1):matmul(torch.ones(2))", "matmul:", "need at least 1 dimension"},
    {"torch.ones(2, 3, 4):matmul(torch.ones(3, 4, 5))", "matmul:", "batch dimensions of [2, 3, 4] and [3, 4, 5]"},
    {"torch.ones(2, 3):matmul('x')", "matmul:", "other must be a tensor"},
    {"torch.ones(2, 3):masked_fill(torch.ones(2, 3), 0)", "masked_fill:", "mask must be a bool tensor"},
    {"torch.ones(2, 3):masked_fill(torch.ones(4):bool(), 0)", "masked_fill:", "[2, 3] and [4] cannot be broadcast"},
    {"torch.ones(2, 3):masked_fill_(torch.ones(2, 3, 3):bool(), 0)", "masked_fill_:", "does not broadcast"},
    {"torch.ones(2, 3):masked_fill(torch.ones(2, 3):bool(), 'x')", "masked_fill:", "value must be a number"},
    {"torch.tril(torch.ones(3))", "tril:", "at least 2 dimensions"},
    {"torch.triu(torch.ones(3, 3), 1.5)", "triu:", "diagonal must be an integer, got 1.5"},
    {"torch.softmax(torch.ones(3), 0)", "softmax:", "dim 0 is not valid"},
    {"torch.softmax(torch.ones(3))", "softmax:", "dim is required"},
    {"torch.softmax(5, 1)", "softmax:", "input must be a tensor, got 5"},
    {"torch.softmax(torch.ones(2, 3), 3)", "softmax:", "dim 3 is out of range for a 2-D tensor"},
    -- joining
    {"torch.stack({torch.ones(2), torch.ones(3)})", "stack:", "tensor 2 has shape [3] but tensor 1 has shape [2]"},
    {"torch.stack(torch.ones(2))", "stack:", "expected a list of tensors"},
    {"torch.stack({torch.ones(2), 5})", "stack:", "element 2 of the list is 5"},
    {"torch.stack({})", "stack:", "non-empty list"},
    {"torch.cat({torch.ones(2, 3), torch.ones(2, 4)}, 1)", "cat:", "all dims but the joined one must match"},
    {"torch.cat({torch.ones(2)}, 3)", "cat:", "dim 3 is out of range"},
    -- random numbers and nn
    {"torch.manual_seed('abc')", "manual_seed:", 'seed must be a non-negative integer, got string "abc"'},
    {"torch.manual_seed(-1)", "manual_seed:", "got -1"},
    {"torch.manual_seed(1.5)", "manual_seed:", "seed must be an integer, got 1.5"},
    {"torch.set_bernoulli_flavor('intel')", "set_bernoulli_flavor:", '"mkl"', '"default"'},
    {"torch.set_rng_state('garbage')", "set_rng_state:"},
    {"torch.randint(5, 5, {2})", "randint:", "high must be greater than low"},
    {"torch.randint(5, 2)", "randint:", "size must be a table"},
    {"torch.empty(3):uniform_(1, 0)", "uniform_:", "expects from <= to"},
    {"torch.empty(3):normal_(0, -1)", "normal_:", "std >= 0"},
    {"torch.empty(3):bernoulli_(2)", "bernoulli_:", "p must be between 0 and 1, got 2"},
    {"torch.dropout(torch.ones(2), -0.1, true)", "dropout:", "p must be between 0 and 1"},
    {"nn.Linear(0, 2)", "Linear:", "in_features must be a positive integer, got 0"},
    {"nn.Linear(3, 2.5)", "Linear:", "out_features must be a positive integer, got 2.5"},
    {"nn.Linear(3, 2, true)", "Linear:", "options table such as {bias = false}"},
    {"nn.Linear(3, 2)(torch.ones(6, 4))", "Linear:", "last dim is in_features = 3, got shape [6, 4]"},
    {"nn.Linear(3, 2)('x')", "Linear:", "input must be a tensor"},
    {"nn.Dropout(1.5)", "Dropout:", "p must be a probability between 0 and 1, got 1.5"},
    {"nn.Dropout('half')", "Dropout:", "got half"},
    {"nn.Module:extend('NoForward')()(torch.ones(2))", "NoForward:", "forward is not defined"},
    {"nn.Module:extend()", "extend:", "needs a name"},
    {"nn.Parameter(5)", "Parameter:", "data must be a tensor"},
    {"nn.ModuleList{5}", "ModuleList:", "element 1 is not a module"},
    {"torch.set_printoptions{precision = -1}", "set_printoptions:", "precision must be between"},
}

-- Runs a line as the REPL would (as an expression if it is one). Errors raised by attn carry the
-- position of the Lua line that called it ("test:1: "), as Lua's own library errors do; the REPL
-- drops that prefix for one-line chunks, and so does this helper.
local function run(code)
    local f = load("return " .. code, "=test", "t") or assert(load(code, "=test", "t"))
    local ok, err = pcall(f)
    if not ok and type(err) == "string" then
        err = err:gsub("^test:%d+: ", "")
    end
    return ok, err
end

describe("bad input raises a clear Lua error", function()
    for _, case in ipairs(EXACT) do
        it(case[1], function()
            local ok, err = run(case[1])
            assert.is_false(ok)
            assert.are.equal(case[2], err)
        end)
    end
    for _, case in ipairs(CASES) do
        it(case[1], function()
            local ok, err = run(case[1])
            assert.is_false(ok, "no error from: " .. case[1])
            assert.are.equal("string", type(err))
            for k = 2, #case do
                if not err:find(case[k], 1, true) then
                    error(string.format("message %q lacks %q", err, case[k]))
                end
            end
            assert.are.equal(1, err:find(case[2], 1, true), "the message should start with " .. case[2])
        end)
    end
    it("leaves attn working (and still computing the book's numbers)", function()
        local x = torch.tensor{{0.43, 0.15, 0.89}, {0.55, 0.87, 0.66}}
        assert.are.equal("tensor([0.9544, 1.4950])", tostring(x:matmul(torch.tensor{0.55, 0.87, 0.66})))
    end)
    it("has at least 40 cases", function()
        assert.is_true(#EXACT + #CASES >= 40)
    end)
end)

describe("NaN and infinities are values, not errors", function()
    it("softmax of a row of -inf is nan, as in PyTorch", function()
        assert.are.equal("tensor([nan, nan])", tostring(torch.softmax(torch.tensor{-torch.inf, -torch.inf}, 1)))
    end)
    it("nan propagates through max", function()
        assert.are.equal("tensor(nan)", tostring(torch.tensor{1, 0 / 0, 3}:max()))
    end)
    it("a huge but valid request fails cleanly, and the next one works", function()
        assert.is_false(pcall(torch.ones, 4e9, 4e9))
        assert.are.equal(4, torch.ones(2, 2):numel())
    end)
    -- Linux overcommits: a malloc that succeeds can still get attn killed when the pages are touched.
    -- A tensor bigger than half the memory available now (or left under a cgroup or ulimit -v limit, if
    -- tighter: tests/robust/test_memory_limit.sh) is refused up front instead. #host_memory: it reads the
    -- host's /proc/meminfo, which a WebAssembly attn cannot hold (tests/web/test_lua.sh leaves it out).
    it("a tensor that fits the machine but not the free memory is refused before touching it #host_memory", function()
        local f = assert(io.open("/proc/meminfo"))
        local avail_kb = tonumber(f:read("a"):match("MemAvailable:%s*(%d+)"))
        f:close()
        local rows = math.floor(avail_kb * 1024 * 0.75 / 4 / 1024)
        local ok, msg = pcall(torch.zeros, rows, 1024)
        assert.is_false(ok)
        assert.matches("zeros: .* is more than half the ", msg)
        ok, msg = pcall(nn.Linear, 2 ^ 20, 2 ^ 18)
        assert.is_false(ok)
        assert.matches("^Linear: weight: .* is more than", msg)
    end)
end)
