/* repl.c — attn's interactive loop: reads lines (GNU readline on a terminal, plain getline
 * otherwise, so pipes work), keeps the history in ~/.attn_history, completes names with Tab, and
 * hands every chunk to the Lua module attn.repl (src/lua/repl/init.lua), which decides whether a chunk
 * is complete, runs it and prints its values or its error. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <readline/history.h>
#include <readline/readline.h>

#include <lauxlib.h>
#include <lua.h>

#include "attn_lua.h"
#include "cli.h"
#include "tensor.h"


#define PROMPT "attn> "
#define PROMPT2 "  ..> "
/* \001 and \002 tell readline that what they enclose takes no room on the screen. */
#define COLOR_PROMPT "\001\033[1;32m\002attn>\001\033[0m\002 "
#define COLOR_PROMPT2 "\001\033[32m\002  ..>\001\033[0m\002 "
#define HISTORY_FILE ".attn_history"
#define HISTORY_MAX 1000

/* Readline's callbacks take no context, so the state they need is here. */
static lua_State *replL;
static int use_readline; /* stdin is a terminal */
static int use_color;
static char *history_path; /* NULL: no history file (no HOME, or not writable) */
static volatile sig_atomic_t prompt_interrupted;

/* The candidates of the last Tab, handed to readline one per call (see complete). */
static char **candidates;
static size_t ncandidates;

/* ---- Ctrl-C at the prompt -------------------------------------------------------------------- */

/* While a line is being read, Ctrl-C only raises a flag; the reader sees it because the read()
 * it is blocked in fails with EINTR (the handler is installed without SA_RESTART). */
static void on_prompt_sigint(int sig) {
    (void)sig;
    prompt_interrupted = 1;
}

static void install_prompt_handler(struct sigaction *old) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_prompt_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, old);
}

/* Readline's own SIGINT handling only cleans up and re-raises; it does not abandon the line. So
 * readline reads its keys through this function, which, after a Ctrl-C, shows ^C, empties the
 * line and hands readline a Return: readline() returns "" and the loop sees the flag. */
static int getc_or_interrupt(FILE *f) {
    for (;;) {
        unsigned char c;
        ssize_t n;
        if (prompt_interrupted) {
            rl_point = rl_end;
            rl_redisplay();
            fputs("^C", rl_outstream);
            rl_replace_line("", 0);
            return '\n';
        }
        n = read(fileno(f), &c, 1);
        if (n == 1) return c;
        if (n == 0 || errno != EINTR) return EOF;
    }
}

/* ---- history --------------------------------------------------------------------------------- */

/* Reads ~/.attn_history. Without HOME, or when the file cannot be written, history still works
 * for the session; it is just not kept. */
static void history_open(void) {
    const char *home = getenv("HOME");
    size_t n;
    int fd;
    stifle_history(HISTORY_MAX);
    if (home == NULL || home[0] == '\0') return;
    n = strlen(home) + sizeof "/" HISTORY_FILE;
    history_path = malloc(n);
    if (history_path == NULL) return;
    snprintf(history_path, n, "%s/%s", home, HISTORY_FILE);
    read_history(history_path); /* a missing file is fine */
    /* append_history() below does not create the file, so make sure it exists. */
    fd = open(history_path, O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (fd < 0) {
        free(history_path);
        history_path = NULL;
        return;
    }
    close(fd);
}

static void history_close(void) {
    free(history_path);
    history_path = NULL;
    clear_history();
}

/* Adds a complete chunk to the history (not blank ones, not the same chunk twice in a row) and
 * appends it to the file at once, so a crash or os.exit() loses nothing. */
static void history_add(const char *chunk) {
    HIST_ENTRY *last;
    if (chunk[strspn(chunk, " \t\n")] == '\0') return;
    last = history_length > 0 ? history_get(history_base + history_length - 1) : NULL;
    if (last != NULL && strcmp(last->line, chunk) == 0) return;
    add_history(chunk);
    if (history_path != NULL && append_history(1, history_path) == 0)
        history_truncate_file(history_path, HISTORY_MAX);
}

/* out.accept for repl.eval: called with each complete chunk before it runs. */
static int l_accept(lua_State *L) {
    history_add(luaL_checkstring(L, 1));
    return 0;
}

/* The `out` table handed to every repl.eval: on a terminal, the history sees each complete chunk,
 * and errors after a Ctrl-C start on a line of their own (repl.write_error). */
static void push_out(lua_State *L) {
    lua_newtable(L);
    if (use_readline) {
        lua_pushcfunction(L, l_accept);
        lua_setfield(L, -2, "accept");
        lua_pushboolean(L, 1);
        lua_setfield(L, -2, "interactive");
    }
}


/* ---- completion ------------------------------------------------------------------------------ */

/* Pushes require("attn.repl")[name] (src/lua/repl/init.lua). Returns 0, with the error pushed instead,
 * when the module cannot be loaded. */
static int push_repl_function(lua_State *L, const char *name) {
    return attn_push_function(L, "attn.repl", name, ATTN_CALL_INTERACTIVE);
}

static void free_candidates(void) {
    for (size_t i = 0; i < ncandidates; i++) free(candidates[i]);
    free(candidates);
    candidates = NULL;
    ncandidates = 0;
}

/* Copies the list of strings on top of the stack into candidates. */
static void take_candidates(lua_State *L) {
    size_t n = (size_t)lua_rawlen(L, -1);
    free_candidates();
    candidates = calloc(n ? n : 1, sizeof *candidates);
    if (candidates == NULL) return;
    for (size_t i = 0; i < n; i++) {
        if (lua_rawgeti(L, -1, (lua_Integer)i + 1) == LUA_TSTRING) {
            char *s = strdup(lua_tostring(L, -1));
            if (s != NULL) candidates[ncandidates++] = s;
        }
        lua_pop(L, 1);
    }
}

/* Hands readline the candidates of the last Tab, one per call. */
static char *next_candidate(const char *text, int state) {
    static size_t i;
    (void)text;
    if (state == 0) i = 0;
    if (i >= ncandidates) return NULL;
    return strdup(candidates[i++]); /* readline frees it */
}

/* Tab: asks repl.complete(text) for the candidates. Never falls back to file names. */
static char **complete(const char *text, int start, int end) {
    lua_State *L = replL;
    int top = lua_gettop(L);
    char **matches;
    (void)start;
    (void)end;
    rl_attempted_completion_over = 1;
    rl_completion_append_character = '\0'; /* `torch.softmax` then `(`, not a space */
    if (!push_repl_function(L, "complete")) {
        lua_settop(L, top);
        return NULL;
    }
    lua_pushstring(L, text);
    /* Completing `x.<Tab>` runs the __index of the user's x, which may never return: Ctrl-C stops it as
     * it stops a chunk, and then abandons the line as Ctrl-C at the prompt does. */
    if (attn_pcall(L, 1, 1, ATTN_CALL_INTERACTIVE) != LUA_OK || !lua_istable(L, -1)) {
        const char *msg = lua_tostring(L, -1);
        if (msg != NULL && strcmp(msg, "interrupted") == 0) prompt_interrupted = 1;
        lua_settop(L, top);
        return NULL;
    }
    take_candidates(L);
    lua_settop(L, top);
    matches = rl_completion_matches(text, next_candidate);
    free_candidates();
    return matches;
}

/* ---- reading lines --------------------------------------------------------------------------- */

enum { READ_LINE, READ_EOF, READ_CANCEL };

/* Reads one line into *line (malloc'd, without its newline). */
static int read_line(int first, char **line) {
    prompt_interrupted = 0;
    if (use_readline) {
        if (use_color) *line = readline(first ? COLOR_PROMPT : COLOR_PROMPT2);
        else *line = readline(first ? PROMPT : PROMPT2);
    } else {
        size_t cap = 0;
        ssize_t n;
        *line = NULL;
        errno = 0;
        n = getline(line, &cap, stdin);
        if (n < 0) {
            free(*line);
            *line = NULL;
            if (prompt_interrupted) clearerr(stdin);
        } else if (n > 0 && (*line)[n - 1] == '\n') {
            (*line)[n - 1] = '\0';
        }
    }
    if (prompt_interrupted) {
        free(*line);
        *line = NULL;
        return READ_CANCEL;
    }
    return *line ? READ_LINE : READ_EOF;
}

/* ---- evaluation ------------------------------------------------------------------------------ */

/* An error outside the user's chunk (in src/lua/repl/ itself, or a Ctrl-C that came while it was not
 * running the user's code), printed by repl.write_error like every other; plainly if even that fails. */
static void print_error(lua_State *L, const char *msg) {
    int top = lua_gettop(L);
    if (push_repl_function(L, "write_error")) {
        lua_pushstring(L, msg);
        lua_pushboolean(L, use_readline);
        if (lua_pcall(L, 2, 0, 0) == LUA_OK) {
            lua_settop(L, top);
            return;
        }
    }
    lua_settop(L, top);
    fflush(stdout);
    fprintf(stderr, attn_tr("error: %s\n"), msg);
    fflush(stderr);
}

/* Calls repl.eval(chunk, out, at_eof). Returns 1 when the chunk needs more lines. Errors of the
 * chunk are printed by repl.eval; an error here is one in src/lua/repl/ itself, or a Ctrl-C that
 * arrived while it was not running the user's code. */
static int eval_chunk(lua_State *L, const char *chunk, int at_eof) {
    int incomplete = 0;
    int top = lua_gettop(L);
    int loaded = push_repl_function(L, "eval");
    if (loaded) {
        lua_pushstring(L, chunk);
        push_out(L);
        lua_pushboolean(L, at_eof);
    }
    if (!loaded || attn_pcall(L, 3, 1, ATTN_CALL_INTERACTIVE) != LUA_OK) {
        const char *msg = lua_tostring(L, -1);
        print_error(L, msg ? msg : "(error object is not a string)");
    } else {
        const char *r = lua_tostring(L, -1);
        incomplete = r != NULL && strcmp(r, "incomplete") == 0;
    }
    fflush(stdout);
    lua_settop(L, top);
    return incomplete;
}

/* Appends line to the chunk being gathered (*chunk == NULL: none yet). */
static char *append_line(char *chunk, const char *line) {
    int more = chunk != NULL;
    size_t a = more ? strlen(chunk) : 0, b = strlen(line);
    char *s = realloc(chunk, a + b + 2);
    if (s == NULL) {
        free(chunk);
        return NULL;
    }
    if (more) s[a++] = '\n';
    memcpy(s + a, line, b + 1);
    return s;
}

/* ---- setup ----------------------------------------------------------------------------------- */

/* Checks that attn.repl loads. */
static int load_module(lua_State *L) {
    if (!attn_push_function(L, "attn.repl", NULL, ATTN_CALL_INTERACTIVE) || !lua_istable(L, -1)) {
        const char *msg = lua_tostring(L, -1);
        fprintf(stderr, attn_tr("attn: cannot start the REPL: %s\n"), msg ? msg : "attn.repl is not a table");
        lua_pop(L, 1);
        return 0;
    }
    if (lua_getfield(L, -1, "second_interrupt") == LUA_TSTRING) /* translated once, for the signal handler */
        attn_set_second_interrupt_message(lua_tostring(L, -1));
    lua_pop(L, 2);
    return 1;
}

static void readline_open(void) {
    rl_readline_name = "attn"; /* for `$if attn` in ~/.inputrc */
    rl_catch_signals = 0;      /* SIGINT is ours (see getc_or_interrupt) */
    rl_getc_function = getc_or_interrupt;
    rl_attempted_completion_function = complete;
    /* `.` and `:` are not word breaks, so torch.so<Tab> and t:ma<Tab> complete as one word. */
    rl_completer_word_break_characters = " \t\n\"'`@$><=;|&{(,)}[]+-*/%^~#!";
    history_open();
}

/* Since readline 8.1, leaving bracketed-paste mode at Ctrl-D ends the line itself; a second
 * newline would leave a blank line behind. */
static int readline_ended_line(void) {
#if RL_READLINE_VERSION >= 0x0801
    const char *bp = rl_variable_value("enable-bracketed-paste");
    return bp != NULL && strcmp(bp, "on") == 0;
#else
    return 0;
#endif
}

/* The banner, in the language of attn's text: attn.repl.banner (src/lua/repl/init.lua) says it. */
static void print_banner(lua_State *L) {
    const char *text = NULL;
    int top = lua_gettop(L);
    if (attn_push_function(L, "attn.repl", "banner", ATTN_CALL_SCRIPT) && lua_isfunction(L, -1)) {
        lua_pushliteral(L, ATTN_VERSION);
        lua_pushliteral(L, LUA_VERSION);
        if (attn_pcall(L, 2, 1, ATTN_CALL_SCRIPT) == LUA_OK) text = lua_tostring(L, -1);
    }
    if (text) printf("%s\n", text);
    else printf("attn %s — %s\n", ATTN_VERSION, LUA_VERSION);
    lua_settop(L, top);
    fflush(stdout);
}

/* The next input to handle (malloc'd; more than one line when pasted), or NULL at the end. Ctrl-C at
 * the prompt (readline has shown ^C and moved to a new line) drops the chunk gathered so far; Ctrl-D
 * in the middle of a chunk evaluates it to report what is wrong, and in a terminal reading goes on. */
static char *read_input(lua_State *L, char **chunk) {
    for (;;) {
        char *input = NULL;
        int r = read_line(*chunk == NULL, &input);
        if (r == READ_CANCEL) {
            free(*chunk);
            *chunk = NULL;
            continue;
        }
        if (r != READ_EOF) return input;
        if (use_readline && !readline_ended_line()) fputs("\n", stdout);
        if (*chunk == NULL) return NULL;
        eval_chunk(L, *chunk, 1);
        free(*chunk);
        *chunk = NULL;
        if (!use_readline) return NULL;
    }
}

/* The loop. Lines come one by one; a line read by readline may hold several (a paste), and each
 * is handled as if typed. Returns 1, or 0 when the REPL could not start. */
int attn_repl(lua_State *L) {
    char *chunk = NULL; /* lines gathered so far for an incomplete chunk */
    char *input = NULL; /* what the last read returned, and where its next line starts */
    char *next = NULL;
    struct sigaction old_sigint;
    replL = L;
    use_readline = isatty(0);
    use_color = attn_color_wanted();
    if (!load_module(L)) return 0;
    if (use_readline) {
        readline_open();
        print_banner(L);
    }
    install_prompt_handler(&old_sigint);
    for (;;) {
        char *line, *nl;
        if (next == NULL) {
            free(input);
            input = next = read_input(L, &chunk);
            if (input == NULL) break;
        }
        line = next;
        nl = strchr(line, '\n');
        if (nl != NULL) {
            *nl = '\0';
            next = nl + 1;
        } else {
            next = NULL;
        }
        chunk = append_line(chunk, line);
        if (chunk == NULL) break; /* out of memory */
        if (!eval_chunk(L, chunk, 0)) {
            free(chunk);
            chunk = NULL;
        }
    }
    free(input);
    free(chunk);
    if (use_readline) history_close();
    sigaction(SIGINT, &old_sigint, NULL);
    fflush(stdout);
    return 1;
}
