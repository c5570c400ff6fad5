/* markdown.c — the code blocks of a Markdown text, found by libcmark (Debian's CommonMark parser), for
 * `attn --verify` (src/lua/verify/). CommonMark's rules for where a block starts and ends (fences of
 * backticks or tildes, code inside list items and block quotes, indented code, a fence that a
 * container's end closes) are many; the reference parser applies them as readers' tools do, so a
 * block attn runs is the block a reader sees.
 *
 *   markdown.code_blocks(text) -> {{info =, code =, line =, last =, column =}, ...}
 *     in document order: info is the fence's info string ("lua", "output", "" for indented code),
 *     code the block's text with its container's indentation removed, line and last the block's first
 *     and last lines in text (the fences included), column its first column (1-based, in bytes).
 *
 * Which fences close and what the blocks mean are attn's rules, in Lua (verify/blocks.lua). */
#include <cmark.h>
#include <string.h>

#include "bind.h"

static void set_int(lua_State *L, const char *name, int v) {
    lua_pushinteger(L, v);
    lua_setfield(L, -2, name);
}

static int l_code_blocks(lua_State *L) {
    size_t len;
    const char *text = luaL_checklstring(L, 1, &len);
    cmark_node *doc = cmark_parse_document(text, len, CMARK_OPT_SOURCEPOS);
    if (doc == NULL) return lt_error(L, "markdown.code_blocks: cannot parse (not enough memory)");
    cmark_iter *it = cmark_iter_new(doc);
    if (it == NULL) {
        cmark_node_free(doc);
        return lt_error(L, "markdown.code_blocks: cannot parse (not enough memory)");
    }
    lua_newtable(L);
    lua_Integer n = 0;
    cmark_event_type ev;
    while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
        cmark_node *node = cmark_iter_get_node(it);
        if (ev != CMARK_EVENT_ENTER || cmark_node_get_type(node) != CMARK_NODE_CODE_BLOCK) continue;
        const char *info = cmark_node_get_fence_info(node);
        const char *code = cmark_node_get_literal(node);
        lua_createtable(L, 0, 5);
        lua_pushstring(L, info ? info : "");
        lua_setfield(L, -2, "info");
        lua_pushstring(L, code ? code : "");
        lua_setfield(L, -2, "code");
        set_int(L, "line", cmark_node_get_start_line(node));
        set_int(L, "last", cmark_node_get_end_line(node));
        set_int(L, "column", cmark_node_get_start_column(node));
        lua_rawseti(L, -2, ++n);
    }
    cmark_iter_free(it);
    cmark_node_free(doc);
    return 1;
}

static const luaL_Reg markdown_fns[] = {{"code_blocks", l_code_blocks}, {NULL, NULL}};

int luaopen_attn_markdown(lua_State *L) {
    lua_newtable(L);
    lt_newpart(L, "markdown", markdown_fns, NULL);
    return 1;
}
