/* main.c — attn's command line. It follows lua5.4's (lua.c): the same options, the same `arg`
 * table, the same exit statuses, and the same structure (collectargs, runargs, pmain run in
 * protected mode, docall with a message handler that adds a traceback). The REPL is in repl.c. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "attn_lua.h"
#include "cli.h"
#include "tensor.h"


static const char *progname = "attn";

/* ---- running chunks -------------------------------------------------------------------------- */

static void l_message(const char *pname, const char *msg) {
    fflush(stdout); /* what the script printed comes before its error */
    if (pname) fprintf(stderr, "%s: ", pname);
    fprintf(stderr, "%s\n", msg);
    fflush(stderr);
}

/* Prints the error message on top of the stack (a string: msghandler made sure of it). */
static int report(lua_State *L, int status) {
    if (status != LUA_OK) {
        const char *msg = lua_tostring(L, -1);
        l_message(progname, msg ? msg : "(error object is not a string)");
        lua_pop(L, 1);
    }
    return status;
}

static int dochunk(lua_State *L, int status) {
    if (status == LUA_OK) status = attn_pcall(L, 0, 0, 0);
    return report(L, status);
}

static int dostring(lua_State *L, const char *s, const char *name) {
    return dochunk(L, luaL_loadbuffer(L, s, strlen(s), name));
}

/* -l mod: require("mod") into global mod; -l g=mod: into global g (as lua 5.4.4). */
static int dolibrary(lua_State *L, const char *spec) {
    int status;
    const char *eq = strchr(spec, '=');
    const char *mod = eq ? eq + 1 : spec;
    lua_getglobal(L, "require");
    lua_pushstring(L, mod);
    status = attn_pcall(L, 1, 1, 0);
    if (status == LUA_OK) {
        if (eq) lua_pushlstring(L, spec, (size_t)(eq - spec));
        else lua_pushstring(L, spec);
        lua_insert(L, -2);
        attn_setglobal(L, lua_tostring(L, -2));
        lua_pop(L, 1);
    }
    return report(L, status);
}

/* The global `arg`: arg[0] is the script, arg[1..] its arguments, the interpreter and its options
 * at negative indices. Without a script, arg[0] is the interpreter. */
static void createargtable(lua_State *L, char **argv, int argc, int script) {
    int i, narg;
    if (script == argc) script = 0;
    narg = argc - (script + 1);
    lua_createtable(L, narg, script + 1);
    for (i = 0; i < argc; i++) {
        lua_pushstring(L, argv[i]);
        lua_rawseti(L, -2, i - script);
    }
    attn_setglobal(L, "arg");
}

/* Pushes arg[1..#arg]: the script's `...`. */
static int pushargs(lua_State *L) {
    int i, n;
    if (lua_getglobal(L, "arg") != LUA_TTABLE) luaL_error(L, "'arg' is not a table");
    n = (int)luaL_len(L, -1);
    luaL_checkstack(L, n + 3, "too many arguments to script");
    for (i = 1; i <= n; i++) lua_rawgeti(L, -i, i);
    lua_remove(L, -i);
    return n;
}

static int handle_script(lua_State *L, char **argv) {
    int status;
    const char *fname = argv[0];
    if (strcmp(fname, "-") == 0 && strcmp(argv[-1], "--") != 0) fname = NULL; /* stdin */
    status = luaL_loadfile(L, fname);
    if (status == LUA_OK) {
        int n = pushargs(L);
        status = attn_pcall(L, n, LUA_MULTRET, 0);
    }
    return report(L, status);
}

/* ---- options ------------------------------------------------------------------------------- */

#define has_error 1  /* bad option */
#define has_i 2      /* -i */
#define has_v 4      /* -v, --version */
#define has_e 8      /* -e */
#define has_h 16     /* -h, --help */
#define has_lesson 32 /* --step, --step=line, --check, --list, --html, --verify, --markdown */

/* The lesson mode asked for (cli.h's ATTN_LESSON_*), and --tap. */
static int lesson_mode = ATTN_LESSON_NONE;
static const char *lesson_mode_option = NULL; /* the option that chose it, "--step" ... */
static const char *lesson_conflict = NULL;    /* set when a second, different mode is asked for */
static int lesson_tap = 0;
static int verify_update = 0; /* --update (with --verify) */
static attn_step_options step_options = {0, 0, NULL, 0}; /* --from N, --clear, --html OUT, --trusted */
static const char *bad_from = NULL;               /* the word given to --from when it is no step number */
/* The Jupyter modes (kernel.c, kernel_install.c, ipynb.c): --kernel FILE, --install-kernel [--user |
 * --prefix P], --ipynb OUT */
static const char *kernel_file = NULL, *ipynb_out = NULL, *kernel_where = NULL;
static int kernel_user = 0, kernel_prefix = 0; /* both given: refused (the later one used to win silently) */
static int install_kernel = 0;

static void print_bad_option(const char *badoption) {
    if (lesson_conflict)
        fprintf(stderr, attn_tr("%s: '%s' cannot go with '%s': one lesson mode at a time\n"), progname, badoption,
                lesson_conflict);
    else if (attn_lang_refused())
        fprintf(stderr, attn_tr("%s: --lang: no catalog for '%s' (there are: %s)\n"), progname, attn_lang_refused(), attn_languages());
    else if (bad_from && bad_from[0] == '\0')
        fprintf(stderr, attn_tr("%s: --from needs a step number (1, 2, ...)\n"), progname);
    else if (bad_from)
        fprintf(stderr, attn_tr("%s: --from needs a step number (1, 2, ...), got '%s'\n"), progname, bad_from);
    else if (((badoption[1] == 'e' || badoption[1] == 'l') && badoption[2] == '\0') || strcmp(badoption, "--html") == 0 ||
             strcmp(badoption, "--kernel") == 0 || strcmp(badoption, "--ipynb") == 0 || strcmp(badoption, "--prefix") == 0)
        fprintf(stderr, attn_tr("%s: '%s' needs argument\n"), progname, badoption);
    else
        fprintf(stderr, attn_tr("%s: unrecognized option '%s'\n"), progname, badoption);
    attn_print_usage(stderr, progname);
}

static void print_version(void) {
    printf("attn %s (%s)\n", ATTN_VERSION, LUA_RELEASE);
    fflush(stdout);
}

/* --from's step number: a whole number from 1 on. Returns 0 (and remembers the word) when it is not. */
static int from_option(const char *value) {
    char *end;
    long n = value ? strtol(value, &end, 10) : 0;
    if (value == NULL || *value == '\0' || *end != '\0' || n < 1 || n > 1000000) {
        bad_from = value ? value : "";
        return 0;
    }
    step_options.from = n;
    return 1;
}

/* Long options (--name). Returns the flags to add, or has_error. */
static int longoption(const char *opt) {
    if (strcmp(opt, "--help") == 0) return has_h;
    if (strcmp(opt, "--version") == 0) return has_v;
    if (strncmp(opt, "--from=", 7) == 0) return from_option(opt + 7) ? 0 : has_error;
    if (strcmp(opt, "--clear") == 0) {
        step_options.clear = 1;
        return 0;
    }
    if (strcmp(opt, "--trusted") == 0) { /* with --verify: notes.c */
        step_options.trusted = 1;
        return 0;
    }
    /* lesson modes: the arguments after the options are lesson files, not a script and its args */
    if (strcmp(opt, "--tap") == 0 || strcmp(opt, "--update") == 0) {
        *(opt[2] == 't' ? &lesson_tap : &verify_update) = 1;
        return 0;
    }
    {
        static const struct { const char *name; int mode; } modes[] = {
            {"--step", ATTN_LESSON_STEP}, {"--step=line", ATTN_LESSON_LINE},
            {"--check", ATTN_LESSON_CHECK}, {"--list", ATTN_LESSON_LIST}, {"--html", ATTN_LESSON_HTML},
            {"--verify", ATTN_LESSON_VERIFY}, {"--markdown", ATTN_LESSON_MARKDOWN},
        };
        for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
            if (strcmp(opt, modes[i].name) == 0) {
                if (lesson_mode != ATTN_LESSON_NONE && lesson_mode != modes[i].mode) {
                    lesson_conflict = lesson_mode_option;
                    return has_error;
                }
                lesson_mode = modes[i].mode;
                lesson_mode_option = modes[i].name;
                return has_lesson;
            }
        }
    }
    return has_error;
}

/* A short option at argv[*i] (-i, -v, -h, -W, -e CODE, -l NAME), as lua.c reads them. Returns the flags
 * to add, or has_error; for -e and -l with their argument in the next word, *i moves past it. */
static int short_option(char **argv, int *i) {
    const char *opt = argv[*i];
    switch (opt[1]) {
    case 'i': return opt[2] == '\0' ? has_i : has_error;
    case 'v': return opt[2] == '\0' ? has_v : has_error;
    case 'h': return opt[2] == '\0' ? has_h : has_error;
    case 'W': return opt[2] == '\0' ? 0 : has_error;
    case 'e':
    case 'l':
        if (opt[2] == '\0') { /* the argument is the next word */
            if (argv[*i + 1] == NULL || argv[*i + 1][0] == '-') return has_error;
            (*i)++;
        }
        return opt[1] == 'e' ? has_e : 0;
    default:
        return has_error;
    }
}

/* A long option at argv[*i] (--name), with the next word for --from N, --html OUT and --lang L (*i
 * then moves past it). Returns the flags to add, or has_error. */
static int long_option_words(char **argv, int *i) {
    const char *opt = argv[*i];
    if (strcmp(opt, "--from") == 0) { /* --from N: the number is the next word */
        if (!from_option(argv[*i + 1])) return has_error;
        (*i)++;
        return 0;
    }
    if (strcmp(opt, "--html") == 0) { /* --html OUT: the page is the next word */
        int f = argv[*i + 1] ? longoption(opt) : has_error;
        if (f == has_error) return has_error;
        step_options.out = argv[++*i];
        return f;
    }
    if (strcmp(opt, "--kernel") == 0 || strcmp(opt, "--ipynb") == 0 || strcmp(opt, "--prefix") == 0) {
        if (argv[*i + 1] == NULL) return has_error;
        *(opt[2] == 'k' ? &kernel_file : opt[2] == 'i' ? &ipynb_out : &kernel_where) = argv[++*i];
        if (opt[2] == 'p') kernel_prefix = 1;
        return 0;
    }
    if (strcmp(opt, "--install-kernel") == 0 || strcmp(opt, "--user") == 0) {
        if (opt[2] == 'i') install_kernel = 1;
        else kernel_where = "user", kernel_user = 1;
        return 0;
    }
    if (strncmp(opt, "--lang", 6) == 0 && (opt[6] == '\0' || opt[6] == '=')) /* lang.c */
        return attn_lang_option(opt[6] ? opt + 7 : argv[++*i]) ? 0 : has_error;
    return longoption(opt);
}

/* Traverses argv, returning the flags needed before running any Lua code (or has_error). *first
 * is the first argument not handled: the script name, or the bad option on error. */
static int collectargs(char **argv, int *first) {
    int args = 0;
    int i;
    for (i = 1; argv[i] != NULL; i++) {
        *first = i;
        if (argv[i][0] != '-') return args; /* the script */
        if (argv[i][1] == '\0') return args; /* '-': the script is stdin */
        if (argv[i][1] == '-' && argv[i][2] == '\0') { /* '--' */
            *first = i + 1;
            return args;
        }
        int f = argv[i][1] == '-' ? long_option_words(argv, &i) : short_option(argv, &i);
        if (f == has_error) return has_error;
        args |= f;
    }
    *first = i; /* no script */
    return args;
}

/* Runs -e, -l and -W in the order given. Returns 0 when one raises an error. */
static int runargs(lua_State *L, char **argv, int n) {
    int i;
    for (i = 1; i < n; i++) {
        int option = argv[i][1];
        if (option == 'e' || option == 'l') {
            int status;
            const char *extra = argv[i] + 2;
            if (*extra == '\0') extra = argv[++i];
            status = option == 'e' ? dostring(L, extra, "=(command line)") : dolibrary(L, extra);
            if (status != LUA_OK) return 0;
        } else if (option == 'W') {
            lua_warning(L, "@on", 0);
        }
    }
    return 1;
}

/* --help and a bad option speak the user's language: the library (src/lua/i18n.lua) decides which,
 * from --lang or the locale, and points the translator (attn_tr) at its catalog before the message. */
static void open_for_messages(lua_State *L) {
    if (attn_open(L) != LUA_OK) lua_pop(L, 1); /* no library: the messages stay English */
}

/* The body of attn, run in protected mode so that no Lua error escapes (as lua.c's pmain). */
static int pmain(lua_State *L) {
    int argc = (int)lua_tointeger(L, 1);
    char **argv = (char **)lua_touserdata(L, 2);
    int script = argc;
    int args = collectargs(argv, &script);
    if (args == has_error || (args & has_h)) open_for_messages(L);
    if (args == has_error) {
        print_bad_option(argv[script]);
        return 0;
    }
    if (args & has_h) {
        attn_print_usage(stdout, progname);
        lua_pushboolean(L, 1);
        return 1;
    }
    if (args & has_v) print_version();
    if (attn_open(L) != LUA_OK) {
        report(L, LUA_ERRRUN);
        return 0;
    }
    createargtable(L, argv, argc, script);
    lua_gc(L, LUA_GCRESTART); /* the GC mode and pace are attn_open's business */
    if (!runargs(L, argv, script)) return 0;
    attn_term_setup(L, attn_color_wanted());
    if ((step_options.from || step_options.clear) && lesson_mode != ATTN_LESSON_STEP &&
        lesson_mode != ATTN_LESSON_LINE) {
        l_message(progname, step_options.from ? attn_tr("--from goes with --step or --step=line")
                                              : attn_tr("--clear goes with --step or --step=line"));
        return 0;
    }
    if (verify_update && lesson_mode != ATTN_LESSON_VERIFY) {
        l_message(progname, attn_tr("--update goes with --verify"));
        return 0;
    }
    if (step_options.trusted && lesson_mode == ATTN_LESSON_NONE && !ipynb_out) {
        l_message(progname, attn_tr("--trusted goes with --verify, --check, --step, --html, --markdown or --ipynb"));
        return 0;
    }
    if (kernel_file) { /* attn as a Jupyter kernel, instead of a script and the REPL */
        lua_pushboolean(L, attn_kernel(L, kernel_file));
        return 1;
    }
    if (kernel_user && kernel_prefix) {
        l_message(progname, attn_tr("--user and --prefix do not go together: --user installs the kernelspec for "
                                    "you, --prefix P under P/share/jupyter"));
        return 0;
    }
    if (install_kernel || kernel_where) {
        if (!install_kernel) l_message(progname, "--user and --prefix go with --install-kernel");
        lua_pushboolean(L, install_kernel && attn_install_kernel(L, kernel_where));
        return 1;
    }
    if (ipynb_out || (args & has_lesson)) {
        /* the lesson modes: a lesson given by path runs restricted, as a note does, unless --trusted;
         * attn's own lessons do not (a script run by attn, busted's specs included, is not a lesson) */
        char own[4096];
        attn_set_lesson_trust(step_options.trusted, attn_own_lessons_dir(own, sizeof own));
    }
    if (ipynb_out) {
        lua_pushboolean(L, attn_ipynb(ipynb_out, argv + script, argc - script));
        return 1;
    }
    if (args & has_lesson) { /* instead of a script and the REPL */
        int mode = lesson_mode == ATTN_LESSON_CHECK && lesson_tap ? ATTN_LESSON_TAP : lesson_mode;
        if (mode == ATTN_LESSON_VERIFY && verify_update) mode = ATTN_LESSON_UPDATE;
        lua_pushboolean(L, attn_lessons(L, mode, argv + script, argc - script, &step_options));
        return 1;
    }
    if (lesson_tap) {
        l_message(progname, attn_tr("--tap goes with --check"));
        return 0;
    }
    if (script < argc && handle_script(L, argv + script) != LUA_OK) return 0;
    if (args & has_i) {
        if (!attn_repl(L)) return 0;
    } else if (script == argc && !(args & (has_e | has_v))) {
        if (isatty(0)) {
            if (!attn_repl(L)) return 0;
        } else if (dochunk(L, luaL_loadfile(L, NULL)) != LUA_OK) {
            return 0;
        }
    }
    lua_pushboolean(L, 1);
    return 1;
}

int main(int argc, char **argv) {
    int status, result;
    lua_State *L = luaL_newstate();
    if (L == NULL) {
        l_message(progname, "cannot create state: not enough memory");
        return EXIT_FAILURE;
    }
    lua_gc(L, LUA_GCSTOP); /* no GC while building the state, as in lua.c */
    lua_pushcfunction(L, pmain);
    lua_pushinteger(L, argc);
    lua_pushlightuserdata(L, argv);
    status = lua_pcall(L, 2, 1, 0);
    result = lua_toboolean(L, -1);
    report(L, status);
    lua_close(L); /* tensors are userdata: closing frees them, which keeps ASan's leak check clean */
    return (result && status == LUA_OK) ? EXIT_SUCCESS : EXIT_FAILURE;
}
