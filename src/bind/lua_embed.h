/* lua_embed.h — the Lua files of src/lua/, compiled to bytecode and into the binary (see
 * scripts/embed-lua.sh). */
#ifndef ATTN_LUA_EMBED_H
#define ATTN_LUA_EMBED_H
#include <stddef.h>

typedef struct attn_lua_module {
    const char *name; /* the module name, as require names it: "attn.nn.attention" */
    const char *path; /* the file below src/lua: "nn/attention.lua" */
    const char *chunk; /* bytecode, as lua_dump writes it */
    size_t length;
} attn_lua_module;

extern const attn_lua_module attn_lua_modules[]; /* ends with { NULL, NULL, NULL, 0 } */
#endif
