-- transformer.lua — the Transformer's layers as fields of nn, written the way Python Deep Learning
-- (ch. 7, after the Annotated Transformer) writes them in PyTorch:
--
--   nn.LayerNorm, nn.Embedding, nn.ReLU/GELU/SiLU              PyTorch's own layers
--   nn.positional_encoding, nn.PositionalEncoding              the static (sinusoidal) encoding
--   nn.Embeddings                                              nn.Embedding times sqrt(d_model)
--   nn.clones, nn.subsequent_mask                              the book's helpers
--   nn.PositionwiseFFN, nn.SublayerConnection,
--   nn.EncoderBlock, nn.Encoder, nn.DecoderBlock, nn.Decoder   the book's classes
--   nn.BERTEmbedding                                           token + segment + position embeddings
--
-- Ids are 1-based: token id 1 is the first row of an embedding (PyTorch's id 0). Masks follow the book's
-- attention(): a 0 (false) in the mask hides a position, 1 (true) lets it be seen. The blocks take their
-- attention module as an argument (EncoderBlock(size, self_attn, ffn, dropout)), as the book does, and
-- create their children in the book's order, so a seeded model gets PyTorch's numbers. The book's printed
-- forward methods lost their lambdas ("x = self.sublayers0)"); they are the Annotated Transformer's:
-- sublayers[0](x, lambda x: self.self_attn(x, x, x, mask)), then sublayers[1](x, self.ffn). The book calls
-- its encoder post-LN, but its SublayerConnection is pre-LN: x + dropout(sublayer(norm(x))).
local torch = require("attn.bind").torch
local C = require("attn.bind").functional -- gelu and silu from src/bind/layers.c
local Module = require("attn.nn.module").Module
local Parameter, deepcopy = require("attn.nn.module").Parameter, require("attn.nn.module").deepcopy
local layers = require("attn.nn.layers")
local Linear, Dropout, ModuleList = layers.Linear, layers.Dropout, layers.ModuleList
local errors = require("attn.errors") -- errors point at the user's line, not at this file
local check = require("attn.check")
local py_float = require("attn.text.pyrepr").float
local raise, raisef = errors.raise, errors.raisef
local transformer = {} -- this file's part of the table nn (nn/init.lua)

-- dropout of the book's classes: 0.1 when not given, as the book's defaults.
local function dropout_or_default(fn, p)
    if p == nil then
        return 0.1
    end
    return check.probability(fn, "dropout", p)
end

-- ---- LayerNorm -----------------------------------------------------------------------------------

local LayerNorm = Module:extend("LayerNorm")

--- LayerNorm(normalized_shape [, {eps = 1e-5, elementwise_affine = true, bias = true}])
function LayerNorm:__init(normalized_shape, opts)
    opts = check.options("LayerNorm", opts, "{eps = 1e-6}")
    local shape = type(normalized_shape) == "number" and {normalized_shape} or normalized_shape
    if type(shape) ~= "table" or #shape == 0 then
        raisef("LayerNorm: normalized_shape must be a size or a list of sizes, e.g. LayerNorm(4), got %s",
            tostring(normalized_shape))
    end
    local sizes = {}
    for i = 1, #shape do
        sizes[i] = check.size("LayerNorm", "normalized_shape", shape[i])
    end
    local eps = opts.eps == nil and 1e-5 or opts.eps
    if type(eps) ~= "number" or not (eps >= 0 and eps < math.huge) then
        raisef("LayerNorm: eps must be a finite number >= 0, got %s", tostring(eps))
    end
    self.normalized_shape = sizes
    self.eps = eps
    self.elementwise_affine = opts.elementwise_affine ~= false
    if self.elementwise_affine then
        self.weight = Parameter(torch.ones(sizes))
        self.bias = opts.bias ~= false and Parameter(torch.zeros(sizes)) or false
    else
        self.weight, self.bias = false, false
    end
end

function LayerNorm:forward(x)
    check.tensor("LayerNorm", "input", x)
    local n = #self.normalized_shape
    local ok = x.ndim >= n
    for i = 1, n do
        ok = ok and x.shape[x.ndim - n + i] == self.normalized_shape[i]
    end
    if not ok then
        if n == 1 then
            raisef("LayerNorm: expected an input whose last dim is %s, got shape %s",
                   table.concat(self.normalized_shape, ", "), check.shape(x))
        end
        raisef("LayerNorm: expected an input whose last dims are %s, got shape %s",
               table.concat(self.normalized_shape, ", "), check.shape(x))
    end
    return torch.layer_norm(x, self.normalized_shape, self.weight or nil, self.bias or nil, self.eps)
end

function LayerNorm:extra_repr()
    local shape = table.concat(self.normalized_shape, ", ") -- a Python tuple: (8,) or (3, 4)
    return string.format("(%s%s), eps=%s, elementwise_affine=%s", shape, #self.normalized_shape == 1 and "," or "",
                         py_float(self.eps), self.elementwise_affine and "True" or "False")
end

transformer.LayerNorm = LayerNorm

-- ---- Embedding -----------------------------------------------------------------------------------

local Embedding = Module:extend("Embedding")

--- Embedding(num_embeddings, embedding_dim [, {padding_idx = id}])
function Embedding:__init(num_embeddings, embedding_dim, opts)
    opts = check.options("Embedding", opts, "{padding_idx = 1}")
    self.num_embeddings = check.size("Embedding", "num_embeddings", num_embeddings)
    self.embedding_dim = check.size("Embedding", "embedding_dim", embedding_dim)
    local pad = opts.padding_idx
    if pad ~= nil then
        if math.type(pad) ~= "integer" and not (type(pad) == "number" and pad == math.floor(pad)) or pad == 0
           or math.abs(pad) > self.num_embeddings then
            raisef("Embedding: padding_idx must be an id from 1 to %d (or -1 for the last), got %s",
                   self.num_embeddings, tostring(pad))
        end
        pad = math.tointeger(pad < 0 and self.num_embeddings + pad + 1 or pad)
    end
    self.padding_idx = pad
    self.weight = Parameter(torch.empty(self.num_embeddings, self.embedding_dim))
    self:reset_parameters()
end

-- PyTorch's reset_parameters: init.normal_(weight), then the padding row set to zeros.
function Embedding:reset_parameters()
    self.weight:normal_(0, 1)
    if self.padding_idx then
        self.weight[self.padding_idx]:zero_()
    end
end
Embedding.reset_parameters = require("attn.autograd.grad_mode").without_grad(Embedding.reset_parameters)

function Embedding:forward(input)
    if type(input) == "table" and not torch.is_tensor(input) then
        input = torch.tensor(input)
    end
    check.tensor("Embedding", "input (a tensor of ids)", input)
    local ok, out = pcall(torch.embedding, self.weight, input)
    if not ok then
        raise((errors.message(out):gsub("^embedding:", "Embedding:")))
    end
    return out
end

function Embedding:extra_repr()
    local s = string.format("%d, %d", self.num_embeddings, self.embedding_dim)
    if self.padding_idx then
        s = s .. ", padding_idx=" .. self.padding_idx
    end
    return s
end

transformer.Embedding = Embedding

-- ---- activations as modules ----------------------------------------------------------------------

local function activation_class(name, fn)
    local cls = Module:extend(name)
    cls.forward = function(self, x)
        check.tensor(name, "input", x)
        return fn(x, self)
    end
    transformer[name] = cls
    return cls
end

activation_class("ReLU", function(x) return torch.relu(x) end)
activation_class("SiLU", function(x) return C.silu(x) end)
local GELU = activation_class("GELU", function(x, self) return C.gelu(x, {approximate = self.approximate}) end)

function GELU:extra_repr()
    return "approximate='" .. self.approximate .. "'"
end

--- nn.GELU([{approximate = "none" | "tanh"}])
function GELU:__init(opts)
    opts = check.options("GELU", opts, "{approximate = \"tanh\"}")
    local a = opts.approximate or "none"
    if a ~= "none" and a ~= "tanh" then
        raisef("GELU: approximate must be \"none\" or \"tanh\", got %s", tostring(a))
    end
    self.approximate = a
end

-- ---- positional encoding -------------------------------------------------------------------------

--- nn.positional_encoding(max_len, d_model) — the [max_len, d_model] matrix of Attention Is All You Need:
--- PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(...), computed with the Annotated
--- Transformer's operations so the float32 results are PyTorch's.
function transformer.positional_encoding(max_len, d_model)
    max_len = check.size("positional_encoding", "max_len", max_len)
    d_model = check.size("positional_encoding", "d_model", d_model)
    if d_model % 2 ~= 0 then
        raisef("positional_encoding: d_model must be even (sin and cos columns alternate), got %d", d_model)
    end
    local ok, pe = pcall(function()
        local position = torch.arange(0, max_len):unsqueeze(2)                                      -- [L, 1]
        local div_term = torch.exp(torch.arange(0, d_model, 2) * -(math.log(10000.0) / d_model))  -- [d/2]
        local angles = position * div_term                                                         -- [L, d/2]
        -- Python: pe[:, 0::2] = sin(angles); pe[:, 1::2] = cos(angles)
        return torch.stack({torch.sin(angles), torch.cos(angles)}, 3):view(max_len, d_model)
    end)
    if not ok then -- too large for memory: the message without this file's position
        raisef("positional_encoding: %s", errors.message(pe))
    end
    return pe
end

local PositionalEncoding = Module:extend("PositionalEncoding")

--- nn.PositionalEncoding(d_model [, dropout [, max_len]]) — adds the static encoding to [b, n, d_model]
function PositionalEncoding:__init(d_model, dropout, max_len)
    d_model = check.size("PositionalEncoding", "d_model", d_model)
    max_len = max_len == nil and 5000 or check.size("PositionalEncoding", "max_len", max_len)
    self.dropout = Dropout(dropout_or_default("PositionalEncoding", dropout))
    local ok, pe = pcall(transformer.positional_encoding, max_len, d_model)
    if not ok then
        raise((errors.message(pe):gsub("^positional_encoding:", "PositionalEncoding:")))
    end
    self:register_buffer("pe", pe:unsqueeze(1)) -- [1, max_len, d_model]
end

function PositionalEncoding:forward(x)
    check.tensor("PositionalEncoding", "input", x)
    local pe = self.pe
    if x.ndim < 2 or x.shape[-1] ~= pe.shape[3] or x.shape[-2] > pe.shape[2] then
        raisef("PositionalEncoding: expected an input [..., n, %d] with n <= max_len = %d, got shape %s",
               pe.shape[3], pe.shape[2], check.shape(x))
    end
    -- Python: x + self.pe[:, :x.size(1)]
    return self.dropout(x + pe:narrow(2, 1, x.shape[-2]))
end

transformer.PositionalEncoding = PositionalEncoding

local Embeddings = Module:extend("Embeddings")

--- nn.Embeddings(d_model, vocab) — the Annotated Transformer's token embedding, scaled by sqrt(d_model)
function Embeddings:__init(d_model, vocab)
    self.lut = Embedding(check.size("Embeddings", "vocab", vocab), check.size("Embeddings", "d_model", d_model))
    self.d_model = math.tointeger(d_model)
end

function Embeddings:forward(x)
    return self.lut(x) * math.sqrt(self.d_model)
end

transformer.Embeddings = Embeddings

-- ---- the book's helpers --------------------------------------------------------------------------

--- transformer.clones(module, N) — N deep copies of module in an nn.ModuleList (the book's clones(), on GitHub).
function transformer.clones(module, N)
    check.module("clones", "module", module)
    N = check.size("clones", "N", N)
    local list = {}
    for i = 1, N do
        list[i] = deepcopy(module)
    end
    return ModuleList(list)
end

--- nn.subsequent_mask(n) — bool [1, n, n], true where position i may attend to j (j <= i).
function transformer.subsequent_mask(n)
    n = check.size("subsequent_mask", "n", n)
    return errors.call("subsequent_mask", function() return torch.triu(torch.ones(1, n, n), 1):eq(0) end)
end

-- ---- position-wise feed-forward --------------------------------------------------------------------

local ACTIVATIONS = {silu = C.silu, relu = torch.relu, gelu = C.gelu}

local PositionwiseFFN = Module:extend("PositionwiseFFN")

--- nn.PositionwiseFFN(d_model, d_ff [, dropout [, {activation = "silu"}]])
function PositionwiseFFN:__init(d_model, d_ff, dropout, opts)
    opts = check.options("PositionwiseFFN", opts, "{activation = \"relu\"}")
    local act = opts.activation or "silu"
    if not ACTIVATIONS[act] then
        raisef("PositionwiseFFN: activation must be \"silu\", \"relu\" or \"gelu\", got %s", tostring(act))
    end
    self.w_1 = Linear(check.size("PositionwiseFFN", "d_model", d_model), check.size("PositionwiseFFN", "d_ff", d_ff))
    self.w_2 = Linear(d_ff, d_model)
    self.dropout = Dropout(dropout_or_default("PositionwiseFFN", dropout))
    self.activation = act
end

function PositionwiseFFN:forward(x)
    return self.w_2(self.dropout(ACTIVATIONS[self.activation](self.w_1(x))))
end

transformer.PositionwiseFFN = PositionwiseFFN

-- ---- residual connection and blocks ----------------------------------------------------------------

local function check_norm_first(fn, opts)
    opts = check.options(fn, opts, "{norm_first = false}")
    if opts.norm_first ~= nil and type(opts.norm_first) ~= "boolean" then
        raisef("%s: norm_first must be true (pre-LN) or false (post-LN), got %s", fn, tostring(opts.norm_first))
    end
    return opts.norm_first ~= false
end

local SublayerConnection = Module:extend("SublayerConnection")

--- nn.SublayerConnection(size [, dropout [, {norm_first = true}]]) — residual connection around a sublayer
function SublayerConnection:__init(size, dropout, opts)
    self.norm = LayerNorm(check.size("SublayerConnection", "size", size))
    self.dropout = Dropout(dropout_or_default("SublayerConnection", dropout))
    self.norm_first = check_norm_first("SublayerConnection", opts)
end

function SublayerConnection:forward(x, sublayer)
    check.tensor("SublayerConnection", "input", x)
    if type(sublayer) ~= "function" and not (type(sublayer) == "table" and getmetatable(sublayer)
                                               and getmetatable(sublayer).__call) then
        raisef("SublayerConnection: the second argument must be the sublayer: a module or a function of x, got %s",
            type(sublayer))
    end
    if self.norm_first then
        return x + self.dropout(sublayer(self.norm(x)))  -- pre-LN: x + Sublayer(LayerNorm(x))
    end
    return self.norm(x + self.dropout(sublayer(x)))      -- post-LN: LayerNorm(x + Sublayer(x))
end

function SublayerConnection:extra_repr()
    return self.norm_first and "" or "norm_first=False"
end

transformer.SublayerConnection = SublayerConnection

local EncoderBlock = Module:extend("EncoderBlock")

--- nn.EncoderBlock(size, self_attn, ffn [, dropout [, {norm_first = true}]])
function EncoderBlock:__init(size, self_attn, ffn, dropout, opts)
    size = check.size("EncoderBlock", "size", size)
    self.self_attn = check.module("EncoderBlock", "self_attn", self_attn)
    self.ffn = check.module("EncoderBlock", "ffn", ffn)
    self.sublayers = transformer.clones(SublayerConnection(size, dropout_or_default("EncoderBlock", dropout),
                                                  {norm_first = check_norm_first("EncoderBlock", opts)}), 2)
    self.size = size
end

function EncoderBlock:forward(x, mask)
    x = self.sublayers[1](x, function(y) return self.self_attn(y, y, y, mask) end)
    return self.sublayers[2](x, self.ffn)
end

transformer.EncoderBlock = EncoderBlock

local Encoder = Module:extend("Encoder")

--- nn.Encoder(block, N) — N copies of block, then a LayerNorm
function Encoder:__init(block, N)
    check.module("Encoder", "block", block)
    if math.type(block.size) ~= "integer" then
        raise("Encoder: block must be a block with a size field, such as nn.EncoderBlock(...)")
    end
    self.blocks = transformer.clones(block, check.size("Encoder", "N", N))
    self.norm = LayerNorm(block.size)
end

function Encoder:forward(x, mask)
    for _, layer in ipairs(self.blocks) do
        x = layer(x, mask)
    end
    return self.norm(x)
end

transformer.Encoder = Encoder

local DecoderBlock = Module:extend("DecoderBlock")

--- nn.DecoderBlock(size, self_attn, encoder_attn, ffn [, dropout [, {norm_first = true}]])
function DecoderBlock:__init(size, self_attn, encoder_attn, ffn, dropout, opts)
    self.size = check.size("DecoderBlock", "size", size)
    self.self_attn = check.module("DecoderBlock", "self_attn", self_attn)
    self.encoder_attn = check.module("DecoderBlock", "encoder_attn", encoder_attn)
    self.ffn = check.module("DecoderBlock", "ffn", ffn)
    self.sublayers = transformer.clones(SublayerConnection(self.size, dropout_or_default("DecoderBlock", dropout),
                                                  {norm_first = check_norm_first("DecoderBlock", opts)}), 3)
end

function DecoderBlock:forward(x, encoder_states, source_mask, target_mask)
    check.tensor("DecoderBlock", "encoder_states", encoder_states)
    x = self.sublayers[1](x, function(y) return self.self_attn(y, y, y, target_mask) end)
    x = self.sublayers[2](x, function(y) return self.encoder_attn(y, encoder_states, encoder_states, source_mask) end)
    return self.sublayers[3](x, self.ffn)
end

transformer.DecoderBlock = DecoderBlock

local Decoder = Module:extend("Decoder")

--- nn.Decoder(block, N, vocab_size) — N copies of block, a LayerNorm, a projection and log_softmax
function Decoder:__init(block, N, vocab_size)
    check.module("Decoder", "block", block)
    if math.type(block.size) ~= "integer" then
        raise("Decoder: block must be a block with a size field, such as nn.DecoderBlock(...)")
    end
    self.blocks = transformer.clones(block, check.size("Decoder", "N", N))
    self.norm = LayerNorm(block.size)
    self.projection = Linear(block.size, check.size("Decoder", "vocab_size", vocab_size))
end

function Decoder:forward(x, encoder_states, source_mask, target_mask)
    for _, layer in ipairs(self.blocks) do
        x = layer(x, encoder_states, source_mask, target_mask)
    end
    return torch.log_softmax(self.projection(self.norm(x)), -1)
end

transformer.Decoder = Decoder

-- ---- BERT's input ------------------------------------------------------------------------------------

local BERTEmbedding = Module:extend("BERTEmbedding")

--- nn.BERTEmbedding(vocab_size, d_model [, {max_len = 512, segments = 2}])
function BERTEmbedding:__init(vocab_size, d_model, opts)
    opts = check.options("BERTEmbedding", opts, "{max_len = 128}")
    vocab_size = check.size("BERTEmbedding", "vocab_size", vocab_size)
    d_model = check.size("BERTEmbedding", "d_model", d_model)
    self.token = Embedding(vocab_size, d_model)
    self.segment = Embedding(check.size("BERTEmbedding", "segments", opts.segments or 2), d_model)
    self.position = Embedding(check.size("BERTEmbedding", "max_len", opts.max_len or 512), d_model)
end

function BERTEmbedding:forward(tokens, segments)
    if type(tokens) == "table" and not torch.is_tensor(tokens) then
        tokens = torch.tensor(tokens)
    end
    check.tensor("BERTEmbedding", "tokens", tokens)
    if tokens.ndim < 1 then
        raise("BERTEmbedding: tokens must have a sequence dim, e.g. [batch, n], got a 0-d tensor")
    end
    if segments == nil then
        segments = torch.ones(tokens.shape, {dtype = torch.int64}) -- segment id 1 (PyTorch's 0)
    elseif type(segments) == "table" and not torch.is_tensor(segments) then
        segments = torch.tensor(segments)
    end
    local n = tokens.shape[-1]
    if n > self.position.num_embeddings then
        raisef("BERTEmbedding: %d tokens, but max_len is %d", n, self.position.num_embeddings)
    end
    local positions = torch.arange(1, n + 1)  -- Python: torch.arange(n) (0-based ids)
    return self.token(tokens) + self.segment(segments) + self.position(positions)
end

transformer.BERTEmbedding = BERTEmbedding

return transformer
