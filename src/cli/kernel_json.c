/* kernel_json.c — JSON (through cJSON) to Lua values and back, for the kernel's messages and the
 * notebooks --ipynb writes. Lua has one kind of table where JSON has two: a table is written as an
 * array when it carries the metatable json.array gives it (an empty list stays []), or when it has a
 * [1]; otherwise as an object, with its string keys. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "kernel.h"

#define ARRAY_MT "attn.json.array"
#define MAX_DEPTH 200

static void push_value(lua_State *L, const cJSON *v, int depth) {
    luaL_checkstack(L, 4, "JSON nested too deeply");
    if (depth > MAX_DEPTH) {
        lua_pushnil(L);
    } else if (cJSON_IsArray(v)) {
        lua_Integer k = 1;
        lua_createtable(L, cJSON_GetArraySize(v), 0);
        luaL_setmetatable(L, ARRAY_MT);
        for (const cJSON *c = v->child; c; c = c->next) {
            push_value(L, c, depth + 1);
            lua_rawseti(L, -2, k++);
        }
    } else if (cJSON_IsObject(v)) {
        lua_createtable(L, 0, cJSON_GetArraySize(v));
        for (const cJSON *c = v->child; c; c = c->next) {
            if (c->string == NULL) continue;
            push_value(L, c, depth + 1);
            lua_setfield(L, -2, c->string);
        }
    } else if (cJSON_IsString(v)) {
        lua_pushstring(L, v->valuestring);
    } else if (cJSON_IsNumber(v)) {
        double d = v->valuedouble;
        if (d == floor(d) && fabs(d) <= 9007199254740992.0) lua_pushinteger(L, (lua_Integer)d);
        else lua_pushnumber(L, d);
    } else if (cJSON_IsBool(v)) {
        lua_pushboolean(L, cJSON_IsTrue(v));
    } else {
        lua_pushnil(L);
    }
}

void attn_json_push(lua_State *L, const cJSON *v) {
    push_value(L, v, 0);
}

static int is_array(lua_State *L, int idx) {
    int array;
    if (lua_getmetatable(L, idx)) {
        luaL_getmetatable(L, ARRAY_MT);
        array = lua_rawequal(L, -1, -2);
        lua_pop(L, 2);
        if (array) return 1;
    }
    array = lua_rawgeti(L, idx, 1) != LUA_TNIL;
    lua_pop(L, 1);
    return array;
}

static cJSON *from_lua(lua_State *L, int idx, int depth) {
    idx = lua_absindex(L, idx);
    switch (lua_type(L, idx)) {
    case LUA_TNIL: return cJSON_CreateNull();
    case LUA_TBOOLEAN: return cJSON_CreateBool(lua_toboolean(L, idx));
    case LUA_TNUMBER: {
        double d = lua_tonumber(L, idx);
        return isfinite(d) ? cJSON_CreateNumber(d) : cJSON_CreateNull(); /* JSON has no inf or nan */
    }
    case LUA_TSTRING: return cJSON_CreateString(lua_tostring(L, idx));
    case LUA_TTABLE: break;
    default: return NULL;
    }
    if (depth > MAX_DEPTH || !lua_checkstack(L, 4)) return NULL;
    cJSON *out;
    if (is_array(L, idx)) {
        lua_Integer n = (lua_Integer)lua_rawlen(L, idx);
        out = cJSON_CreateArray();
        for (lua_Integer i = 1; out && i <= n; i++) {
            lua_rawgeti(L, idx, i);
            cJSON *item = from_lua(L, -1, depth + 1);
            lua_pop(L, 1);
            if (item == NULL) {
                cJSON_Delete(out);
                return NULL;
            }
            cJSON_AddItemToArray(out, item);
        }
        return out;
    }
    out = cJSON_CreateObject();
    lua_pushnil(L);
    while (out && lua_next(L, idx)) {
        cJSON *item = lua_type(L, -2) == LUA_TSTRING ? from_lua(L, -1, depth + 1) : NULL;
        if (item == NULL) {
            lua_pop(L, 2);
            cJSON_Delete(out);
            return NULL;
        }
        cJSON_AddItemToObject(out, lua_tostring(L, -2), item);
        lua_pop(L, 1);
    }
    return out;
}

cJSON *attn_json_from_lua(lua_State *L, int idx) {
    return from_lua(L, idx, 0);
}

/* json.encode(v [, pretty]) -> text */
static int l_encode(lua_State *L) {
    cJSON *j = attn_json_from_lua(L, 1);
    char *text;
    if (j == NULL) return luaL_error(L, "json.encode: the value holds something JSON cannot say");
    text = lua_toboolean(L, 2) ? cJSON_Print(j) : cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    if (text == NULL) return luaL_error(L, "json.encode: not enough memory");
    lua_pushstring(L, text);
    free(text);
    return 1;
}

/* json.decode(text) -> v, or nil and where the text stops being JSON */
static int l_decode(lua_State *L) {
    size_t len;
    const char *text = luaL_checklstring(L, 1, &len);
    cJSON *j = cJSON_ParseWithLength(text, len);
    if (j == NULL) {
        const char *at = cJSON_GetErrorPtr();
        lua_pushnil(L);
        lua_pushfstring(L, "not valid JSON (at byte %d)", at ? (int)(at - text) : 0);
        return 2;
    }
    attn_json_push(L, j);
    cJSON_Delete(j);
    return 1;
}

/* json.array([t]) -> t, written as a JSON array even when empty */
static int l_array(lua_State *L) {
    if (lua_isnoneornil(L, 1)) lua_newtable(L);
    else luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    luaL_setmetatable(L, ARRAY_MT);
    return 1;
}

int attn_json_open(lua_State *L) {
    static const luaL_Reg f[] = {{"encode", l_encode}, {"decode", l_decode}, {"array", l_array}, {NULL, NULL}};
    luaL_newmetatable(L, ARRAY_MT);
    lua_pop(L, 1);
    luaL_newlib(L, f);
    return 1;
}
