/* safetensors.c (bindings) — safetensors.load_file and safetensors.save_file (the part `safetensors`;
 * the format and its checks are in core/safetensors.c), and json.decode (the part `json`, for
 * config.json and the tokenizer's encoder.json), through cJSON. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "bind.h"
#include "safetensors.h"

/* safetensors.load_file(path) -> {name = tensor, ...}, metadata (a table of strings, or nil); fn names
 * the function the user called in errors. */
static int load(lua_State *L, const char *fn)
{
    if (lua_type(L, 1) != LUA_TSTRING)
        return lt_error(L, "%s: expected a file name, got %s", fn, lt_typename(L, 1));
    if (strlen(lua_tostring(L, 1)) != lua_rawlen(L, 1))
        return lt_error(L, "%s: a file name cannot hold a NUL byte", fn);
    const char *path = lua_tostring(L, 1);
    attn_error err;
    attn_st_file *f = attn_st_load(fn, path, &err);
    if (!f)
        return lt_raise(L, &err);
    lua_createtable(L, 0, f->count);
    for (int i = 0; i < f->count; i++) {
        attn_tensor **slot = lt_newslot(L);
        *slot = f->entries[i].tensor;
        f->entries[i].tensor = NULL;
        lua_setfield(L, -2, f->entries[i].name);
    }
    if (f->meta_count > 0) {
        lua_createtable(L, 0, f->meta_count);
        for (int i = 0; i < f->meta_count; i++) {
            lua_pushstring(L, f->meta_values[i]);
            lua_setfield(L, -2, f->meta_keys[i]);
        }
    } else {
        lua_pushnil(L);
    }
    attn_st_free(f);
    lt_account(L);
    return 2;
}

static int f_load_file(lua_State *L) { return load(L, "safetensors.load_file"); }
/* torch.load's reader (src/lua/checkpoint.lua), its errors naming torch.load */
static int f_torch_load(lua_State *L) { return load(L, "torch.load"); }

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* 1 when the string at idx holds a NUL byte. */
static int has_nul(lua_State *L, int idx)
{
    size_t n;
    const char *s = lua_tolstring(L, idx, &n);
    return strlen(s) != n;
}

/* save_file's arguments checked (a table of named tensors, a file name, metadata a table of strings):
 * the number of tensors, and in *nmeta the number of metadata pairs. */
static int check_save_args(lua_State *L, const char *fn, int *nmeta)
{
    if (lua_type(L, 1) != LUA_TTABLE || lt_test(L, 1))
        return lt_error(L, "%s: expected a table {name = tensor, ...}, got %s", fn, lt_typename(L, 1));
    if (lua_type(L, 2) != LUA_TSTRING)
        return lt_error(L, "%s: expected a file name as the second argument, got %s", fn, lt_typename(L, 2));
    if (has_nul(L, 2))
        return lt_error(L, "%s: a file name cannot hold a NUL byte", fn);
    if (!lua_isnoneornil(L, 3) && lua_type(L, 3) != LUA_TTABLE)
        return lt_error(L, "%s: metadata must be a table of strings, got %s", fn, lt_typename(L, 3));
    int n = 0;
    lua_pushnil(L);
    while (lua_next(L, 1)) {
        int key = lua_gettop(L) - 1, value = lua_gettop(L);
        if (lua_type(L, key) != LUA_TSTRING)
            return lt_error(L, "%s: tensor names must be strings, got %s", fn, lt_typename(L, key));
        /* the C side reads names up to their first NUL: "a\0b" would be "a", and two such names one */
        if (has_nul(L, key))
            return lt_error(L, "%s: a tensor name cannot hold a NUL byte (\"%s\\0...\")", fn, lua_tostring(L, key));
        if (!lt_test(L, value)) {
            const char *what = lt_typename(L, value);
            return lt_error(L, "%s: \"%s\" is %s, not a tensor", fn, lua_tostring(L, key), what);
        }
        n++;
        lua_pop(L, 1);
    }
    if (!lua_isnoneornil(L, 3)) {
        lua_pushnil(L);
        while (lua_next(L, 3)) {
            if (lua_type(L, -2) != LUA_TSTRING || lua_type(L, -1) != LUA_TSTRING)
                return lt_error(L, "%s: metadata must be a table of strings (string keys, string values)", fn);
            if (has_nul(L, -2) || has_nul(L, -1))
                return lt_error(L, "%s: metadata cannot hold a NUL byte (\"%s\")", fn, lua_tostring(L, -2));
            (*nmeta)++;
            lua_pop(L, 1);
        }
    }
    return n;
}

/* The n names of the table at 1 put in the order they are written, with their tensors in ts:
 * int64 first, then float32, then bool, each in name order: every tensor's data then starts at a
 * multiple of its element size, so loading maps it in place instead of copying it. */
static void order_for_file(lua_State *L, const char **names, int n, attn_tensor **ts)
{
    qsort(names, (size_t)n, sizeof *names, by_name);
    static const attn_dtype ORDER[] = {ATTN_INT64, ATTN_FLOAT32, ATTN_BOOL};
    const char **sorted = lua_newuserdatauv(L, (size_t)(n + 1) * sizeof(char *), 0);
    int k = 0;
    for (int pass = 0; pass < 3; pass++)
        for (int i = 0; i < n; i++) {
            lua_getfield(L, 1, names[i]);
            attn_tensor *t = lt_test(L, -1);
            lua_pop(L, 1);
            if (t->dtype == ORDER[pass]) {
                sorted[k] = names[i];
                ts[k++] = t;
            }
        }
    memcpy(names, sorted, (size_t)n * sizeof(char *));
}

/* safetensors.save_file(tensors, path [, metadata]): tensors is {name = tensor}; written in name order.
 * fn names the function the user called in errors. */
static int save(lua_State *L, const char *fn)
{
    int nmeta = 0, n = check_save_args(L, fn, &nmeta);
    /* The arrays live in a userdata so a Lua error cannot leak them. */
    size_t slots = (size_t)(n + 1) + 2 * (size_t)(nmeta + 1);
    const char **names = lua_newuserdatauv(L, slots * sizeof(char *) + (size_t)(n + 1) * sizeof(attn_tensor *), 0);
    const char **keys = names + n + 1, **values = keys + nmeta + 1;
    attn_tensor **ts = (attn_tensor **)(void *)(values + nmeta + 1);
    int i = 0;
    lua_pushnil(L);
    while (lua_next(L, 1)) {
        names[i++] = lua_tostring(L, -2); /* kept alive by the table at 1 */
        lua_pop(L, 1);
    }
    order_for_file(L, names, n, ts);
    i = 0;
    if (nmeta > 0) {
        lua_pushnil(L);
        while (lua_next(L, 3)) {
            keys[i] = lua_tostring(L, -2);
            values[i++] = lua_tostring(L, -1);
            lua_pop(L, 1);
        }
    }
    attn_error err;
    if (attn_st_save(fn, lua_tostring(L, 2), n, names, ts, nmeta, keys, values, &err))
        return lt_raise(L, &err);
    return 0;
}

static int f_save_file(lua_State *L) { return save(L, "safetensors.save_file"); }

/* torch.save's writer (src/lua/checkpoint.lua; no name of the safetensors table): save_file's, its
 * errors naming torch.save. */
static int f_torch_save(lua_State *L)
{
    lua_settop(L, 3);
    return save(L, "torch.save");
}

/* ---- json.decode ---------------------------------------------------------------------------- */

static void push_json(lua_State *L, const cJSON *v, int depth)
{
    luaL_checkstack(L, 4, "json.decode: nested too deeply");
    if (cJSON_IsObject(v) || cJSON_IsArray(v)) {
        int array = cJSON_IsArray(v);
        lua_createtable(L, array ? cJSON_GetArraySize(v) : 0, array ? 0 : cJSON_GetArraySize(v));
        lua_Integer k = 1;
        for (const cJSON *c = v->child; c; c = c->next) {
            push_json(L, c, depth + 1);
            if (array)
                lua_rawseti(L, -2, k++);
            else
                lua_setfield(L, -2, c->string);
        }
    } else if (cJSON_IsString(v)) {
        lua_pushstring(L, v->valuestring);
    } else if (cJSON_IsNumber(v)) {
        double d = v->valuedouble;
        if (d == (double)(lua_Integer)d && d >= -9007199254740992.0 && d <= 9007199254740992.0)
            lua_pushinteger(L, (lua_Integer)d);
        else
            lua_pushnumber(L, d);
    } else if (cJSON_IsBool(v)) {
        lua_pushboolean(L, cJSON_IsTrue(v));
    } else {
        lua_pushnil(L); /* null: absent in a Lua table */
    }
}

/* json.decode(text [, what]) -> a Lua value; what names the text in the error ("config.json"). */
static int f_json_decode(lua_State *L)
{
    size_t len;
    const char *text = luaL_checklstring(L, 1, &len);
    const char *what = luaL_optstring(L, 2, "json.decode");
    cJSON *root = cJSON_ParseWithLength(text, len);
    if (!root) {
        const char *at = cJSON_GetErrorPtr();
        return lt_error(L, "%s: not valid JSON (at byte %ld)", what, at ? (long)(at - text) : 0L);
    }
    push_json(L, root, 0);
    cJSON_Delete(root);
    return 1;
}

int luaopen_attn_safetensors(lua_State *L)
{
    static const luaL_Reg st[] = {{"load_file", f_load_file}, {"save_file", f_save_file}, {"torch_save", f_torch_save},
                                  {"torch_load", f_torch_load}, {NULL, NULL}};
    static const luaL_Reg json[] = {{"decode", f_json_decode}, {NULL, NULL}};
    lua_newtable(L);
    lt_newpart(L, "safetensors", st, NULL);
    lt_newpart(L, "json", json, NULL);
    return 1;
}
