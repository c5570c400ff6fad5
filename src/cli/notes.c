/* notes.c — --verify [--update] checks (and rewrites) the output blocks of notes written in Markdown
 * (--markdown, the other Markdown mode, is markdown.c's). The work is in Lua (src/lua/verify/run.lua);
 * this file gives each file a process and a fresh Lua state of its own, so that one file's globals, or
 * its error, or its Ctrl-C, never reach the next. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "attn_lua.h"
#include "cli.h"
#include "memlimit.h"
#include "safe_write.h"
#include "tensor.h"

static int report_fd = -1; /* in the notes' process: the pipe of its report (below) */
static void report_text(const char *text, size_t n);

static void report_error(lua_State *L, const char *path) {
    const char *msg = lua_tostring(L, -1);
    if (report_fd >= 0) { /* in the notes' process: a line of its report */
        char line[1024];
        int n;
        if (msg && (strcmp(msg, "interrupted") == 0 || strstr(msg, ": interrupted") != NULL))
            n = snprintf(line, sizeof line, attn_tr("✗ %s: interrupted (Ctrl-C)\n"), path);
        else
            n = snprintf(line, sizeof line, "✗ %s: %s\n", path, msg ? msg : "(error object is not a string)");
        report_text(line, n < 0 ? 0 : (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
        lua_pop(L, 1);
        return;
    }
    fflush(stdout);
    if (msg && (strcmp(msg, "interrupted") == 0 || strstr(msg, ": interrupted") != NULL))
        printf(attn_tr("✗ %s: interrupted (Ctrl-C)\n"), path);
    else
        printf("✗ %s: %s\n", path, msg ? msg : "(error object is not a string)");
    fflush(stdout);
    lua_pop(L, 1);
}

/* A new state with attn opened, no colour (the text is compared and written to files). */
lua_State *attn_new_file_state(const char *path) {
    lua_State *L = luaL_newstate();
    if (L == NULL) {
        printf(attn_tr("✗ %s: cannot create a Lua state: not enough memory\n"), path);
        return NULL;
    }
    lua_gc(L, LUA_GCSTOP);
    if (attn_open(L) != LUA_OK) {
        report_error(L, path);
        lua_close(L);
        return NULL;
    }
    lua_gc(L, LUA_GCRESTART);
    attn_term_setup(L, 0);
    return L;
}

static long int_field(lua_State *L, int t, const char *name) {
    lua_getfield(L, t, name);
    long v = (long)lua_tointeger(L, -1);
    lua_pop(L, 1);
    return v;
}

/* ---- --verify: each notes file in a process of its own ------------------------------------------
 *
 * Notes come from strangers, so each file runs in a child process (fork), which reports its counts
 * (and, with --update, the file's new text) to attn through a pipe. Whatever a note does there — exits
 * by some path the sandbox missed, prints a fake "50 passed, 0 failed", crashes, loops in C where no
 * Ctrl-C reaches, takes all the memory it may — the counts, the summary, the exit status and the
 * writing of the file come from this process, which never runs a line of the notes. Unless --trusted:
 *   - the notes' globals are verify/sandbox.lua's restricted ones (what a note can and cannot do);
 *   - the child writes no file (attn_safe_forbid: save_file, heatmap svg, tr:save refused in C);
 *   - the real os.exit is replaced in the child's state, so no saved reference or library path
 *     (lesson.skip's, for a plain script) reaches it;
 *   - a time budget per file (ATTN_VERIFY_SECONDS, default 300 s): then the core's interrupt flag and
 *     a Lua hook stop the block, as Ctrl-C would, and the file fails with a message; 10 s later the
 *     child is killed if it has not ended;
 *   - a memory budget per file (ATTN_VERIFY_MB, default 4096 MB): tensors and Lua's own objects over it
 *     are refused with "not enough memory" errors that name it (memlimit.h). */

typedef struct {
    int update, trusted;
    double seconds, megabytes;
} verify_options;

static lua_State *budget_state;
static volatile sig_atomic_t budget_spent = 0;

static void budget_hook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    lua_sethook(L, NULL, 0, 0);
    lua_pushliteral(L, "interrupted");
    lua_error(L);
}

/* SIGALRM in the child: what Ctrl-C does (the core's flag for C loops, a hook for Lua code), and the
 * flag run.lua asks through over_time(). */
static void on_budget(int sig) {
    (void)sig;
    budget_spent = 1;
    attn_interrupt_requested = 1;
    lua_sethook(budget_state, budget_hook, LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT, 1);
}

/* over_time() -> true once the budget is spent (run.lua then runs no more blocks). */
static int l_over_time(lua_State *L) {
    lua_pushboolean(L, budget_spent);
    return 1;
}

/* The parent's lines, translated by run.parent_line (src/lua/verify/run.lua) in attn's own state
 * (which never runs a note); English if that fails. */
static lua_State *parent_L;

static void say(const char *what, const char *english, const char *path, const char *detail) {
    int top = parent_L ? lua_gettop(parent_L) : 0;
    const char *line = NULL;
    if (parent_L && attn_push_function(parent_L, "attn.verify.run", "parent_line", ATTN_CALL_SCRIPT)) {
        lua_pushstring(parent_L, what);
        lua_pushstring(parent_L, path);
        lua_pushstring(parent_L, detail);
        if (attn_pcall(parent_L, 3, 1, ATTN_CALL_SCRIPT) == LUA_OK) line = lua_tostring(parent_L, -1);
    }
    if (line) printf("%s\n", line);
    else printf(english, path, detail), printf("\n");
    if (parent_L) lua_settop(parent_L, top);
}

static void write_all(int fd, const char *p, size_t n) {
    while (n > 0) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return;
        p += k;
        n -= (size_t)k;
    }
}

/* The child's report to attn's process, through the pipe fd: each line of the report as it is made,
 * "L<length>\n<bytes>", then once at the end "E passed failed skipped new_len line_len has_new\n", the new
 * text and the update line. attn prints the lines; the notes' process itself has /dev/null as its
 * standard input, output and error (unless --trusted): no handle a note could write a fake summary to,
 * seek back on, or read piped input from. */
static void write_all(int fd, const char *p, size_t n);

static void report_text(const char *text, size_t n) {
    char head[32];
    int k = snprintf(head, sizeof head, "L%zu\n", n);
    write_all(report_fd, head, (size_t)k);
    write_all(report_fd, text, n);
}

/* report(text): run.lua's lines of the report */
static int l_report(lua_State *L) {
    size_t n;
    const char *text = luaL_checklstring(L, 1, &n);
    report_text(text, n);
    return 0;
}

/* The child: runs run.file on path and reports to fd (above); never returns. */
/* the budget's name in messages (src/core/memlimit.h), translated when one needs it */
static const char *notes_budget_name(void) {
    return attn_tr("the memory budget of a notes file (--trusted lifts it)");
}

static void child(const char *path, const verify_options *o, int fd) {
    setpgid(0, 0); /* a terminal's Ctrl-C reaches attn only, which passes it on once (wait_child) */
    report_fd = fd;
    if (!o->trusted) {
        int null = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (null < 0) _exit(3);
        dup2(null, 0);
        dup2(null, 1);
        dup2(null, 2);
        close(null);
    }
    long passed = 0, failed = 0, skipped = 0;
    size_t new_len = 0, line_len = 0;
    const char *new_text = NULL, *line = NULL;
    int has_new = 0;
    if (!o->trusted) {
        attn_safe_forbid("a note does not write files (--trusted lifts this)");
        attn_set_memory_budget(o->megabytes * 1e6, notes_budget_name);
    }
    lua_State *L = attn_new_file_state(path);
    if (L == NULL) {
        failed = 1;
    } else if (!attn_push_function(L, "attn.verify.run", "file", ATTN_CALL_SCRIPT)) {
        report_error(L, path);
        failed = 1;
    } else {
        if (!o->trusted) {
            if (!attn_push_function(L, "attn.verify.sandbox", "seal", ATTN_CALL_SCRIPT) || attn_pcall(L, 0, 0, ATTN_CALL_SCRIPT) != LUA_OK)
                lua_pop(L, 1); /* the error: the sandbox's own os.exit still refuses */
            struct sigaction sa;
            memset(&sa, 0, sizeof sa);
            sa.sa_handler = on_budget;
            sigemptyset(&sa.sa_mask);
            sigaction(SIGALRM, &sa, NULL);
            budget_state = L;
            struct itimerval it;
            memset(&it, 0, sizeof it);
            it.it_value.tv_sec = (time_t)o->seconds;
            setitimer(ITIMER_REAL, &it, NULL);
        }
        lua_pushstring(L, path);
        lua_createtable(L, 0, 4);
        lua_pushboolean(L, o->update);
        lua_setfield(L, -2, "update");
        lua_pushboolean(L, o->trusted);
        lua_setfield(L, -2, "trusted");
        lua_pushinteger(L, (lua_Integer)o->seconds);
        lua_setfield(L, -2, "seconds");
        lua_pushcfunction(L, l_over_time);
        lua_setfield(L, -2, "over_time");
        lua_pushcfunction(L, l_report);
        lua_setfield(L, -2, "report");
        if (!o->trusted) {
            lua_pushinteger(L, (lua_Integer)o->megabytes);
            lua_setfield(L, -2, "megabytes");
        }
        if (attn_pcall(L, 2, 1, ATTN_CALL_SCRIPT) != LUA_OK) {
            report_error(L, path);
            failed = 1;
        } else {
            passed = int_field(L, -1, "passed");
            failed = int_field(L, -1, "failed");
            skipped = int_field(L, -1, "skipped");
            lua_getfield(L, -1, "new_text");
            has_new = lua_isstring(L, -1);
            if (has_new) new_text = lua_tolstring(L, -1, &new_len);
            lua_getfield(L, -2, "update_line");
            if (lua_isstring(L, -1)) line = lua_tolstring(L, -1, &line_len);
        }
    }
    fflush(stdout);
    char head[128];
    int n = snprintf(head, sizeof head, "E %ld %ld %ld %zu %zu %d\n", passed, failed, skipped, new_len, line_len, has_new);
    write_all(fd, head, (size_t)n);
    if (new_text) write_all(fd, new_text, new_len);
    if (line) write_all(fd, line, line_len);
    close(fd);
    _exit(0); /* no atexit handlers, no flushing of buffers inherited from attn */
}

static volatile sig_atomic_t interrupted = 0;
static void on_interrupt(int sig) {
    (void)sig;
    interrupted = 1;
}

/* Reads everything the child sends on fd into a growing buffer, passing Ctrl-C on to it and killing
 * it once the deadline (seconds from now; <= 0: none) has passed. Returns the buffer (malloc'ed;
 * *len bytes), and in *killed whether the deadline killed it. */
static char *wait_child(pid_t pid, int fd, double seconds, size_t *len, int *killed) {
    size_t cap = 4096;
    char *buf = malloc(cap);
    *len = 0;
    *killed = 0;
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        if (interrupted) {
            interrupted = 0;
            kill(pid, SIGINT);
        }
        struct pollfd p = {fd, POLLIN, 0};
        int r = poll(&p, 1, 200);
        if (r > 0) {
            if (*len == cap) {
                char *more = realloc(buf, cap * 2);
                if (!more) break;
                buf = more;
                cap *= 2;
            }
            ssize_t k = read(fd, buf + *len, cap - *len);
            if (k < 0 && errno == EINTR) continue;
            if (k <= 0) break;
            *len += (size_t)k;
        } else if (r < 0 && errno != EINTR) {
            break;
        }
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        double spent = (double)(now.tv_sec - start.tv_sec) + 1e-9 * (double)(now.tv_nsec - start.tv_nsec);
        if (seconds > 0 && spent > seconds) {
            kill(pid, SIGKILL);
            *killed = 1;
            break;
        }
    }
    return buf;
}

static double env_number(const char *name, double fallback) {
    const char *v = getenv(name);
    char *end;
    double d = v ? strtod(v, &end) : 0;
    return v && *v && *end == '\0' && d > 0 ? d : fallback;
}

/* One notes file, run by a child process; adds to the counts. */
static void verify_one(const char *path, const verify_options *o, long *passed, long *failed, long *skipped) {
    int fds[2];
    struct stat st;
    fflush(stdout);
    fflush(stderr);
    /* a FIFO would block the read for ever, a device would read for ever: notes are regular files */
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        say("irregular", "✗ %s: not a regular file (notes are Markdown files)%s", path, "");
        (*failed)++;
        return;
    }
    if (pipe(fds) != 0) {
        say("cannot_run", "✗ %s: cannot run the notes: %s", path, strerror(errno));
        (*failed)++;
        return;
    }
    pid_t pid = fork();
    if (pid < 0) {
        say("cannot_run", "✗ %s: cannot run the notes: %s", path, strerror(errno));
        close(fds[0]);
        close(fds[1]);
        (*failed)++;
        return;
    }
    if (pid == 0) {
        close(fds[0]);
        child(path, o, fds[1]);
    }
    close(fds[1]);
    size_t len;
    int killed;
    char *buf = wait_child(pid, fds[0], o->trusted ? 0 : o->seconds + 10, &len, &killed);
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    long p = 0, f = 0, s = 0;
    size_t new_len = 0, line_len = 0, at = 0;
    int has_new = 0, head = 0;
    fflush(stdout);
    /* the report's lines, as the child made them */
    while (buf && at < len && buf[at] == 'L') {
        char *end;
        char *eol = memchr(buf + at, '\n', len - at);
        unsigned long long n = eol ? strtoull(buf + at + 1, &end, 10) : 0;
        if (!eol || end != eol || n > len - (size_t)(eol + 1 - buf)) break;
        fwrite(eol + 1, 1, (size_t)n, stdout);
        at = (size_t)(eol + 1 - buf) + (size_t)n;
    }
    char *nl = buf && at < len ? memchr(buf + at, '\n', len - at) : NULL;
    if (nl && buf[at] == 'E' &&
        sscanf(buf + at, "E %ld %ld %ld %zu %zu %d", &p, &f, &s, &new_len, &line_len, &has_new) == 6 &&
        (size_t)(nl + 1 - buf) + new_len + line_len == len)
        head = 1;
    if (!head) { /* the child ended without its report */
        char detail[64];
        if (killed) {
            snprintf(detail, sizeof detail, "%.0f", o->seconds);
            say("over_time", "✗ %s: the notes ran past their time budget (%s s) and were stopped", path, detail);
        } else if (WIFSIGNALED(status)) {
            snprintf(detail, sizeof detail, "signal %d, %s", WTERMSIG(status), strsignal(WTERMSIG(status)));
            say("died", "✗ %s: the notes' process died (%s) before the end of the file", path, detail);
        } else {
            snprintf(detail, sizeof detail, "%d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
            say("exited", "✗ %s: the notes ended attn's run of them before the end of the file (exit status %s)",
                path, detail);
        }
        (*failed)++;
    } else {
        *passed += p;
        *failed += f;
        *skipped += s;
        const char *text = nl + 1, *line = text + new_len;
        attn_error err;
        if (has_new && attn_write_file("--update", path, text, new_len, &err) != 0) {
            say("not_written", "✗ %s:0: %s", path, err.msg);
            (*failed)++;
        } else if (line_len > 0) {
            printf("%.*s\n", (int)line_len, line);
        }
    }
    free(buf);
    fflush(stdout);
}

/* --verify [--update] [--trusted] FILE...: each file in a process of its own; "N passed, N failed"
 * last (with ", N skipped" when a file stopped at lesson.skip). */
int attn_verify(lua_State *L, char **files, int nfiles, int update, int trusted) {
    long passed = 0, failed = 0, skipped = 0;
    parent_L = L;
    if (nfiles == 0) {
        fprintf(stderr, attn_tr("attn: --verify needs Markdown files (attn --verify notes.md)\n"));
        return 0;
    }
    verify_options o = {update, trusted, env_number("ATTN_VERIFY_SECONDS", 300), env_number("ATTN_VERIFY_MB", 4096)};
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt; /* passed on to the child that runs the notes */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old);
    for (int i = 0; i < nfiles; i++) verify_one(files[i], &o, &passed, &failed, &skipped);
    sigaction(SIGINT, &old, NULL);
    if (skipped > 0) /* as --check: "N skipped" only when a file called lesson.skip */
        printf("%ld passed, %ld failed, %ld skipped\n", passed, failed, skipped);
    else
        printf("%ld passed, %ld failed\n", passed, failed);
    fflush(stdout);
    return failed == 0;
}
