-- files_spec.lua — files attn reads and writes cannot be turned against it or against the user:
-- a tensor loaded from a file another program truncates or rewrites afterwards keeps its
-- values (safetensors.c reads, never maps); a tensor name with a NUL byte is refused (it crashed
-- save_file); every write goes through src/core/safe_write.c: a symlinked target is written through,
-- the mode is kept, a FIFO, a device or a folder is refused, a symlink planted at the old fixed
-- temporary name (path.tmp) is never written through. Each test here failed (or crashed busted) on
-- main before the change. The values compared are the ones the test itself saved: nothing is typed in.
local torch, safetensors, attention = torch, safetensors, attention
local bind = require("attn.bind")
local dir = os.getenv("TMPDIR") or "/tmp"
local base = string.format("%s/attn_files_spec_%d", dir, math.random(1, 1e9))
local path = base .. ".safetensors"

local function sh(cmd) return os.execute(cmd) end
local function read(p)
    local f = assert(io.open(p, "rb"))
    local s = f:read("a")
    f:close()
    return s
end
local function mode_of(p)
    local f = io.popen("stat -c %a '" .. p .. "'")
    local m = f:read("l")
    f:close()
    return m
end
local function is_symlink(p) return os.execute("test -L '" .. p .. "'") == true end

describe("a loaded safetensors tensor and its file", function()
    after_each(function() os.remove(path) end)

    it("keeps its values when the file is truncated after loading (it was SIGBUS)", function()
        torch.manual_seed(7)
        local w = torch.rand(64, 1024) -- 256 KB: many pages, the last of them beyond the cut
        safetensors.save_file({w = w, ids = torch.arange(1, 5000)}, path)
        local r = safetensors.load_file(path)
        local f = assert(io.open(path, "wb")) -- truncates the file to 0 bytes
        f:close()
        assert.is_true(torch.equal(r.w, w))
        assert.is_true(torch.equal(r.ids, torch.arange(1, 5000)))
    end)

    it("keeps its values when the file's bytes are rewritten in place", function()
        safetensors.save_file({w = torch.ones(4096)}, path)
        local r = safetensors.load_file(path)
        local size = #read(path)
        local f = assert(io.open(path, "r+b"))
        f:seek("set", size - 4 * 4096)
        f:write(string.rep("\0", 4 * 4096)) -- every element's bytes: 0.0
        f:close()
        assert.are.equal(0.0, safetensors.load_file(path).w:sum():item()) -- the file did change
        assert.are.equal(4096.0, r.w:sum():item())
    end)

    it("a file cut while it is read is an error naming it, not a crash", function()
        -- a header that promises more data than the file holds is refused before reading (the
        -- truncation test above covers a cut after loading)
        safetensors.save_file({w = torch.ones(100)}, path)
        local text = read(path)
        local f = assert(io.open(path, "wb"))
        f:write(text:sub(1, #text - 8))
        f:close()
        local ok, err = pcall(safetensors.load_file, path)
        assert.is_false(ok)
        assert.matches("safetensors.load_file: .*attn_files_spec", err)
    end)
end)

describe("safetensors.save_file names", function()
    after_each(function() os.remove(path) end)

    it("refuses a tensor name with a NUL byte (it segfaulted)", function()
        local ok, err = pcall(safetensors.save_file, {["a\0b"] = torch.ones(1), ["a\0c"] = torch.ones(2)}, path)
        assert.is_false(ok)
        assert.matches('safetensors.save_file: a tensor name cannot hold a NUL byte %("a\\0%.%.%."%)', err)
        ok, err = pcall(safetensors.save_file, {["x\0"] = torch.ones(1)}, path)
        assert.is_false(ok)
        assert.matches("cannot hold a NUL byte", err)
        ok, err = pcall(safetensors.save_file, {a = torch.ones(1)}, path, {["k\0"] = "v"})
        assert.matches("metadata cannot hold a NUL byte", err)
        ok, err = pcall(safetensors.save_file, {a = torch.ones(1)}, path .. "\0.txt")
        assert.matches("a file name cannot hold a NUL byte", err)
        assert.is_nil(io.open(path, "rb")) -- nothing written
    end)
end)

describe("every file attn writes (src/core/safe_write.c)", function()
    local target, link = base .. ".real", base .. ".link"
    after_each(function()
        for _, p in ipairs({path, path .. ".tmp", target, link, base .. ".fifo", base .. ".svg", base .. ".html"}) do
            os.remove(p)
        end
        sh("rm -rf '" .. base .. ".d'")
    end)

    it("never writes through a symlink planted at path.tmp (the old fixed temporary name)", function()
        local f = assert(io.open(target, "wb"))
        f:write("precious")
        f:close()
        assert.is_true(sh("ln -s '" .. target .. "' '" .. path .. ".tmp'"))
        safetensors.save_file({a = torch.ones(3)}, path)
        assert.are.equal("precious", read(target))
        assert.is_true(torch.equal(safetensors.load_file(path).a, torch.ones(3)))
        local names = io.popen("ls -a '" .. dir .. "' | grep -c 'attn_files_spec.*attn-'"):read("l")
        assert.are.equal("0", names) -- no temporary file left behind
    end)

    it("writes through a symlinked target: the file it points to changes, the link stays a link", function()
        safetensors.save_file({a = torch.zeros(2)}, target)
        assert.is_true(sh("ln -s '" .. target .. "' '" .. link .. "'"))
        safetensors.save_file({a = torch.ones(2)}, link)
        assert.is_true(is_symlink(link))
        assert.is_true(torch.equal(safetensors.load_file(target).a, torch.ones(2)))
    end)

    it("refuses a dangling symlink", function()
        assert.is_true(sh("ln -s '" .. base .. ".nowhere' '" .. link .. "'"))
        local ok, err = pcall(safetensors.save_file, {a = torch.ones(1)}, link)
        assert.is_false(ok)
        assert.matches("cannot write .*%.link: it is a symlink to a file that does not exist", err)
    end)

    it("keeps the mode of the file it replaces (0600 stays 0600)", function()
        safetensors.save_file({a = torch.zeros(2)}, path)
        sh("chmod 600 '" .. path .. "'")
        safetensors.save_file({a = torch.ones(2)}, path)
        assert.are.equal("600", mode_of(path))
        local ok = bind.files.write(base .. ".html", "<p>1</p>", "tr:save")
        assert.are.equal(8, ok)
        sh("chmod 640 '" .. base .. ".html'")
        bind.files.write(base .. ".html", "<p>2</p>", "tr:save")
        assert.are.equal("640", mode_of(base .. ".html"))
        assert.are.equal("<p>2</p>", read(base .. ".html"))
    end)

    it("refuses a FIFO, a device and a folder, saying what it is", function()
        assert.is_true(sh("mkfifo '" .. base .. ".fifo'"))
        local ok, err = pcall(safetensors.save_file, {a = torch.ones(1)}, base .. ".fifo")
        assert.is_false(ok)
        assert.matches("will not write .*%.fifo: it is a FIFO, and attn writes only regular files", err)
        local size, werr = bind.files.write("/dev/null", "x", "--update")
        assert.is_nil(size)
        assert.matches("^%-%-update: will not write /dev/null: it is a character device", werr)
        sh("mkdir '" .. base .. ".d'")
        ok, err = pcall(safetensors.save_file, {a = torch.ones(1)}, base .. ".d")
        assert.matches("it is a folder", err)
    end)

    it("attention.heatmap's svg goes through it too", function()
        sh("chmod 600 '" .. base .. ".svg' 2>/dev/null; : > '" .. base .. ".svg'; chmod 600 '" .. base .. ".svg'")
        attention.heatmap(torch.eye(2), {svg = base .. ".svg"})
        assert.matches("^<%?xml", read(base .. ".svg"))
        assert.are.equal("600", mode_of(base .. ".svg"))
        assert.is_true(sh("mkfifo '" .. base .. ".fifo'"))
        assert.has_error(function() attention.heatmap(torch.eye(2), {svg = base .. ".fifo"}) end)
    end)
end)
