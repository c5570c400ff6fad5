-- busted_shims.lua — for busted inside the WebAssembly build under node (tests/web/test_lua.sh): busted
-- and Penlight load three C modules (luasystem's system.core, lua-term's term.core, LuaFileSystem's lfs)
-- that a wasm module cannot load (no dlopen). These stand-ins give what busted uses of them when it runs
-- the spec files it is given by name: clocks, "stdout is not a terminal", and a file's kind. Test
-- scaffolding only: attn itself never loads them.
package.preload["system.core"] = function()
    return {
        gettime = function() return os.time() end,
        monotime = function() return os.clock() end,
        sleep = function() end,
    }
end
package.preload["term.core"] = function()
    return {isatty = function() return false end}
end
package.preload["lfs"] = function()
    local function mode(path)
        local f = io.open(path, "r")
        if not f then return nil end
        local ok = f:read(0)
        f:close()
        return ok == nil and "directory" or "file"
    end
    local function attributes(path, what)
        local m = mode(path)
        if not m then return nil, path .. ": No such file or directory" end
        local t = {mode = m}
        if what then return t[what] end
        return t
    end
    return {
        attributes = attributes,
        symlinkattributes = attributes,
        currentdir = function() return os.getenv("PWD") or "." end,
        dir = function(path) error("lfs.dir is not available in the wasm build: name the spec files", 2) end,
        chdir = function(path)
            if path == "." or path == os.getenv("PWD") then return true end
            return nil, "lfs.chdir is not available in the wasm build"
        end,
        mkdir = function() return nil, "not available" end,
        rmdir = function() return nil, "not available" end,
    }
end
