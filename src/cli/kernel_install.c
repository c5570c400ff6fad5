/* kernel_install.c — attn --install-kernel [--user | --prefix P]: writes the kernelspecs that tell
 * Jupyter how to start attn (`jupyter kernelspec list` then shows them):
 *     DIR/kernels/attn/kernel.json        {"argv": [this attn, "--kernel", "{connection_file}"], ...}
 *     DIR/kernels/attn-zh_cn/kernel.json  the same with ATTN_LANG=zh_CN: attn's text in Chinese
 * each with the logo (logo-32x32.png, logo-64x64.png, logo-svg.svg: drawn by scripts/kernel-logo.sh,
 * embedded in attn). DIR is Jupyter's: PREFIX/share/jupyter (default /usr/local), or with --user the
 * user's data directory ($JUPYTER_DATA_DIR, else $XDG_DATA_HOME/jupyter, else ~/.local/share/jupyter).
 * What the files say is in Lua (src/lua/kernel/spec.lua); this file makes directories and writes. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lauxlib.h>

#include "cli.h"
#include "platform.h"
#include "safe_write.h"

/* mkdir -p */
static int make_dirs(char *path) {
    for (char *p = path + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        int r = mkdir(path, 0755);
        *p = '/';
        if (r != 0 && errno != EEXIST) return -1;
    }
    return mkdir(path, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

static int data_dir(const char *where, char *out, size_t n) {
    const char *e;
    if (where == NULL) return snprintf(out, n, "/usr/local/share/jupyter") >= (int)n ? -1 : 0;
    if (strcmp(where, "user") != 0) return snprintf(out, n, "%s/share/jupyter", where) >= (int)n ? -1 : 0;
    if ((e = getenv("JUPYTER_DATA_DIR")) && *e) return snprintf(out, n, "%s", e) >= (int)n ? -1 : 0;
    if ((e = getenv("XDG_DATA_HOME")) && *e) return snprintf(out, n, "%s/jupyter", e) >= (int)n ? -1 : 0;
    if ((e = getenv("HOME")) && *e) return snprintf(out, n, "%s/.local/share/jupyter", e) >= (int)n ? -1 : 0;
    return -1;
}

/* Through the one way attn writes a file (core/safe_write.c): a FIFO planted as kernel.json is refused
 * (fopen blocked on it for ever), a symlink is written through, never a half-written file. */
static int write_file(const char *path, const char *data, size_t len) {
    attn_error err;
    if (attn_write_file("--install-kernel", path, data, len, &err) == 0) return 1;
    fprintf(stderr, "attn: %s\n", err.msg);
    return 0;
}

int attn_install_kernel(lua_State *L, const char *where) {
    char dir[PATH_MAX], exe[PATH_MAX];
    int ok = 1;
    if (attn_exe_path(exe, sizeof exe) < 0) {
        fprintf(stderr, "attn: --install-kernel: cannot tell where attn is: %s\n", strerror(errno));
        return 0;
    }
    if (where != NULL && getenv("ATTN_KERNEL_ARGV0")) /* make install: the attn installed, not this one */
        snprintf(exe, sizeof exe, "%s", getenv("ATTN_KERNEL_ARGV0"));
    if (data_dir(where, dir, sizeof dir) != 0) {
        fprintf(stderr, "attn: --install-kernel: no place for the kernelspec (HOME is not set)\n");
        return 0;
    }
    /* spec.files(attn) -> {{name = "attn/kernel.json", data = text}, ...} */
    attn_json_preload(L);
    lua_getglobal(L, "require");
    lua_pushliteral(L, "attn.kernel.spec");
    if (attn_pcall(L, 1, 1, 0) != LUA_OK) {
        fprintf(stderr, "attn: --install-kernel: %s\n", lua_tostring(L, -1));
        return 0;
    }
    lua_getfield(L, -1, "files");
    lua_pushstring(L, exe);
    if (attn_pcall(L, 1, 1, 0) != LUA_OK) {
        fprintf(stderr, "attn: --install-kernel: %s\n", lua_tostring(L, -1));
        return 0;
    }
    for (lua_Integer i = 1; ok && lua_rawgeti(L, -1, i) == LUA_TTABLE; i++) {
        char path[PATH_MAX + 200];
        size_t len;
        lua_getfield(L, -1, "name");
        lua_getfield(L, -2, "data");
        const char *name = lua_tostring(L, -2), *data = lua_tolstring(L, -1, &len);
        snprintf(path, sizeof path, "%s/kernels/%s", dir, name ? name : "?");
        char *slash = strrchr(path, '/');
        *slash = '\0';
        if (make_dirs(path) != 0) {
            fprintf(stderr, "attn: --install-kernel: cannot make %s: %s\n", path, strerror(errno));
            ok = 0;
        }
        *slash = '/';
        ok = ok && data && write_file(path, data, len);
        if (ok && strstr(name, "kernel.json")) printf("%s\n", path);
        lua_pop(L, 3);
    }
    lua_pop(L, 2);
    fflush(stdout);
    return ok;
}
