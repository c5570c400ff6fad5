-- safetensors.load_file / save_file (src/core/safetensors.c, src/bind/safetensors.c) and torch.load's
-- refusal. Every malformed file of the issue is made here, byte by byte, and must be refused with a
-- message naming the file and what is wrong; none may crash. F16, BF16, I32 and BOOL are read from
-- bytes made here and compared with their definitions (every F16 and BF16 bit pattern). The files
-- PyTorch wrote (the tiny GPT-2) are in tests/data/gpt2, made by scripts/torch_reference_gpt2.py and
-- read by tests/lua/gpt_spec.lua.
local torch, safetensors = torch, safetensors
local dir = os.getenv("TMPDIR") or "/tmp"
local path = string.format("%s/attn_st_spec_%d.safetensors", dir, math.random(1, 1e9))

local function write(bytes)
    local f = assert(io.open(path, "wb"))
    f:write(bytes)
    f:close()
end

-- A file with this header text (padded with spaces to 8 bytes) and these data bytes.
local function file(header, data, length)
    local pad = (8 - #header % 8) % 8
    header = header .. string.rep(" ", pad)
    write(string.pack("<I8", length or #header) .. header .. (data or ""))
end

local function refused(pattern)
    local ok, err = pcall(safetensors.load_file, path)
    assert.is_false(ok)
    assert.matches("safetensors.load_file: " .. path:gsub("%p", "%%%0") .. ": .-" .. pattern, err)
end

describe("safetensors.save_file and load_file", function()
    after_each(function() os.remove(path) end)

    it("round-trips float32, int64 and bool tensors, with metadata", function()
        torch.manual_seed(1)
        local t = {w = torch.rand(3, 5), ids = torch.tensor{1, 2, 2^53 + 1}, mask = torch.tensor{true, false},
                   odd = torch.rand(3), scalar = torch.tensor(2.5), empty = torch.zeros(0, 4)}
        safetensors.save_file(t, path, {format = "pt"})
        local r, meta = safetensors.load_file(path)
        for name, v in pairs(t) do
            assert.are.equal(v.dtype, r[name].dtype, name)
            assert.is_true(torch.equal(v, r[name]), name)
        end
        assert.are.same({format = "pt"}, meta)
    end)

    it("saves a non-contiguous tensor's elements in row-major order", function()
        local t = torch.arange(6):view(2, 3):float()
        safetensors.save_file({t = t.T}, path)
        assert.is_true(torch.equal(safetensors.load_file(path).t, t.T:contiguous()))
    end)

    it("a loaded tensor can be changed in place without changing the file", function()
        safetensors.save_file({t = torch.zeros(4)}, path)
        local r = safetensors.load_file(path)
        r.t:fill_(7)
        assert.are.equal(0.0, safetensors.load_file(path).t:sum():item())
        r = nil
        collectgarbage()
    end)

    it("tensors outlive the table they came in", function()
        safetensors.save_file({a = torch.ones(1000)}, path)
        local a = safetensors.load_file(path).a
        collectgarbage(); collectgarbage()
        os.remove(path) -- the mapping keeps the bytes
        assert.are.equal(1000.0, a:sum():item())
    end)

    it("refuses bad arguments, naming the function", function()
        assert.has_error(function() safetensors.save_file({a = 1}, path) end,
                         'safetensors.save_file: "a" is 1, not a tensor')
        assert.has_error(function() safetensors.save_file(torch.ones(2), path) end)
        assert.has_error(function() safetensors.save_file({a = torch.ones(2)}) end)
        assert.matches("cannot open .*no_such_dir/x.safetensors: No such file",
                       select(2, pcall(safetensors.load_file, "/no_such_dir/x.safetensors")))
        assert.matches("cannot write /no_such_dir/x.safetensors",
                       select(2, pcall(safetensors.save_file, {a = torch.ones(1)}, "/no_such_dir/x.safetensors")))
    end)
end)

describe("safetensors.load_file reads the format's other dtypes", function()
    after_each(function() os.remove(path) end)

    -- An IEEE half's value from its bits, by the definition (sign, 5-bit exponent, 10-bit fraction).
    local function half(h)
        local sign = (h >> 15) == 1 and -1 or 1
        local e, m = (h >> 10) & 31, h & 1023
        if e == 31 then return m == 0 and sign * math.huge or 0 / 0 end
        if e == 0 then return sign * m * 2.0 ^ -24 end
        return sign * (1024 + m) * 2.0 ^ (e - 25)
    end
    local function same(a, b) return a == b or (a ~= a and b ~= b) end
    local function each_bits(fmt)
        local parts = {}
        for h = 0, 65535 do parts[#parts + 1] = string.pack(fmt, h) end
        return table.concat(parts)
    end

    it("F16: every one of the 65,536 bit patterns as float32", function()
        file('{"h":{"dtype":"F16","shape":[65536],"data_offsets":[0,131072]}}', each_bits("<I2"))
        local t = safetensors.load_file(path).h
        assert.are.equal(torch.float32, t.dtype)
        local v, bad = t:tolist(), {}
        for h = 0, 65535 do
            if not same(v[h + 1], half(h)) and #bad < 5 then bad[#bad + 1] = string.format("0x%04x", h) end
        end
        assert.are.same({}, bad)
    end)

    it("BF16: every one of the 65,536 bit patterns, the top half of a float32", function()
        file('{"b":{"dtype":"BF16","shape":[256,256],"data_offsets":[0,131072]}}', each_bits("<I2"))
        local t = safetensors.load_file(path).b
        assert.are.same({256, 256}, {t.shape[1], t.shape[2]})
        local v, bad = t:reshape(-1):tolist(), {}
        for h = 0, 65535 do
            local want = string.unpack("<f", string.pack("<I4", h << 16))
            if not same(v[h + 1], want) and #bad < 5 then bad[#bad + 1] = string.format("0x%04x", h) end
        end
        assert.are.same({}, bad)
    end)

    it("I32 as int64, BOOL as bool, and a float32 at an offset that is not a multiple of 4", function()
        local ints = {0, 1, -1, 2147483647, -2147483648, 123456789}
        local data = string.pack("<BBB", 1, 0, 1) .. string.pack("<f", 0.1)
        for _, v in ipairs(ints) do data = data .. string.pack("<i4", v) end
        file('{"m":{"dtype":"BOOL","shape":[3],"data_offsets":[0,3]},"f":{"dtype":"F32","shape":[1],"data_offsets":[3,7]},'
             .. '"i":{"dtype":"I32","shape":[2,3],"data_offsets":[7,31]}}', data)
        local r = safetensors.load_file(path)
        assert.are.equal(torch.int64, r.i.dtype)
        assert.are.same(ints, r.i:reshape(-1):tolist())
        assert.are.equal(torch.bool, r.m.dtype)
        assert.are.same({true, false, true}, r.m:tolist())
        assert.are.equal(string.unpack("<f", string.pack("<f", 0.1)), r.f:tolist()[1])
    end)

    it("I16, I8 and U8 as int64, F64 as float32: each dtype widened in the tensor's own memory, in order", function()
        -- the narrower dtypes are read into the end of the tensor and widened front to back: a wrong
        -- order would overwrite numbers before they are read
        local i16, i8, u8 = {}, {}, {}
        for k = 1, 37 do
            i16[k] = (k * 1031) % 65536 - 32768
            i8[k] = (k * 37) % 256 - 128
            u8[k] = (k * 53) % 256
        end
        local f64 = {0.1, -2.5, 1e300, 3}
        local data = string.pack("<" .. string.rep("i2", 37), table.unpack(i16))
                     .. string.pack("<" .. string.rep("i1", 37), table.unpack(i8))
                     .. string.pack("<" .. string.rep("I1", 37), table.unpack(u8))
                     .. string.pack("<dddd", table.unpack(f64))
        file('{"a":{"dtype":"I16","shape":[37],"data_offsets":[0,74]},"b":{"dtype":"I8","shape":[37],"data_offsets":[74,111]},'
             .. '"c":{"dtype":"U8","shape":[37],"data_offsets":[111,148]},"d":{"dtype":"F64","shape":[4],"data_offsets":[148,180]}}', data)
        local r = safetensors.load_file(path)
        assert.are.same(i16, r.a:tolist())
        assert.are.same(i8, r.b:tolist())
        assert.are.same(u8, r.c:tolist())
        assert.are.equal(torch.float32, r.d.dtype)
        local want = {}
        for k, v in ipairs(f64) do want[k] = string.unpack("<f", string.pack("<f", v ~= 1e300 and v or math.huge)) end
        assert.are.same(want, r.d:tolist())
    end)
end)

describe("a malformed safetensors file is refused, naming the file and the problem", function()
    after_each(function() os.remove(path) end)
    local ok1 = '{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}'

    it("a well-formed file made by hand loads", function()
        file(ok1, string.pack("<ff", 1.5, -2))
        local r = safetensors.load_file(path)
        assert.are.same({1.5, -2.0}, r.a:tolist())
    end)
    it("truncated: shorter than the 8-byte length", function()
        write("\1\0\0")
        refused("3 bytes is too short for a safetensors file")
    end)
    it("empty", function()
        write("")
        refused("0 bytes is too short")
    end)
    it("truncated data", function()
        file(ok1, string.pack("<f", 1.5))
        refused('tensor "a": data_offsets %[0, 8%] are past the end of the data %(4 bytes%)')
    end)
    it("header length past the end of the file", function()
        file(ok1, string.pack("<ff", 1, 2), 4096)
        refused("the header length %(4096 bytes%) is past the end of the file")
    end)
    it("a 10 GB header length", function()
        file(ok1, string.pack("<ff", 1, 2), 10 * 1000 * 1000 * 1000)
        refused("the header length %(10000000000 bytes%) is past the end of the file")
    end)
    it("a header length of 2^64 - 1", function()
        write(string.rep("\255", 8) .. "{}")
        refused("the header length %(18446744073709551615 bytes%) is past the end")
    end)
    it("overlapping offsets", function()
        file('{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}',
             string.pack("<ff", 1, 2))
        refused('tensors "a" and "b" overlap')
    end)
    it("out-of-range offsets", function()
        file('{"a":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}}', string.pack("<ff", 1, 2))
        refused("past the end of the data %(8 bytes%)")
    end)
    it("offsets end before they begin", function()
        file('{"a":{"dtype":"F32","shape":[0],"data_offsets":[8,0]}}', string.pack("<ff", 1, 2))
        refused("data_offsets must be %[begin, end%] with 0 <= begin <= end")
    end)
    it("negative or fractional offsets and sizes", function()
        file('{"a":{"dtype":"F32","shape":[2],"data_offsets":[-8,0]}}', string.pack("<ff", 1, 2))
        refused("data_offsets must be")
        file('{"a":{"dtype":"F32","shape":[1.5],"data_offsets":[0,8]}}', string.pack("<ff", 1, 2))
        refused("shape sizes must be whole numbers")
    end)
    it("bytes that belong to no tensor", function()
        file('{"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}', string.pack("<ff", 1, 2))
        refused("bytes 0 to 4 of the data belong to no tensor")
        file('{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}', string.pack("<ff", 1, 2))
        refused("the last 4 bytes of the data belong to no tensor")
    end)
    it("an unknown dtype", function()
        file('{"a":{"dtype":"F8_E4M3","shape":[8],"data_offsets":[0,8]}}', string.pack("<ff", 1, 2))
        refused('tensor "a" has dtype "F8_E4M3", which attn does not read')
    end)
    it("shape x dtype not the byte span", function()
        file('{"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}', string.pack("<ff", 1, 2))
        refused('tensor "a": shape %[3%] of F32 takes 12 bytes, but its data_offsets %[0, 8%] span 8')
        file('{"a":{"dtype":"F16","shape":[2],"data_offsets":[0,8]}}', string.pack("<ff", 1, 2))
        refused("shape %[2%] of F16 takes 4 bytes")
    end)
    it("a shape whose byte size overflows", function()
        file('{"a":{"dtype":"F32","shape":[4294967296,4294967296,4294967296],"data_offsets":[0,8]}}',
             string.pack("<ff", 1, 2))
        refused("takes .* bytes, but its data_offsets")
    end)
    it("too many dims", function()
        file('{"a":{"dtype":"F32","shape":[1,1,1,1,1,1,1,1,1],"data_offsets":[0,4]}}', string.pack("<f", 1))
        refused('tensor "a" has 9 dims, attn supports at most 8')
    end)
    it("a name that is not UTF-8", function()
        file('{"a\255":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}', string.pack("<ff", 1, 2))
        refused("a tensor name is not valid UTF%-8")
    end)
    it("a duplicated name", function()
        file('{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}',
             string.pack("<ff", 1, 2))
        refused('the name "a" appears twice in the header')
    end)
    it("a header that is not JSON, or not an object", function()
        file('{"a":{"dtype":"F32",', string.pack("<ff", 1, 2))
        refused("the header is not valid JSON")
        file('{"a":1} trailing', "")
        refused("the header is not valid JSON")
        file('["a"]', "")
        refused("the header does not start with '{'")
        file('{"a":[1,2]}', "")
        refused('the header entry of "a" is not an object')
        file('{"a":{"dtype":5,"shape":[1],"data_offsets":[0,4]}}', string.pack("<f", 1))
        refused('the header entry of "a" needs a string dtype')
    end)
    it("metadata that is not strings", function()
        file('{"__metadata__":{"n":1}}', "")
        refused('"__metadata__" must be an object of strings')
    end)
    it("a pickle (a PyTorch checkpoint) given to load_file", function()
        write("\128\2\138\10\108\252\156\70\249\32\106\168\80\25.")
        refused("the header length .* is past the end of the file")
    end)
    it("a model too large for the memory available, refused before anything is mapped or allocated", function()
        -- a sparse file: 8 TB of float32 that take no disk, with a well-formed header
        local n = 2 * 1000 * 1000 * 1000 * 1000 // 4 * 4
        local header = string.format('{"w":{"dtype":"F32","shape":[%d],"data_offsets":[0,%d]}}', n, n * 4)
        header = header .. string.rep(" ", (8 - #header % 8) % 8)
        local f = assert(io.open(path, "wb"))
        f:write(string.pack("<I8", #header), header)
        f:seek("set", 8 + #header + n * 4 - 1)
        f:write("\0")
        f:close()
        refused("its tensors take 8 TB, more than the memory available now")
    end)
    it("a directory", function()
        local ok, err = pcall(safetensors.load_file, dir)
        assert.is_false(ok)
        assert.matches("is not a regular file", err)
    end)
    it("random bytes never crash", function()
        math.randomseed(7)
        for _ = 1, 200 do
            local n = math.random(0, 64)
            local t = {}
            for i = 1, n do t[i] = string.char(math.random(0, 255)) end
            local bytes = table.concat(t)
            if math.random() < 0.5 and n >= 8 then
                bytes = string.pack("<I8", math.random(0, n - 8)) .. "{" .. bytes:sub(10)
            end
            write(bytes)
            assert.is_false(pcall(safetensors.load_file, path))
        end
    end)
end)

describe("torch.load", function()
    it("refuses a pickle checkpoint, saying why and how to convert", function()
        local path = os.tmpname()
        local f = assert(io.open(path, "wb"))
        f:write("\x80\x02}q\x00.") -- a pickle's first bytes (protocol 2, an empty dict)
        f:close()
        local ok, err = pcall(torch.load, path)
        os.remove(path)
        assert.is_false(ok)
        assert.matches("torch.load: attn does not read PyTorch's pickle checkpoints %(" .. path:gsub("%p", "%%%0") .. "%)", err)
        assert.matches("unpickling a file runs code chosen by\nwhoever made it", err)
        assert.matches("save_file", err)
        assert.matches('torch.load("model.safetensors")', err, 1, true)
    end)

    it("loads a safetensors file (its table of tensors), and names a file that is not there as missing", function()
        local path = "tests/data/gpt2/reference.safetensors"
        local t = torch.load(path)
        local want = safetensors.load_file(path)
        local n = 0
        for k, v in pairs(want) do
            assert.is_true(torch.equal(v, t[k]), k)
            n = n + 1
        end
        assert.is_true(n > 0)
        local ok, err = pcall(torch.load, "no_such_model.pth")
        assert.is_false(ok)
        assert.matches("torch.load: cannot read no_such_model.pth %(no_such_model.pth: No such file or directory%)", err)
    end)
end)
