/* usage.c — what `attn --help` prints: the options of main.c, lua5.4's first, then attn's own modes
 * (lessons.c, notes.c). Its own file so that the list can grow without crowding main.c. */
#include <stdio.h>

#include "cli.h"
#include "tensor.h"

void attn_print_usage(FILE *f, const char *progname) {
    /* one message, so that a translation can lay the columns out for its language (attn_tr: the
     * catalog src/po/<lang>/lib/core.po) */
    fprintf(f, attn_tr(
            "usage: %s [options] [script [args]]\n"
            "Available options are:\n"
            "  -e stat        execute string 'stat' (may be given several times)\n"
            "  -i             enter the REPL after running 'script' and -e\n"
            "  -l mod         require library 'mod' into global 'mod'\n"
            "  -l g=mod       require library 'mod' into global 'g'\n"
            "  -v, --version  show version information\n"
            "  -h, --help     show this help\n"
            "  -W             turn warnings on\n"
            "  --             stop handling options\n"
            "  -              stop handling options and execute stdin\n"
            "Lessons (lessons/*.lua; a lesson also runs straight through as a script):\n"
            "  --list               list the lessons with their titles\n"
            "  --step LESSON        pause after each step: Enter next, b back, r repeat, g go to a step,\n"
            "                       l list the steps, s next section, c clear, ? keys, q quit\n"
            "  --step=line LESSON   pause before each line of the lesson's code\n"
            "  --from N             with --step or --step=line: start at step N (the steps before it\n"
            "                       run without output)\n"
            "  --clear              with --step or --step=line: clear the screen before each step\n"
            "  --check [LESSON...]  run lessons quietly (each on its own), print failed checks and\n"
            "                       'N passed, N failed'; exit status 1 on any failure (all lessons\n"
            "                       when none are given); with --tap, print TAP instead\n"
            "  --html OUT LESSON... run lessons as --check does and write each as a web page: OUT\n"
            "                       (several lessons: OUT is a folder, one page for each)\n"
            "  --markdown LESSON... write lessons as Markdown handouts (on stdout)\n"
            "Jupyter:\n"
            "  --kernel FILE        run as a Jupyter kernel with the connection file FILE (what the\n"
            "                       kernelspec runs)\n"
            "  --install-kernel [--user | --prefix P]\n"
            "                       write the kernelspecs attn and attn-zh_cn (default: into\n"
            "                       /usr/local/share/jupyter/kernels)\n"
            "  --ipynb OUT LESSON...\n"
            "                       run lessons as --check does and write each as a notebook: OUT\n"
            "                       (several lessons: OUT is a folder, one notebook for each)\n"
            "Language:\n"
            "  --lang LANG          the language of attn's text: zh_CN (Chinese) or en; without it,\n"
            "                       LANGUAGE, LC_ALL, LC_MESSAGES and LANG decide, as for any gettext\n"
            "                       program (LANG=zh_CN.UTF-8 means Chinese)\n"
            "Notes in Markdown:\n"
            "  --verify FILE.md...  run each file's ```lua blocks in order and compare what each prints\n"
            "                       with the ```output block after it; 'N passed, N failed'\n"
            "  --update             with --verify: rewrite the output blocks with what attn printed\n"
            "  --trusted            run with all of Lua's powers the notes of --verify, and a lesson\n"
            "                       given by path to --check, --step, --html, --markdown or --ipynb\n"
            "                       (attn's own lessons always are); without it such a note or lesson\n"
            "                       cannot run programs, write files, load native code, use debug,\n"
            "                       exit attn, or read outside its folder, and each notes file has a\n"
            "                       time and memory budget (man attn, SAFETY)\n"
            "With no arguments, %s starts the REPL (or runs stdin when it is not a terminal).\n"),
            progname, progname);
}
