/* i18n.c — the embedded translation catalogs, for src/lua/i18n.lua (which reads the .mo format):
 * attn.bind.i18n.files() -> {[name] = bytes} of every file of data_embed.h. The lookup itself is
 * Lua's: a catalog is read once into a table, and the strings stay in Lua's hands.
 *
 * The one exception is the error formats of the C core and of the bindings (attn_fail, lt_error):
 * they are translated in C, before formatting, by the translator the core calls (attn_tr, tensor.h).
 * attn.bind.i18n.use(lang), which i18n.lua calls whenever the language changes, points it at that
 * language's catalog <lang>/lib/core.mo (or at none: English). The lookup is gettext's own: a binary
 * search of the .mo's table of originals, which msgfmt writes sorted; nothing is allocated. */
#include <lauxlib.h>
#include <stdint.h>
#include <string.h>

#include "bind.h"
#include "data_embed.h"

static const attn_data_file *core_catalog; /* NULL: English */

static uint32_t mo_word(const attn_data_file *mo, size_t at, int swap)
{
    uint32_t v;
    if (at + 4 > mo->length) return 0;
    memcpy(&v, mo->data + at, 4);
    return swap ? __builtin_bswap32(v) : v;
}

/* The msgstr of msgid in the .mo file, or NULL. Offsets are checked against the file's length: the
 * file is ours, but a lookup must not read past it whatever msgfmt wrote. */
static const char *mo_lookup(const attn_data_file *mo, const char *msgid)
{
    if (mo->length < 20) return NULL;
    uint32_t magic;
    memcpy(&magic, mo->data, 4);
    int swap = magic == 0xde120495u;
    if (!swap && magic != 0x950412deu) return NULL;
    uint32_t n = mo_word(mo, 8, swap), orig = mo_word(mo, 12, swap), trans = mo_word(mo, 16, swap);
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        uint32_t len = mo_word(mo, (size_t)orig + 8u * mid, swap), off = mo_word(mo, (size_t)orig + 8u * mid + 4, swap);
        if ((size_t)off + len >= mo->length) return NULL;
        int c = strcmp(msgid, mo->data + off); /* the strings are NUL-terminated in the file */
        if (c == 0) {
            uint32_t tlen = mo_word(mo, (size_t)trans + 8u * mid, swap), toff = mo_word(mo, (size_t)trans + 8u * mid + 4, swap);
            if (tlen == 0 || (size_t)toff + tlen >= mo->length) return NULL;
            return mo->data + toff;
        }
        if (c < 0) hi = mid;
        else lo = mid + 1;
    }
    return NULL;
}

static const char *translate(const char *msgid)
{
    const attn_data_file *mo = core_catalog;
    return mo ? mo_lookup(mo, msgid) : NULL;
}

static int l_files(lua_State *L)
{
    lua_newtable(L);
    for (const attn_data_file *f = attn_data_files; f->name; f++) {
        lua_pushlstring(L, f->data, f->length);
        lua_setfield(L, -2, f->name);
    }
    return 1;
}

/* use(lang): the C messages in lang from now on ("en", or a language without the catalog: English). */
static int l_use(lua_State *L)
{
    const char *lang = luaL_checkstring(L, 1);
    core_catalog = NULL;
    size_t n = strlen(lang);
    for (const attn_data_file *f = attn_data_files; f->name; f++)
        if (strncmp(f->name, lang, n) == 0 && strcmp(f->name + n, "/lib/core.mo") == 0) core_catalog = f;
    attn_set_translator(core_catalog ? translate : NULL);
    return 0;
}

int luaopen_attn_i18n(lua_State *L)
{
    static const luaL_Reg fns[] = {{"files", l_files}, {"use", l_use}, {NULL, NULL}};
    lua_newtable(L);
    lt_newpart(L, "i18n", fns, NULL);
    return 1;
}
