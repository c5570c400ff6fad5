/* cli_absent.c — what the WebAssembly builds of attn (src/web/web.mk) have in place of src/cli's readline
 * REPL (repl.c), Jupyter kernel (kernel*.c, ZeroMQ and OpenSSL) and notebook writer (ipynb.c): a message
 * saying so, in the user's language. The page has its own REPL (src/web/main_page.c, src/web/repl.js). */
#include <stdio.h>

#include <lua.h>

#include "cli.h"
#include "tensor.h"

static int absent(const char *what) {
    fprintf(stderr, attn_tr("attn: %s is not part of this WebAssembly build\n"), what);
    return 0;
}

int attn_repl(lua_State *L) {
    (void)L;
    return absent("the terminal REPL");
}

int attn_kernel(lua_State *L, const char *connection_file) {
    (void)L;
    (void)connection_file;
    return absent("--kernel");
}

int attn_install_kernel(lua_State *L, const char *where) {
    (void)L;
    (void)where;
    return absent("--install-kernel");
}

int attn_ipynb(const char *out, char **files, int nfiles) {
    (void)out;
    (void)files;
    (void)nfiles;
    return absent("--ipynb");
}
