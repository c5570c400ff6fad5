-- weight_init.lua — PyTorch's torch.nn.init (module attn.nn.weight_init, the table nn.init): fill a
-- tensor in place with the numbers a layer starts from. Each computes its bounds in double precision with
-- the same operations as torch/nn/init.py (1.13) and draws from the same random stream as PyTorch, so
-- after the same torch.manual_seed the uniform fills are PyTorch's bit for bit; normal_ follows
-- torch.randn (bit for bit on fewer than 16 numbers, within 1e-6 on more, see ?torch.randn).
local errors = require("attn.errors") -- errors point at the user's line, not at this file
local check = require("attn.check")
local torch = require("attn.bind").torch
local init = {}

local function float_tensor(fn, t)
    check.tensor(fn, "tensor", t)
    if t.dtype ~= torch.float32 then
        errors.raisef("%s: expected a float tensor, got %s", fn, tostring(t.dtype))
    end
    return t
end

local function number(fn, what, v)
    if type(v) ~= "number" or v ~= v then
        errors.raisef("%s: %s must be a number, got %s", fn, what, check.describe(v))
    end
    return v
end

-- torch.nn.init._calculate_fan_in_and_fan_out: dim 2 is the inputs, dim 1 the outputs, times the
-- size of the rest (a convolution's kernel).
local function fans(fn, t)
    if t.ndim < 2 then
        errors.raisef("%s: fan in and fan out can not be computed for a tensor with fewer than 2 dimensions, "
                      .. "got %s", fn, check.describe(t))
    end
    local receptive = 1
    for i = 3, t.ndim do receptive = receptive * t.shape[i] end
    return t.shape[2] * receptive, t.shape[1] * receptive
end

local GAINS = {linear = 1, sigmoid = 1, conv1d = 1, conv2d = 1, conv3d = 1, tanh = 5.0 / 3, selu = 3.0 / 4}

--- nn.init.calculate_gain(nonlinearity [, param]) — the gain PyTorch recommends for an activation.
function init.calculate_gain(nonlinearity, param)
    if GAINS[nonlinearity] then return GAINS[nonlinearity] end
    if nonlinearity == "relu" then return math.sqrt(2.0) end
    if nonlinearity == "leaky_relu" then
        local slope = param == nil and 0.01 or number("calculate_gain", "param", param)
        return math.sqrt(2.0 / (1 + slope ^ 2))
    end
    errors.raisef("calculate_gain: unsupported nonlinearity %s (linear, sigmoid, tanh, relu, leaky_relu, selu)",
                  check.describe(nonlinearity))
end

--- nn.init.uniform_(tensor [, a = 0 [, b = 1]])
function init.uniform_(t, a, b)
    float_tensor("uniform_", t)
    return t:uniform_(a == nil and 0 or number("uniform_", "a", a), b == nil and 1 or number("uniform_", "b", b))
end

--- nn.init.normal_(tensor [, mean = 0 [, std = 1]])
function init.normal_(t, mean, std)
    float_tensor("normal_", t)
    return t:normal_(mean == nil and 0 or number("normal_", "mean", mean),
                     std == nil and 1 or number("normal_", "std", std))
end

--- nn.init.zeros_(tensor), nn.init.ones_(tensor)
function init.zeros_(t)
    float_tensor("zeros_", t)
    return t:zero_()
end

function init.ones_(t)
    float_tensor("ones_", t)
    return t:fill_(1)
end

--- nn.init.xavier_uniform_(tensor [, gain = 1]) — uniform in ±gain·√(6 / (fan_in + fan_out)).
function init.xavier_uniform_(t, gain)
    float_tensor("xavier_uniform_", t)
    gain = gain == nil and 1.0 or number("xavier_uniform_", "gain", gain)
    local fan_in, fan_out = fans("xavier_uniform_", t)
    local std = gain * math.sqrt(2.0 / (fan_in + fan_out))
    local a = math.sqrt(3.0) * std -- the bounds from the standard deviation, as init.py computes them
    return t:uniform_(-a, a)
end

--- nn.init.kaiming_uniform_(tensor [, a = 0 [, mode = "fan_in" [, nonlinearity = "leaky_relu"]]])
function init.kaiming_uniform_(t, ...)
    local usage = "kaiming_uniform_(tensor [, a = 0, mode = \"fan_in\", nonlinearity = \"leaky_relu\"])"
    local args = check.args("kaiming_uniform_", usage, {"a", "mode", "nonlinearity"},
                            {a = 0, mode = "fan_in", nonlinearity = "leaky_relu"}, ...)
    float_tensor("kaiming_uniform_", t)
    local fan_in, fan_out = fans("kaiming_uniform_", t)
    local fan
    if args.mode == "fan_in" then fan = fan_in
    elseif args.mode == "fan_out" then fan = fan_out
    else
        errors.raisef("kaiming_uniform_: mode must be \"fan_in\" or \"fan_out\", got %s", check.describe(args.mode))
    end
    local gain = init.calculate_gain(args.nonlinearity, number("kaiming_uniform_", "a", args.a))
    local bound = math.sqrt(3.0) * (gain / math.sqrt(fan))
    return t:uniform_(-bound, bound)
end

-- PyTorch's initialisers run under no_grad: filling a parameter in place is not a step of a graph
local without_grad = require("attn.autograd.grad_mode").without_grad
for name, f in pairs(init) do
    if type(f) == "function" then init[name] = without_grad(f) end
end

return init
