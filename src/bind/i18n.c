/* i18n.c — the embedded translation catalogs, for src/lua/i18n.lua (which reads the .mo format):
 * attn.bind.i18n.files() -> {[name] = bytes} of every file of data_embed.h. The lookup itself is
 * Lua's: a catalog is read once into a table, and the strings stay in Lua's hands. */
#include <lauxlib.h>

#include "bind.h"
#include "data_embed.h"

static int l_files(lua_State *L)
{
    lua_newtable(L);
    for (const attn_data_file *f = attn_data_files; f->name; f++) {
        lua_pushlstring(L, f->data, f->length);
        lua_setfield(L, -2, f->name);
    }
    return 1;
}

int luaopen_attn_i18n(lua_State *L)
{
    static const luaL_Reg fns[] = {{"files", l_files}, {NULL, NULL}};
    lua_newtable(L);
    lt_newpart(L, "i18n", fns, NULL);
    return 1;
}
