/* regex.c (bindings) — Unicode regular expressions through PCRE2 (the part `regex`), for GPT-2's
 * pre-tokenisation: tiktoken splits text with a pattern that needs Unicode classes (\p{L} letters,
 * \p{N} numbers, \s) and a lookahead, which Lua's patterns do not have.
 *   regex.compile(pattern) -> a compiled pattern (UTF mode, Unicode properties for \s, \w, \d)
 *   compiled:findall(text) -> {match, ...}, every non-overlapping match from left to right
 *   compiled:split(text)   -> {piece, ...}, the matches and the text between them, in order (Hugging
 *                             Face's Split pre-tokenizer, behaviour "Isolated": nothing is dropped)
 * Text must be valid UTF-8: otherwise findall and split fail naming the first bad byte. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>

#include "bind.h"

#define REGEX_MT "attn.regex"

typedef struct compiled {
    pcre2_code *code;
} compiled;

static int f_compile(lua_State *L)
{
    size_t len;
    const char *pattern = luaL_checklstring(L, 1, &len);
    compiled *c = lua_newuserdatauv(L, sizeof *c, 0);
    c->code = NULL;
    luaL_setmetatable(L, REGEX_MT);
    int code;
    PCRE2_SIZE at;
    c->code = pcre2_compile((PCRE2_SPTR)pattern, len, PCRE2_UTF | PCRE2_UCP, &code, &at, NULL);
    if (!c->code) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(code, msg, sizeof msg);
        return lt_error(L, "regex.compile: %s (at byte %zu of the pattern)", (const char *)msg, (size_t)at + 1);
    }
    pcre2_jit_compile(c->code, PCRE2_JIT_COMPLETE); /* faster when available; works without */
    return 1;
}

/* The matches of c in text, left to right; with gaps, also the text between them (and after the last),
 * so that the pieces joined are the text. Pushes the list; fn names the method in errors. */
static int walk(lua_State *L, int gaps, const char *fn)
{
    compiled *c = luaL_checkudata(L, 1, REGEX_MT);
    size_t len;
    const char *text = luaL_checklstring(L, 2, &len);
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(c->code, NULL);
    if (!md)
        return lt_error(L, "%s: out of memory", fn);
    lua_newtable(L);
    lua_Integer n = 0;
    PCRE2_SIZE start = 0, kept = 0; /* kept: the end of the last piece pushed */
    uint32_t options = 0;
    while (start <= len) {
        int rc = pcre2_match(c->code, (PCRE2_SPTR)text, len, start, options, md, NULL);
        if (rc == PCRE2_ERROR_NOMATCH)
            break;
        if (rc < 0) {
            PCRE2_UCHAR msg[256];
            pcre2_get_error_message(rc, msg, sizeof msg);
            PCRE2_SIZE bad = pcre2_get_startchar(md);
            pcre2_match_data_free(md);
            if (rc <= PCRE2_ERROR_UTF8_ERR1 && rc >= PCRE2_ERROR_UTF8_ERR21)
                return lt_error(L, "%s: the text is not valid UTF-8 (byte %zu)", fn, (size_t)bad + 1);
            return lt_error(L, "%s: %s", fn, (const char *)msg);
        }
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
        if (ov[1] == ov[0]) { /* an empty match: step one character on */
            if (ov[0] >= len)
                break;
            start = ov[0] + 1;
            while (start < len && ((unsigned char)text[start] & 0xC0) == 0x80)
                start++;
            options = PCRE2_NO_UTF_CHECK;
            continue;
        }
        if (gaps && ov[0] > kept) {
            lua_pushlstring(L, text + kept, ov[0] - kept);
            lua_rawseti(L, -2, ++n);
        }
        lua_pushlstring(L, text + ov[0], ov[1] - ov[0]);
        lua_rawseti(L, -2, ++n);
        kept = start = ov[1];
        options = PCRE2_NO_UTF_CHECK; /* checked once, on the first call */
    }
    pcre2_match_data_free(md);
    if (gaps && kept < len) {
        lua_pushlstring(L, text + kept, len - kept);
        lua_rawseti(L, -2, ++n);
    }
    return 1;
}

static int f_findall(lua_State *L)
{
    return walk(L, 0, "findall");
}

static int f_split(lua_State *L)
{
    return walk(L, 1, "split");
}

static int f_gc(lua_State *L)
{
    compiled *c = luaL_checkudata(L, 1, REGEX_MT);
    if (c->code)
        pcre2_code_free(c->code);
    c->code = NULL;
    return 0;
}

int luaopen_attn_regex(lua_State *L)
{
    static const luaL_Reg methods[] = {{"findall", f_findall}, {"split", f_split}, {NULL, NULL}};
    static const luaL_Reg fns[] = {{"compile", f_compile}, {NULL, NULL}};
    luaL_newmetatable(L, REGEX_MT);
    luaL_newlib(L, methods);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, f_gc);
    lua_setfield(L, -2, "__gc");
    lua_pop(L, 1);
    lua_newtable(L);
    lt_newpart(L, "regex", fns, NULL);
    return 1;
}
