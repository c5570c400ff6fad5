/* options.c (bindings) — the trailing options table that stands in for Python's keyword arguments:
 * telling one from a shape or a list (lt_is_options), reading an argument given either by position or
 * by name (lt_arg, with PyTorch's aliases axis and keepdims), and checking every key against the names
 * the function knows, with "did you mean" for a near miss (lt_check_options). Split from args.c, which
 * checks the other kinds of arguments. */
#include <string.h>
#include <strings.h>

#include "bind.h"

int lt_is_options(lua_State *L, int idx)
{
    if (lua_type(L, idx) != LUA_TTABLE)
        return 0;
    if (lua_getmetatable(L, idx)) {
        lua_pop(L, 1);
        return 0; /* a torch.Size, a module, ... */
    }
    return lua_rawlen(L, idx) == 0; /* an array would be a shape or a list of tensors */
}

int lt_options_index(lua_State *L, int first)
{
    int top = lua_gettop(L);
    return (top >= first && lt_is_options(L, top)) ? top : 0;
}

static const char *alias_of(const char *name);

int lt_arg(lua_State *L, int pos, int opts, const char *name)
{
    if (pos != opts && !lua_isnoneornil(L, pos)) {
        lua_pushvalue(L, pos);
        return lua_type(L, -1);
    }
    if (opts) {
        const char *alias = alias_of(name); /* {axis = 1} for dim, {keepdims = true} for keepdim */
        if (lua_getfield(L, opts, name) != LUA_TNIL || !alias)
            return lua_type(L, -1);
        lua_pop(L, 1);
        return lua_getfield(L, opts, alias);
    }
    lua_pushnil(L);
    return LUA_TNIL;
}

/* ---- keyword options: every key checked against the names the function knows ----------------- */

/* PyTorch's numpy-style aliases (python_arg_parser.cpp): where a function takes dim, axis means dim;
 * where it takes keepdim, keepdims means keepdim. */
static const char *alias_of(const char *name)
{
    if (strcmp(name, "dim") == 0)
        return "axis";
    if (strcmp(name, "keepdim") == 0)
        return "keepdims";
    return NULL;
}

/* Edit distance (insertions, deletions, substitutions; letters compared without case, so "Bias" is 0
 * from "bias") between two short option names, capped: names longer than 63 bytes are far from all. */
static int option_distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > 63 || m > 63)
        return 99;
    int row[64];
    for (size_t j = 0; j <= m; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= n; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= m; j++) {
            int ca = a[i - 1] >= 'A' && a[i - 1] <= 'Z' ? a[i - 1] + 32 : a[i - 1];
            int cb = b[j - 1] >= 'A' && b[j - 1] <= 'Z' ? b[j - 1] + 32 : b[j - 1];
            int best = diag + (ca != cb);
            if (row[j] + 1 < best)
                best = row[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            diag = row[j];
            row[j] = best;
        }
    }
    return row[m];
}

/* The known name (or alias) nearest to key when it is a near miss: at most 1 edit for names of up to 4
 * letters, 2 for longer ones (keepdims -> keepdim, Bias -> bias, dims -> dim, diagonals -> diagonal), or
 * one the start of the other, of 3 letters or more (diag -> diagonal, training -> train). */
static const char *near_option(const char *key, const char *const *known)
{
    const char *best = NULL;
    int best_d = 99;
    for (const char *const *k = known; *k; k++) {
        const char *names[2] = {*k, alias_of(*k)};
        for (int i = 0; i < 2 && names[i]; i++) {
            int d = option_distance(key, names[i]);
            size_t shorter = strlen(key) < strlen(names[i]) ? strlen(key) : strlen(names[i]);
            if (shorter >= 3 && strncasecmp(key, names[i], shorter) == 0) /* one starts the other */
                d = 0;
            if (d < best_d) {
                best_d = d;
                best = names[i];
            }
        }
    }
    size_t len = strlen(key);
    return best && best_d <= (len <= 4 ? 1 : 2) ? best : NULL;
}

static int is_known_option(const char *key, const char *const *known)
{
    for (const char *const *k = known; *k; k++) {
        const char *alias = alias_of(*k);
        if (strcmp(key, *k) == 0 || (alias && strcmp(key, alias) == 0))
            return 1;
    }
    return 0;
}

void lt_check_options(lua_State *L, int opts, const char *fn, const char *const *known)
{
    if (!opts)
        return;
    opts = lua_absindex(L, opts);
    lua_pushnil(L);
    while (lua_next(L, opts)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING)
            lt_error(L, "%s: options are given by name, as {dim = 1}; got the key %s", fn, lt_typename(L, -1));
        const char *key = lua_tostring(L, -1);
        if (is_known_option(key, known))
            continue;
        const char *near = near_option(key, known);
        if (near)
            lt_error(L, "%s: unknown option '%s' (did you mean '%s'?)", fn, key, near);
        if (!known[0])
            lt_error(L, "%s: unknown option '%s' (%s takes no options)", fn, key, fn);
        char list[256];
        size_t at = 0;
        for (const char *const *k = known; *k && at < sizeof list; k++)
            at += (size_t)snprintf(list + at, sizeof list - at, "%s%s", k == known ? "" : ", ", *k);
        lt_error(L, "%s: unknown option '%s' (the options are: %s)", fn, key, list);
    }
    for (const char *const *k = known; *k; k++) { /* dim and axis both given: which one is meant? */
        const char *alias = alias_of(*k);
        if (!alias)
            continue;
        int top = lua_gettop(L);
        int both = lua_getfield(L, opts, *k) != LUA_TNIL;
        both = lua_getfield(L, opts, alias) != LUA_TNIL && both;
        lua_settop(L, top);
        if (both)
            lt_error(L, "%s: give %s or its alias %s, not both", fn, *k, alias);
    }
}

int lt_options(lua_State *L, int first, const char *fn, const char *const *known)
{
    int opts = lt_options_index(L, first);
    lt_check_options(L, opts, fn, known);
    return opts;
}
