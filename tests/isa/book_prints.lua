-- book_prints.lua SPEC — runs a busted spec of book prints (tests/lua/book_33_spec.lua) without busted, which
-- needs C modules (LuaFileSystem) that an attn built for another machine cannot load from this one (the
-- aarch64 attn under qemu, tests/arm64), and writes what each test's session printed, then "ok" or "not ok"
-- against the book's text: the output tests/isa/outputs.sh compares byte for byte between machines.
-- Knows the part of busted's API those specs use: describe, it, assert.are.equal(expected, got).
local spec = arg[1]
local lua_assert = assert
local names, n, failed = {}, 0, 0

function describe(name, body) -- luacheck: ignore (busted's globals)
    names[#names + 1] = name
    body()
    names[#names] = nil
end

function it(name, body) -- luacheck: ignore
    n = n + 1
    local ok, err = pcall(body)
    if not ok then
        failed = failed + 1
        io.write("# ", tostring(err):gsub("\n", "\n# "), "\n")
    end
    io.write(ok and "ok " or "not ok ", n, " - ", table.concat(names, " "), " ", name, "\n")
end

assert = setmetatable({ -- luacheck: ignore
    are = {
        equal = function(expected, got)
            io.write(tostring(got))
            if expected ~= got then
                error("expected: " .. tostring(expected), 2)
            end
        end,
    },
}, {__call = function(_, ...) return lua_assert(...) end})

dofile(spec)
io.write("1..", n, "\n")
os.exit(failed == 0 and 0 or 1)
