-- attn-0.1-1.rockspec — attn's library as a LuaRocks rock: the module attn (attn.so, a Lua 5.4 C
-- module built by the Makefile from src/core, src/bind and the embedded src/lua), so that
-- require("attn") returns {torch, nn, attention, help, lesson}. The attn command, its man page and the
-- lessons are `make install`'s (see README.md).
rockspec_format = "3.0"
package = "attn"
version = "0.1-1"
source = {
    -- `luarocks --lua-version 5.4 make scripts/attn-0.1-1.rockspec` at the top of a checkout builds that checkout (tested
    -- by tests/install/test_install.sh); url is where a packed rock
    -- would fetch it from (this repository has no public address yet)
    url = "git+file:///work/main",
    branch = "main",
}
description = {
    summary = "Tensors and the stages of attention, printed as PyTorch prints them",
    detailed = [[
A tensor core in C with PyTorch's numbers (its random streams, its print format, its summation
orders) and every stage of attention (scores, scaling, masking, softmax, weighted sum, heads) as an
operation, with the attention classes of the books.]],
}
dependencies = {
    "lua >= 5.4, < 5.5",
}
-- The Makefile finds the headers with pkg-config (Debian keeps cblas.h under an openblas-pthread
-- folder LuaRocks does not search), so only the libraries are checked here.
external_dependencies = {
    OPENBLAS = {library = "openblas"},
    SLEEF = {library = "sleef"},
    CJSON = {library = "cjson"},
    PCRE2 = {library = "pcre2-8"},
    UTF8PROC = {library = "utf8proc"},
    CMARK = {library = "cmark"},
}
build = {
    type = "make",
    build_target = "attn.so",
    install_target = "install-lua",
    install_variables = {
        LUA_CMOD_DIR = "$(LIBDIR)",
    },
}
