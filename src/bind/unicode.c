/* unicode.c (bindings) — Unicode normalization through utf8proc (the part `unicode`), for the
 * normalizers of Hugging Face tokenizer.json files: Qwen's tokenizer puts every text in NFC before
 * cutting it, so "é" typed as e + U+0301 gets the same tokens as the one character é.
 *   unicode.normalize(form, text) -> text in form "NFC", "NFD", "NFKC" or "NFKD"
 * Text must be valid UTF-8 (the tokenizer replaces invalid bytes with U+FFFD first). */
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "bind.h"

static int f_normalize(lua_State *L)
{
    static const char *const forms[] = {"NFC", "NFD", "NFKC", "NFKD", NULL};
    static const utf8proc_option_t options[] = {
        UTF8PROC_STABLE | UTF8PROC_COMPOSE, UTF8PROC_STABLE | UTF8PROC_DECOMPOSE,
        UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT, UTF8PROC_STABLE | UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT};
    int form = luaL_checkoption(L, 1, NULL, forms);
    size_t len;
    const char *text = luaL_checklstring(L, 2, &len);
    utf8proc_uint8_t *out = NULL;
    utf8proc_ssize_t n = utf8proc_map((const utf8proc_uint8_t *)text, (utf8proc_ssize_t)len, &out, options[form]);
    if (n < 0)
        return lt_error(L, "normalize: %s", utf8proc_errmsg(n));
    lua_pushlstring(L, (const char *)out, (size_t)n);
    free(out);
    return 1;
}

int luaopen_attn_unicode(lua_State *L)
{
    static const luaL_Reg fns[] = {{"normalize", f_normalize}, {NULL, NULL}};
    lua_newtable(L);
    lt_newpart(L, "unicode", fns, NULL);
    return 1;
}
