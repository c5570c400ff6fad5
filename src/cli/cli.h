/* cli.h — what the files of src/cli share: pcall.c calls into Lua, main.c reads the command line and
 * runs chunks, repl.c reads them, lessons.c runs the lesson modes, notes.c the Markdown modes, term.c
 * knows the terminal, usage.c says the options. */
#ifndef ATTN_CLI_H
#define ATTN_CLI_H
#include <stdio.h>

#include <lua.h>

/* pcall.c, the one way into Lua: lua_pcall with attn's message handler (a traceback for scripts; the
 * plain message when interactive) and Ctrl-C armed for the duration of the call; or, bare, lua_pcall
 * itself. attn_push_function pushes require(module)[name] (name NULL: the module), loading it so; 0
 * with the error pushed instead when it fails. */
enum { ATTN_CALL_SCRIPT = 0, ATTN_CALL_INTERACTIVE = 1, ATTN_CALL_BARE = 2 };
int attn_pcall(lua_State *L, int narg, int nres, int mode);
int attn_push_function(lua_State *L, const char *module, const char *name, int mode);
/* What the REPL prints when a second Ctrl-C ends attn (interrupt.c; repl.c gives it in the user's language). */
void attn_set_second_interrupt_message(const char *msg);
/* interrupt.c: around a lua_pcall, Ctrl-C turned into a Lua error ("interrupted"); interactive: the
 * REPL's rule (a second Ctrl-C within 2 s of an unseen first ends attn). */
struct sigaction;
void attn_sigint_begin(lua_State *L, int interactive, struct sigaction *old);
void attn_sigint_end(lua_State *L, const struct sigaction *old);
/* usage.c: the text of --help (and of a bad option's message), to f. */
void attn_print_usage(FILE *f, const char *progname);
/* lang.c: the languages of the embedded catalogs ("en, zh_CN"); --lang's word checked and passed on to
 * src/lua/i18n.lua as ATTN_LANG (0 when there is no catalog for it). */
const char *attn_languages(void);
int attn_lang_option(const char *value);
const char *attn_lang_refused(void); /* the word --lang refused, or NULL */
/* The interactive loop; returns 0 when the user quits with Ctrl-D (or stdin ends). */
int attn_repl(lua_State *L);
/* term.c: colour on stdout: it is a terminal and NO_COLOR is unset or empty (the REPL and lessons
 * alike). attn_term_setup gives the Lua module attn.term the colour flag, whether stdout is a
 * terminal, and a way to read one key. */
int attn_color_wanted(void);
void attn_term_setup(lua_State *L, int color);

/* Lesson modes (lessons.c). attn_lessons runs one on the lesson files given (none: every lesson in
 * ./lessons, for --check and --list) and returns 1 on success, 0 on an error or a failed check. */
enum { ATTN_LESSON_NONE, ATTN_LESSON_STEP, ATTN_LESSON_LINE, ATTN_LESSON_CHECK, ATTN_LESSON_TAP,
       ATTN_LESSON_LIST, ATTN_LESSON_HTML, ATTN_LESSON_VERIFY, ATTN_LESSON_MARKDOWN };
/* What --step and --step=line take besides the files: --from N (the first lesson starts at its step
 * N; 0 when not given) and --clear (the screen is cleared before each step); and --html's OUT. */
typedef struct {
    long from;
    int clear;
    const char *out;
    int trusted; /* --trusted: --verify runs notes, and the lesson modes lessons given by path, with the
                  * program's globals (notes.c; src/lua/lesson/run.lua) */
} attn_step_options;
int attn_lessons(lua_State *L, int mode, char **files, int nfiles, const attn_step_options *step);
/* attn's own lessons' folder (beside the executable; never the working folder) into buf, or NULL. */
const char *attn_own_lessons_dir(char *buf, size_t size);
/* The Markdown modes (notes.c): --verify [--update] [--trusted] notes.md..., --markdown lesson.lua...
 * Each file runs in a Lua state of its own (--verify: in a process of its own; L, attn's own state,
 * only translates its lines). Return 1 on success, 0 on a failure. */
int attn_verify(lua_State *L, char **files, int nfiles, int update, int trusted);
int attn_markdown(char **files, int nfiles);
/* notes.c's, for markdown.c: a fresh state for one file (attn opened, no colour), or NULL (said on
 * stdout). */
lua_State *attn_new_file_state(const char *path);

/* The Jupyter kernel (kernel.c; kernel.h lists its files): attn --kernel CONNECTION_FILE serves until a
 * shutdown_request; returns 1, or 0 when it could not start. attn_json_preload makes require("attn.json")
 * work (kernel_json.c), for --ipynb too. */
int attn_kernel(lua_State *L, const char *connection_file);
void attn_json_preload(lua_State *L);
/* kernel_install.c: attn --install-kernel [--user | --prefix P]; where: "user", a prefix, or NULL (the
 * system's, /usr/local). Returns 1 on success. */
int attn_install_kernel(lua_State *L, const char *where);
/* ipynb.c: attn --ipynb OUT LESSON...: each lesson as a Jupyter notebook. Returns 1 on success. */
int attn_ipynb(const char *out, char **files, int nfiles);

#endif
