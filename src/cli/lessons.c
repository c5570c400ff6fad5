/* lessons.c — the lesson modes of the command line: --step, --step=line, --check [--tap], --list,
 * --html.
 * The lessons run in Lua (src/lua/lesson/run.lua); this file gives that code what only C can: where
 * the lessons are, a fresh Lua state per lesson for --check (so no lesson sees the globals another
 * one left behind), and for step mode a way back to the core's settings a lesson started with. One
 * key from the terminal is term.c's. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "attn_lua.h"
#include "cli.h"
#include "platform.h"
#include "tensor.h"
#include "format.h"
#include "rng.h"

/* ---- setting up a state ---------------------------------------------------------------------- */

/* Pushes the function run.<name> of attn.lesson.run. */
static int push_runner(lua_State *L, const char *name) {
    return attn_push_function(L, "attn.lesson.run", name, ATTN_CALL_SCRIPT);
}

static void report_top(lua_State *L) {
    const char *msg = lua_tostring(L, -1);
    fflush(stdout);
    fprintf(stderr, "attn: %s\n", msg ? msg : "(error object is not a string)");
    lua_pop(L, 1);
}

/* ---- where the lessons are ------------------------------------------------------------------- */

static int is_dir(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* attn's own lessons, relative to the executable, never the working folder (attn run inside an untrusted
 * checkout must not run its lessons/): lessons/ beside it, ../../lessons for build/asan/attn and the node
 * build's build/wasm/attn.js, or ../share/attn/lessons (make install's; a DESTDIR-staged install finds its
 * own). NULL: none. */
const char *attn_own_lessons_dir(char *buf, size_t size) {
    static const char *const beside[] = {"lessons", "../../lessons", "../share/attn/lessons"};
    char *slash;
    if (attn_exe_path(buf, size - sizeof "../share/attn/lessons") < 0 || (slash = strrchr(buf, '/')) == NULL)
        return NULL;
    int in_build = slash - buf >= 11 && (strncmp(slash - 11, "/build/asan", 11) == 0 ||
                                         strncmp(slash - 11, "/build/wasm", 11) == 0);
    for (size_t i = 0; i < sizeof beside / sizeof beside[0]; i++) {
        if (i == 1 && !in_build) continue; /* only build/asan/attn and build/wasm/attn.js look two folders up */
        strcpy(slash + 1, beside[i]);
        if (is_dir(buf)) {
            char *canonical = realpath(buf, NULL); /* "/usr/local/share/...", not ".../bin/../share/..." */
            if (canonical && strlen(canonical) < size) strcpy(buf, canonical);
            free(canonical);
            return buf;
        }
    }
    return NULL;
}

static int is_lua_file(const struct dirent *e) {
    size_t n = strlen(e->d_name);
    return e->d_name[0] != '.' && n > 4 && strcmp(e->d_name + n - 4, ".lua") == 0;
}

/* Pushes the sorted list of the .lua files in dir as a Lua table; returns how many. */
static int push_lesson_files(lua_State *L, const char *dir) {
    struct dirent **names = NULL;
    int n = dir ? scandir(dir, &names, is_lua_file, alphasort) : 0;
    lua_newtable(L);
    for (int i = 0; i < n; i++) {
        lua_pushfstring(L, "%s/%s", dir, names[i]->d_name);
        lua_rawseti(L, -2, i + 1);
        free(names[i]);
    }
    free(names);
    return n < 0 ? 0 : n;
}

/* ---- the core's settings ---------------------------------------------------------------------- */

/* What the core keeps outside any Lua state: the random generator, the dropout flavour and the print
 * options. Step mode's b, r and g run a lesson again from its start (run.lua); each run starts from
 * the settings the first one started from, as the lesson would in a fresh attn. */
typedef struct {
    attn_print_options print;
    attn_bernoulli_flavor flavor;
    size_t rng_size;
    unsigned char rng[];
} core_settings;

/* reset(): puts the settings saved by push_reset back. */
static int l_reset(lua_State *L) {
    const core_settings *s = lua_touserdata(L, lua_upvalueindex(1));
    attn_error err;
    attn_set_print_options(s->print);
    attn_set_bernoulli_flavor(s->flavor);
    if (attn_rng_set_state(s->rng, s->rng_size, &err) != 0) return luaL_error(L, "%s", err.msg);
    return 0;
}

/* Pushes a function that puts the core's settings back to what they are now. */
static void push_reset(lua_State *L) {
    size_t n = attn_rng_state_size();
    core_settings *s = lua_newuserdatauv(L, sizeof *s + n, 0);
    s->print = attn_get_print_options();
    s->flavor = attn_get_bernoulli_flavor();
    s->rng_size = n;
    attn_rng_get_state(s->rng);
    lua_pushcclosure(L, l_reset, 1);
}

/* ---- the modes ------------------------------------------------------------------------------- */

/* The counts of the lessons run so far: every lesson.check and lesson.agree passed or failed, and how
 * many of them were lesson.agree's identities. */
typedef struct {
    long passed, failed, identities, skipped;
} counts;

/* How a lesson ended: run.file's result.status, or RAN_STOPPED when run.file itself raised an error
 * or said "interrupted" (Ctrl-C: every lesson stops). */
enum { RAN_OK, RAN_QUIT, RAN_ERROR, RAN_STOPPED, RAN_SKIPPED };

static long int_field(lua_State *L, int t, const char *name) {
    lua_getfield(L, t, name);
    long v = (long)lua_tointeger(L, -1);
    lua_pop(L, 1);
    return v;
}

/* --check's line for a lesson that lesson.skip stopped: "skipped N: path: reason", translated. */
static void print_skipped(lua_State *L, long n, const char *path, const char *reason) {
    int top = lua_gettop(L);
    const char *line = NULL;
    if (push_runner(L, "skipped_line")) {
        lua_pushinteger(L, n);
        lua_pushstring(L, path);
        lua_pushstring(L, reason);
        if (attn_pcall(L, 3, 1, ATTN_CALL_SCRIPT) == LUA_OK) line = lua_tostring(L, -1);
    }
    if (line) printf("%s\n", line);
    else printf(attn_tr("skipped %ld: %s: %s\n"), n, path, reason);
    lua_settop(L, top);
}

/* run.file(path, {mode=, tap=, first=, from=, clear=, reset=}) -> {status=, passed=, failed=,
 * identities=}: adds to the counts and returns how the lesson ended. step: --from and --clear (NULL
 * in --check). */
static int run_file(lua_State *L, const char *path, const char *mode, int tap, const attn_step_options *step,
                    counts *n) {
    int how = RAN_ERROR;
    if (!push_runner(L, "file")) {
        report_top(L);
        n->failed++;
        return how;
    }
    lua_pushstring(L, path);
    lua_createtable(L, 0, 3);
    lua_pushstring(L, mode);
    lua_setfield(L, -2, "mode");
    lua_pushboolean(L, tap);
    lua_setfield(L, -2, "tap");
    lua_pushinteger(L, n->passed + n->failed + n->skipped + 1);
    lua_setfield(L, -2, "first");
    if (step) {
        if (step->from > 0) {
            lua_pushinteger(L, step->from);
            lua_setfield(L, -2, "from");
        }
        lua_pushboolean(L, step->clear);
        lua_setfield(L, -2, "clear");
        push_reset(L);
        lua_setfield(L, -2, "reset");
    }
    if (attn_pcall(L, 2, 1, ATTN_CALL_SCRIPT) != LUA_OK) {
        report_top(L);
        n->failed++;
        return RAN_STOPPED;
    }
    int result = lua_gettop(L);
    n->passed += int_field(L, result, "passed");
    n->failed += int_field(L, result, "failed");
    n->identities += int_field(L, result, "identities");
    lua_getfield(L, result, "status");
    const char *status = lua_tostring(L, -1);
    if (status && strcmp(status, "ok") == 0) how = RAN_OK;
    else if (status && strcmp(status, "quit") == 0) how = RAN_QUIT;
    else if (status && strcmp(status, "interrupted") == 0) how = RAN_STOPPED;
    else if (status && strcmp(status, "skipped") == 0) {
        /* lesson.skip: the lesson cannot run here (files it needs are missing): neither passed nor failed.
         * TAP shows it as a skipped test, numbered after the checks so far. */
        how = RAN_SKIPPED;
        n->skipped++;
        lua_getfield(L, result, "reason");
        const char *reason = lua_isstring(L, -1) ? lua_tostring(L, -1) : "";
        if (strcmp(mode, "check") == 0 && tap)
            printf("ok %ld - %s # SKIP %s\n", n->passed + n->failed + n->skipped, path, reason);
        else if (strcmp(mode, "check") == 0) /* in the language of attn's text: run.skipped_line says it */
            print_skipped(L, n->skipped, path, reason);
        lua_settop(L, result + 1);
    }
    lua_pop(L, 2);
    return how;
}

/* The lesson file a name given on the command line stands for ("01_simple_attention" finds
 * lessons/01_simple_attention.lua; run.resolve says how), else the name itself. The string stays on
 * L's stack. */
static const char *resolve_path(lua_State *L, const char *name, const char *dir) {
    if (push_runner(L, "resolve")) {
        lua_pushstring(L, name);
        if (dir) lua_pushstring(L, dir);
        else lua_pushnil(L);
        if (attn_pcall(L, 2, 1, ATTN_CALL_SCRIPT) == LUA_OK && lua_isstring(L, -1)) return lua_tostring(L, -1);
    }
    return name;
}

/* One lesson checked in a Lua state of its own, added to the counts c. 1 when it stopped the run
 * (Ctrl-C, or run.file itself failed). */
static int check_one(const char *path, int tap, counts *c) {
    int stop = 0;
    lua_State *LL = luaL_newstate();
    if (LL == NULL) {
        fprintf(stderr, attn_tr("attn: %s: cannot create state: not enough memory\n"), path);
        c->failed++;
        return 0;
    }
    lua_gc(LL, LUA_GCSTOP);
    if (attn_open(LL) != LUA_OK) {
        report_top(LL);
        c->failed++;
    } else {
        lua_gc(LL, LUA_GCRESTART);
        attn_term_setup(LL, 0);
        stop = run_file(LL, path, "check", tap, NULL, c) == RAN_STOPPED;
    }
    lua_close(LL);
    fflush(stdout);
    return stop;
}

/* --check's closing lines: TAP's plan, how many checks were identities, "N passed, N failed". */
static void check_summary(lua_State *L, const counts *c, int tap) {
    int top = lua_gettop(L);
    if (tap) printf("1..%ld\n", c->passed + c->failed + c->skipped);
    if (c->identities > 0) { /* in the language of attn's text: run.check_summary says it */
        const char *line = NULL;
        if (push_runner(L, "check_summary")) {
            lua_pushinteger(L, c->passed + c->failed);
            lua_pushinteger(L, c->identities);
            if (attn_pcall(L, 2, 1, ATTN_CALL_SCRIPT) == LUA_OK) line = lua_tostring(L, -1);
        }
        printf("%s%s\n", tap ? "# " : "", line ? line : "");
        lua_settop(L, top);
    }
    if (c->skipped > 0) /* the closing line's form: "N passed, N failed, N skipped" */
        printf("%s%ld passed, %ld failed, %ld skipped\n", tap ? "# " : "", c->passed, c->failed, c->skipped);
    else
        printf("%s%ld passed, %ld failed\n", tap ? "# " : "", c->passed, c->failed);
    fflush(stdout);
}

/* --check: every lesson in a state of its own, without colour; failures (or TAP) and a summary:
 * how many checks were identities (lesson.agree), then "N passed, N failed" as the last line. */
static int check_all(lua_State *L, char **files, int nfiles, int tap) {
    counts c = {0, 0, 0, 0};
    int n = nfiles;
    char buf[4096];
    if (n == 0) { /* no files: every lesson there is */
        n = push_lesson_files(L, attn_own_lessons_dir(buf, sizeof buf));
        if (n == 0) {
            fprintf(stderr, attn_tr("attn: --check: no lessons given and none found next to attn\n"));
            lua_pop(L, 1);
            return 0;
        }
    }
    for (int i = 0; i < n; i++) {
        const char *path;
        if (nfiles > 0) {
            path = files[i];
        } else {
            lua_rawgeti(L, -1, i + 1);
            path = lua_tostring(L, -1);
            lua_pop(L, 1); /* the string stays in the table */
        }
        if (check_one(path, tap, &c)) break;
    }
    if (nfiles == 0) lua_pop(L, 1);
    check_summary(L, &c, tap);
    return c.failed == 0;
}

/* --step / --step=line: the lessons one after another in this state; q ends them all. --from is the
 * first lesson's. */
static int step_all(lua_State *L, char **files, int nfiles, const char *mode, const attn_step_options *step) {
    attn_step_options opts = *step;
    counts c = {0, 0, 0, 0};
    char buf[4096];
    const char *dir = attn_own_lessons_dir(buf, sizeof buf);
    if (nfiles == 0) {
        fprintf(stderr, attn_tr("attn: --step needs a lesson file (./attn --list shows them)\n"));
        return 0;
    }
    for (int i = 0; i < nfiles; i++) {
        int how;
        const char *path = resolve_path(L, files[i], dir);
        how = run_file(L, path, mode, 0, &opts, &c);
        opts.from = 0;
        lua_settop(L, 0);
        if (how == RAN_QUIT) return 1;
        if (how != RAN_OK) return 0;
    }
    return 1;
}

/* Where --html writes the lesson at path: OUT itself for one lesson, OUT/NAME.html for several. */
static void page_name(char *page, size_t size, const char *out, const char *path, int nfiles) {
    if (nfiles > 1) {
        const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        size_t n = strlen(base);
        if (n > 4 && strcmp(base + n - 4, ".lua") == 0) n -= 4;
        snprintf(page, size, "%s/%.*s.html", out, (int)n, base);
    } else {
        snprintf(page, size, "%s", out);
    }
}

/* One lesson run and written as a web page by lesson/html.lua's file(path, page, inputs), and its line:
 * where the page went, its size, its checks. 0 when it could not be run (the error reported) or a
 * check failed. */
static int html_page(lua_State *L, const char *path, const char *page, char **files, int nfiles) {
    int ran = attn_push_function(L, "attn.lesson.html", "file", ATTN_CALL_SCRIPT);
    if (ran) {
        lua_pushstring(L, path);
        lua_pushstring(L, page);
        lua_createtable(L, nfiles, 0); /* the inputs: never written over (html.lua) */
        for (int i = 0; i < nfiles; i++) lua_pushstring(L, files[i]), lua_rawseti(L, -2, i + 1);
        ran = attn_pcall(L, 3, 2, ATTN_CALL_SCRIPT) == LUA_OK;
    }
    if (!ran) {
        report_top(L);
        return 0;
    }
    long passed = int_field(L, -2, "passed"), failed = int_field(L, -2, "failed");
    lua_getfield(L, -2, "status");
    int skipped = lua_isstring(L, -1) && strcmp(lua_tostring(L, -1), "skipped") == 0;
    lua_pop(L, 1);
    printf(attn_tr("%s: %s (%ld bytes; checks: %ld passed, %ld failed%s)\n"), path, page, (long)lua_tointeger(L, -1),
           passed, failed, skipped ? attn_tr("; the lesson was skipped: its page says why") : "");
    return failed == 0;
}

/* --html OUT LESSON...: each lesson in a state of its own, as --check runs it, written as a web page
 * (src/lua/lesson/html.lua): to OUT for one lesson, to OUT/NAME.html for several (OUT a folder,
 * made when missing). One line per page says where it went, its size and its checks; the exit
 * status is 1 when a page could not be written or a check failed. */
static int html_all(char **files, int nfiles, const char *out) {
    char buf[4096], page[4096];
    const char *dir = attn_own_lessons_dir(buf, sizeof buf);
    int ok = 1;
    if (nfiles == 0) {
        fprintf(stderr, attn_tr("attn: --html needs a lesson file after the page's name (./attn --list shows them)\n"));
        return 0;
    }
    if (nfiles > 1 && !is_dir(out) && mkdir(out, 0777) != 0) {
        fprintf(stderr, attn_tr("attn: --html: cannot make the folder %s for %d pages: %s\n"), out, nfiles, strerror(errno));
        return 0;
    }
    for (int i = 0; i < nfiles; i++) {
        lua_State *L = luaL_newstate();
        if (L == NULL) {
            fprintf(stderr, attn_tr("attn: %s: cannot create state: not enough memory\n"), files[i]);
            ok = 0;
            continue;
        }
        lua_gc(L, LUA_GCSTOP);
        int opened = attn_open(L) == LUA_OK;
        lua_gc(L, LUA_GCRESTART);
        attn_term_setup(L, 0);
        const char *path = opened ? resolve_path(L, files[i], dir) : files[i];
        page_name(page, sizeof page, out, path, nfiles);
        if (!opened) {
            report_top(L);
            ok = 0;
        } else if (!html_page(L, path, page, files, nfiles)) {
            ok = 0;
        }
        lua_close(L);
        fflush(stdout);
    }
    return ok;
}

static int list_all(lua_State *L, char **files, int nfiles) {
    char buf[4096];
    if (!push_runner(L, "list")) {
        report_top(L);
        return 0;
    }
    if (nfiles > 0) {
        lua_createtable(L, nfiles, 0);
        for (int i = 0; i < nfiles; i++) {
            lua_pushstring(L, files[i]);
            lua_rawseti(L, -2, i + 1);
        }
    } else if (push_lesson_files(L, attn_own_lessons_dir(buf, sizeof buf)) == 0) {
        fprintf(stderr, attn_tr("attn: --list: no lessons found next to attn\n"));
        lua_pop(L, 2);
        return 0;
    }
    if (attn_pcall(L, 1, 0, ATTN_CALL_SCRIPT) != LUA_OK) {
        report_top(L);
        return 0;
    }
    return 1;
}

int attn_lessons(lua_State *L, int mode, char **files, int nfiles, const attn_step_options *step) {
    switch (mode) {
    case ATTN_LESSON_STEP: return step_all(L, files, nfiles, "step", step);
    case ATTN_LESSON_LINE: return step_all(L, files, nfiles, "line", step);
    case ATTN_LESSON_CHECK: return check_all(L, files, nfiles, 0);
    case ATTN_LESSON_TAP: return check_all(L, files, nfiles, 1);
    case ATTN_LESSON_LIST: return list_all(L, files, nfiles);
    case ATTN_LESSON_HTML: return html_all(files, nfiles, step->out);
    default: return 0;
    }
}
