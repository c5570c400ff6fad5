/* bench.c — attn's performance budgets, each measured against a baseline in the same run:
 *
 *   1. REPL start to prompt (budget 30 ms): ./attn started in a pseudo-terminal until "attn> "
 *      appears, against lua5.4 -i until "> " appears.
 *   2. torch.rand(1024, 768):matmul(torch.rand(768, 768)) through the Lua API (budget 1.5x) against
 *      the same sgemm_ call made directly from C (the one PyTorch, and so attn, makes for it).
 *   3. Multi-head causal attention, the ch. 3 bonus workload (batch 8, 1024 tokens, 768 dims, 12 heads;
 *      target: the whole forward on the fused path <= 2x its four projection GEMMs alone):
 *      (a) the machine's cblas_sgemm rate on [8192,768]x[768,768]
 *      (b) the four projection GEMMs alone (q, k, v, out), from C: the baseline
 *      (c) attention.fused alone on the [8,12,1024,64] split-head views of q, k, v
 *      (d) the whole forward on the fused path through the Lua API: projections, split, fused, merge,
 *          out_proj (what nn.MultiHeadAttention does in eval mode)
 *      (e) the staged path (scores, mask, softmax and weighted sum materialised, as the book's
 *          MultiHeadAttention.forward), the attention part alone
 *      (f) nn.MultiHeadAttention(768, 768, 1024, 0.0, 12) forward in eval mode: as it comes (fused) and
 *          with use_fused = false (staged, through the attention.* stages), and PyTorch running the
 *          book's MultiHeadAttention on the same input size with the same number of threads
 *          (scripts/bench_torch.py, when /usr/bin/python3 has torch; skipped, not faked, otherwise)
 *   4. GPT-2 small's forward on 1024 tokens (random weights), against its FLOPs at the sgemm rate of (a).
 *   5. The performance targets, each ratio with its target and "met" or "not met": the staged forward
 *      against PyTorch's, the fused forward against its FLOPs at the sgemm rate of (a), attention.fused
 *      right after the projection GEMMs against the same call on its own (after a pause, once
 *      OpenBLAS's threads sleep), REPL start, and a chapter-3 lesson in --check mode.
 *
 * Prints medians and ratios; never fails on time (timings are not tests). Run by scripts/bench.sh. */
#include <cblas.h>
#include <fcntl.h>
#include <glob.h>
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "attn_lua.h"
#include "fused.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* CPU time of this process, all threads: on a machine shared with other programs it grows with the work
 * done, not with the waiting, so ratios of CPU times hold under load where wall times drift. */
static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double last_cpu; /* the CPU time of the last lua_once or projections_once, in ms */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Milliseconds from fork to `prompt` appearing on the program's terminal, or -1. */
static double time_to_prompt(char *const argv[], const char *prompt)
{
    int master;
    double t0 = now_ms();
    pid_t pid = forkpty(&master, NULL, NULL, NULL);
    if (pid < 0)
        return -1;
    if (pid == 0) {
        setenv("NO_COLOR", "1", 1);
        setenv("HOME", "/tmp", 1);
        execvp(argv[0], argv);
        _exit(127);
    }
    char buf[4096];
    size_t used = 0;
    double t = -1;
    while (now_ms() - t0 < 5000) {
        struct pollfd p = {master, POLLIN, 0};
        if (poll(&p, 1, 100) <= 0)
            continue;
        ssize_t n = read(master, buf + used, sizeof buf - 1 - used);
        if (n <= 0)
            break;
        used += (size_t)n;
        buf[used] = 0;
        if (strstr(buf, prompt)) {
            t = now_ms() - t0;
            break;
        }
        if (used > sizeof buf - 64)
            used = 0;
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    close(master);
    return t;
}

static double startup(char *const argv[], const char *prompt, int runs)
{
    double v[64];
    int n = 0;
    time_to_prompt(argv, prompt); /* warm the page cache */
    for (int i = 0; i < runs && i < 64; i++) {
        double t = time_to_prompt(argv, prompt);
        if (t >= 0)
            v[n++] = t;
    }
    return n ? median(v, n) : -1;
}

static double matmul_attn(int runs)
{
    lua_State *L = luaL_newstate();
    if (attn_open(L) != LUA_OK) {
        fprintf(stderr, "bench: %s\n", lua_tostring(L, -1));
        return -1;
    }
    if (luaL_dostring(L, "torch.manual_seed(0) a = torch.rand(1024, 768) b = torch.rand(768, 768)") != LUA_OK ||
        luaL_loadstring(L, "return a:matmul(b)") != LUA_OK) {
        fprintf(stderr, "bench: %s\n", lua_tostring(L, -1));
        return -1;
    }
    int chunk = lua_gettop(L);
    double v[256];
    for (int i = -3; i < runs && i < 256; i++) { /* three warm-up calls */
        lua_pushvalue(L, chunk);
        double t0 = now_ms();
        if (lua_pcall(L, 0, 1, 0) != LUA_OK) {
            fprintf(stderr, "bench: %s\n", lua_tostring(L, -1));
            return -1;
        }
        double t = now_ms() - t0;
        lua_pop(L, 1);
        if (i >= 0)
            v[i] = t;
    }
    lua_close(L);
    return median(v, runs < 256 ? runs : 256);
}

/* The Fortran BLAS routine attn's matmul calls, as PyTorch does (src/core/bmm.c). */
void sgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k, const float *alpha,
            const float *a, const int *lda, const float *b, const int *ldb, const float *beta, float *c,
            const int *ldc);

static double matmul_direct(int runs)
{
    const int m = 1024, k = 768, n = 768;
    float *a = malloc(sizeof(float) * m * k), *b = malloc(sizeof(float) * k * n);
    double v[256];
    if (!a || !b)
        return -1;
    for (int i = 0; i < m * k; i++)
        a[i] = (float)rand() / (float)RAND_MAX;
    for (int i = 0; i < k * n; i++)
        b[i] = (float)rand() / (float)RAND_MAX;
    for (int i = -3; i < runs && i < 256; i++) {
        double t0 = now_ms();
        float *c = malloc(sizeof(float) * m * n); /* attn allocates its result too */
        /* the row-major C = A B, column-major Cᵀ = Bᵀ Aᵀ: sgemm_ N N with m and n swapped, as attn calls it */
        const float one = 1.0f, zero = 0.0f;
        sgemm_("N", "N", &n, &m, &k, &one, b, &n, a, &k, &zero, c, &n);
        double t = now_ms() - t0;
        free(c);
        if (i >= 0)
            v[i] = t;
    }
    free(a);
    free(b);
    return median(v, runs < 256 ? runs : 256);
}

/* Milliseconds of `argv` run to its end with its output thrown away, or -1. */
static double run_quietly(char *const argv[])
{
    double t0 = now_ms();
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        execvp(argv[0], argv);
        _exit(127);
    }
    int status;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? now_ms() - t0 : -1;
}

/* Each chapter-3 lesson (lessons/01-06) in --check mode, the median of `runs` runs: printed on one line.
 * Returns the time of `target` (lessons/03_causal_attention.lua), or -1. Lesson 06 times a GPT-2-size
 * forward pass (exercise 3.3) on purpose: its seconds are the forward's, not the lesson machinery's. */
static double chapter3_lessons(const char *attn, int runs, const char *target_lesson)
{
    glob_t g;
    double found = -1;
    if (glob("lessons/0[1-6]_*.lua", 0, NULL, &g) != 0)
        return -1;
    printf("chapter-3 lessons, --check (median of %d runs):", runs);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        char *argv[] = {(char *)attn, "--check", g.gl_pathv[i], NULL};
        double v[32];
        int n = 0;
        for (int r = 0; r < runs && r < 32; r++)
            if ((v[n] = run_quietly(argv)) >= 0)
                n++;
        double t = n ? median(v, n) : -1;
        printf(" %.2s %.0f ms%s", g.gl_pathv[i] + 8, t, i + 1 < g.gl_pathc ? "," : "\n");
        if (strcmp(g.gl_pathv[i], target_lesson) == 0)
            found = t;
    }
    globfree(&g);
    return found;
}

/* ---- PyTorch's forward, in a python3 process that stays up (scripts/bench_torch.py) --------------- */

typedef struct torch_proc {
    pid_t pid;
    FILE *to, *from;
} torch_proc;

/* Starts the script with `threads` threads and waits for its "ready"; 0, or -1 (why in `why`). */
static int torch_start(torch_proc *p, const char *script, int threads, char *why, size_t size)
{
    int in[2], out[2];
    char nthreads[16], line[256];
    snprintf(nthreads, sizeof nthreads, "%d", threads);
    if (access("/usr/bin/python3", X_OK) != 0 || access(script, R_OK) != 0) {
        snprintf(why, size, "no /usr/bin/python3 or no %s", script);
        return -1;
    }
    if (pipe(in) || pipe(out))
        return snprintf(why, size, "pipe failed"), -1;
    p->pid = fork();
    if (p->pid < 0)
        return snprintf(why, size, "fork failed"), -1;
    if (p->pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 2);
        close(in[1]);
        close(out[0]);
        execl("/usr/bin/python3", "python3", "-s", script, nthreads, (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    p->to = fdopen(in[1], "w");
    p->from = fdopen(out[0], "r");
    if (!p->to || !p->from || !fgets(line, sizeof line, p->from) || strncmp(line, "ready", 5) != 0) {
        snprintf(why, size, "python3 could not run it (is python3-torch installed?)");
        return -1;
    }
    return 0;
}

/* Milliseconds of one forward in PyTorch, or -1. */
static double torch_forward(torch_proc *p)
{
    char line[64];
    if (fprintf(p->to, "forward\n") < 0 || fflush(p->to) != 0 || !fgets(line, sizeof line, p->from))
        return -1;
    return atof(line);
}

static void torch_stop(torch_proc *p)
{
    if (p->to)
        fclose(p->to);
    if (p->from)
        fclose(p->from);
    if (p->pid > 0)
        waitpid(p->pid, NULL, 0);
}

/* ---- 3. multi-head causal attention ------------------------------------------------------------ */

enum { MHA_B = 8, MHA_T = 1024, MHA_D = 768, MHA_H = 12 };

/* The globals of the timed chunks: the input, the four nn.Linear layers (ch. 3's MultiHeadAttention
 * with qkv_bias = false), q, k, v split into heads, and both forwards. The staged one is the book's
 * MultiHeadAttention.forward line for line. */
/* Without autograd, as PyTorch's side (scripts/bench_torch.py: eval mode, torch.no_grad): nn.Linear's
 * weights require grad, so with grad on, every forward would record its graph, and attention.fused on
 * inputs that require grad is computed by the recorded stages (autograd/ops_nn.lua), not the fused pass. */
static const char MHA_SETUP[] =
    "torch.set_grad_enabled(false)\n"
    "torch.manual_seed(123)\n"
    "B, T, D, H = 8, 1024, 768, 12\n"
    "DH = D // H\n"
    "x = torch.rand(B, T, D)\n"
    "W_query = nn.Linear(D, D, {bias = false})\n"
    "W_key = nn.Linear(D, D, {bias = false})\n"
    "W_value = nn.Linear(D, D, {bias = false})\n"
    "out_proj = nn.Linear(D, D)\n"
    "mask = torch.triu(torch.ones(T, T), 1):bool()\n"
    "local function heads(t) return t:view(B, T, H, DH):transpose(2, 3) end\n"
    "qh, kh, vh = heads(W_query(x)), heads(W_key(x)), heads(W_value(x))\n"
    "function mha_fused(x)\n"
    "    local q, k, v = heads(W_query(x)), heads(W_key(x)), heads(W_value(x))\n"
    "    local context = attention.fused(q, k, v, {causal = true})\n"
    "    return out_proj(context:transpose(2, 3):contiguous():view(B, T, D))\n"
    "end\n"
    "function attention_staged(q, k, v)\n"
    "    local scores = q:matmul(k:transpose(3, 4))\n"
    "    scores:masked_fill_(mask, -math.huge)\n"
    "    local weights = torch.softmax(scores / math.sqrt(DH), -1)\n"
    "    return weights:matmul(v)\n"
    "end\n"
    "mha = nn.MultiHeadAttention(D, D, T, 0.0, H):eval()\n"
    "mha_staged = nn.MultiHeadAttention(D, D, T, 0.0, H):eval()\n"
    "mha_staged.use_fused = false\n";

/* Milliseconds of one call of the chunk at stack index `chunk`, its result dropped; the garbage of
 * earlier calls is collected first, outside the timing. -1 on an error. */
static double lua_once(lua_State *L, int chunk)
{
    lua_gc(L, LUA_GCCOLLECT);
    lua_pushvalue(L, chunk);
    double t0 = now_ms(), c0 = cpu_ms();
    if (lua_pcall(L, 0, 1, 0) != LUA_OK) {
        fprintf(stderr, "bench: %s\n", lua_tostring(L, -1));
        lua_pop(L, 1);
        return -1;
    }
    double t = now_ms() - t0;
    last_cpu = cpu_ms() - c0;
    lua_pop(L, 1);
    return t;
}

/* Milliseconds of `calls` [8192,768]x[768,768]ᵀ sgemm calls in a row (nn.Linear's x·Wᵀ) into y. */
static double projections_once(const float *x, const float *w, float *y, int calls)
{
    const int m = MHA_B * MHA_T, k = MHA_D, n = MHA_D;
    double t0 = now_ms(), c0 = cpu_ms();
    for (int c = 0; c < calls; c++)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, 1.0f, x, k, w, k, 0.0f, y, n);
    last_cpu = cpu_ms() - c0;
    return now_ms() - t0;
}

enum {
    T_SGEMM, T_BASE, T_FUSED, T_FUSED_AGAIN, T_FUSED1, T_FUSED_ALONE, T_WHOLE, T_MODULE, T_STAGED, T_MODULE_STAGED,
    T_TORCH, NTIMES
};

/* The timed Lua chunks, by T_ index (NULL: timed from C). */
static const char *const MHA_CHUNKS[NTIMES] = {
    [T_FUSED] = "return attention.fused(qh, kh, vh, {causal = true})",
    [T_FUSED_AGAIN] = "return attention.fused(qh, kh, vh, {causal = true})",
    [T_FUSED1] = "return attention.fused(qh, kh, vh, {causal = true})",
    [T_FUSED_ALONE] = "return attention.fused(qh, kh, vh, {causal = true})",
    [T_WHOLE] = "return mha_fused(x)",
    [T_MODULE] = "return mha(x)",
    [T_STAGED] = "return attention_staged(qh, kh, vh)",
    [T_MODULE_STAGED] = "return mha_staged(x)",
};

/* What the performance targets are computed from (filled by attention_workload and main). */
typedef struct results {
    double staged, torch;     /* staged nn.MultiHeadAttention forward, PyTorch's book forward; -1 if none */
    char torch_why[160];      /* why PyTorch's figure is missing */
    double whole, whole_flops; /* fused forward, and its FLOPs' time at the sgemm rate */
    double whole_cpu, whole_flops_cpu; /* the same in CPU time (all threads), at the sgemm's CPU-time rate */
    double fused_after, fused_alone;
    double repl, lesson;
    double rate; /* the sgemm rate of (a), GFLOP per ms */
} results;

/* The machine is shared and its load changes from second to second, so the measurements are taken in
 * rounds, one of each per round: a burst of load slows all of them alike, and the ratios hold. The
 * staged path and PyTorch (seconds per call) get their own, fewer rounds, alternating. attention.fused
 * is timed right after the projection GEMMs, as in a forward pass (OpenBLAS's idle worker keeps polling
 * for a while after a multi-threaded sgemm), once more right after, on one thread, and on its own:
 * after a pause of PAUSE_MS, when OpenBLAS's threads have gone to sleep. */
#define PAUSE_MS 300

static void pause_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void attention_workload(int runs, const char *torch_script, results *res)
{
    const double T = MHA_T, D = MHA_D;
    const double proj_gflop = 2.0 * MHA_B * T * D * D / 1e9;                     /* one projection */
    const double causal_gflop = 2.0 * 2.0 * MHA_B * D * (T * (T + 1) / 2) / 1e9; /* q·kᵀ and w·v, unmasked */
    const double whole_gflop = 4 * proj_gflop + causal_gflop;
    const int slow_runs = runs > 3 ? 3 : runs;
    double v[NTIMES][64], med[NTIMES], cpu_sgemm[64], cpu_whole[64];
    int chunk[NTIMES] = {0};
    if (runs > 64)
        runs = 64;

    size_t xs = (size_t)MHA_B * MHA_T * MHA_D, ws = (size_t)MHA_D * MHA_D;
    float *x = malloc(sizeof(float) * xs), *w = malloc(sizeof(float) * ws), *y = malloc(sizeof(float) * xs);
    lua_State *L = luaL_newstate();
    if (!x || !w || !y || attn_open(L) != LUA_OK || luaL_dostring(L, MHA_SETUP) != LUA_OK) {
        fprintf(stderr, "bench: %s\n", x && w && y ? lua_tostring(L, -1) : "out of memory");
        return;
    }
    for (size_t i = 0; i < xs; i++)
        x[i] = (float)rand() / (float)RAND_MAX;
    for (size_t i = 0; i < ws; i++)
        w[i] = (float)rand() / (float)RAND_MAX - 0.5f;
    for (int t = 0; t < NTIMES; t++)
        if (MHA_CHUNKS[t]) {
            if (luaL_loadstring(L, MHA_CHUNKS[t]) != LUA_OK) {
                fprintf(stderr, "bench: %s\n", lua_tostring(L, -1));
                return;
            }
            chunk[t] = lua_gettop(L);
        }

    for (int r = -1; r < runs; r++) { /* round -1 warms up */
        int i = r < 0 ? 0 : r;
        v[T_SGEMM][i] = projections_once(x, w, y, 1);
        cpu_sgemm[i] = last_cpu;
        v[T_BASE][i] = projections_once(x, w, y, 4);
        v[T_FUSED][i] = lua_once(L, chunk[T_FUSED]);
        v[T_FUSED_AGAIN][i] = lua_once(L, chunk[T_FUSED_AGAIN]);
        attn_fused_config(1, 0, 0);
        v[T_FUSED1][i] = lua_once(L, chunk[T_FUSED1]);
        attn_fused_config(0, 0, 0);
        v[T_WHOLE][i] = lua_once(L, chunk[T_WHOLE]);
        cpu_whole[i] = last_cpu;
        v[T_MODULE][i] = lua_once(L, chunk[T_MODULE]);
        lua_gc(L, LUA_GCCOLLECT);
        pause_ms(PAUSE_MS);
        v[T_FUSED_ALONE][i] = lua_once(L, chunk[T_FUSED_ALONE]);
    }

    torch_proc tp = {0};
    int have_torch = torch_start(&tp, torch_script, openblas_get_num_threads(), res->torch_why,
                                 sizeof res->torch_why) == 0;
    for (int r = -1; r < slow_runs; r++) { /* round -1 warms up both */
        int i = r < 0 ? 0 : r;
        v[T_STAGED][i] = lua_once(L, chunk[T_STAGED]);
        v[T_MODULE_STAGED][i] = lua_once(L, chunk[T_MODULE_STAGED]);
        if (have_torch && (v[T_TORCH][i] = torch_forward(&tp)) < 0) {
            snprintf(res->torch_why, sizeof res->torch_why, "the PyTorch process stopped answering");
            have_torch = 0;
        }
    }
    torch_stop(&tp);
    lua_close(L);
    free(x);
    free(w);
    free(y);
    for (int t = 0; t < NTIMES; t++)
        med[t] = t == T_TORCH && !have_torch ? -1
                 : median(v[t], t == T_STAGED || t == T_MODULE_STAGED || t == T_TORCH ? slow_runs : runs);

    double base = med[T_BASE], rate = proj_gflop / med[T_SGEMM]; /* GFLOP per ms */
    printf("\nmulti-head causal attention, batch %d, %d tokens, %d dims, %d heads (ch. 3 bonus)\n", MHA_B, MHA_T,
           MHA_D, MHA_H);
    printf("  (a) cblas_sgemm [8192,768]x[768,768]      %8.1f ms  %6.1f GFLOP/s  (the machine's rate)\n",
           med[T_SGEMM], rate * 1e3);
    printf("  (b) four projection GEMMs alone           %8.1f ms  %6.1f GFLOP/s  1.00x  (baseline)\n", base,
           4 * proj_gflop / base * 1e3);
    printf("  (c) attention.fused [8,12,1024,64] causal %8.1f ms  %6.1f GFLOP/s  %.2fx  (right after (b))\n",
           med[T_FUSED], causal_gflop / med[T_FUSED] * 1e3, med[T_FUSED] / base);
    printf("      the same call again, right after      %8.1f ms  %6.1f GFLOP/s  %.2fx  (1 thread: %.1f ms)\n",
           med[T_FUSED_AGAIN], causal_gflop / med[T_FUSED_AGAIN] * 1e3, med[T_FUSED_AGAIN] / base, med[T_FUSED1]);
    printf("      the same call on its own (%d ms pause) %8.1f ms  %6.1f GFLOP/s  %.2fx\n", PAUSE_MS,
           med[T_FUSED_ALONE], causal_gflop / med[T_FUSED_ALONE] * 1e3, med[T_FUSED_ALONE] / base);
    printf("  (d) whole forward, fused path             %8.1f ms  %6.1f GFLOP/s  %.2fx  (target <= 2x: %s)\n",
           med[T_WHOLE], whole_gflop / med[T_WHOLE] * 1e3, med[T_WHOLE] / base,
           med[T_WHOLE] <= 2 * base ? "met" : "NOT met");
    printf("  (e) staged attention alone                %8.1f ms  %6.1f GFLOP/s  %.2fx\n", med[T_STAGED],
           causal_gflop / med[T_STAGED] * 1e3, med[T_STAGED] / base);
    printf("  (f) nn.MultiHeadAttention eval (fused)    %8.1f ms  %6.1f GFLOP/s  %.2fx\n", med[T_MODULE],
           whole_gflop / med[T_MODULE] * 1e3, med[T_MODULE] / base);
    printf("      the same, use_fused = false (staged)  %8.1f ms  %6.1f GFLOP/s  %.2fx\n", med[T_MODULE_STAGED],
           whole_gflop / med[T_MODULE_STAGED] * 1e3, med[T_MODULE_STAGED] / base);
    if (med[T_TORCH] > 0)
        printf("      PyTorch, the book's MultiHeadAttention %7.1f ms  %6.1f GFLOP/s  %.2fx  (torch threads: %d)\n",
               med[T_TORCH], whole_gflop / med[T_TORCH] * 1e3, med[T_TORCH] / base, openblas_get_num_threads());
    else
        printf("      PyTorch, the book's MultiHeadAttention  skipped: %s\n", res->torch_why);
    printf("  (GFLOP/s count the unmasked half of the causal attention, %.1f GFLOP, and %.1f GFLOP per\n"
           "   projection; medians of %d rounds, %d for the staged path and PyTorch; OpenBLAS threads: %d)\n",
           causal_gflop, proj_gflop, runs, slow_runs, openblas_get_num_threads());
    res->staged = med[T_MODULE_STAGED];
    res->torch = med[T_TORCH];
    res->whole = med[T_WHOLE];
    res->whole_flops = whole_gflop / rate;
    double cpu_rate = proj_gflop / median(cpu_sgemm, runs); /* GFLOP per ms of CPU time */
    res->whole_cpu = median(cpu_whole, runs);
    res->whole_flops_cpu = whole_gflop / cpu_rate;
    printf("      in CPU time (all threads): (a) %.1f ms, %.1f GFLOP/s per CPU-second; (d) %.1f ms, %.2fx its FLOPs\n",
           median(cpu_sgemm, runs), cpu_rate * 1e3, res->whole_cpu, res->whole_cpu / res->whole_flops_cpu);
    res->fused_after = med[T_FUSED];
    res->fused_alone = med[T_FUSED_ALONE];
    res->rate = rate;
}

/* 4. GPT-2 small (gpt.GPTModel(gpt.GPT_CONFIG_124M), random weights, eval mode) on one text of 1024
 * tokens: the median of `runs` forwards, against the time its matrix products' FLOPs take at the sgemm
 * rate of 3(a) (`rate`, GFLOP per ms). Skipped when the gpt table is missing. */
static void gpt2_forward(int runs, double rate)
{
    const double n = 1024, d = 768, layers = 12, vocab = 50257;
    const double gflop = (2 * n * (layers * (4 * d * d + 2 * d * 4 * d) + d * vocab) +
                          layers * 2 * 2 * d * n * (n + 1) / 2) / 1e9;
    lua_State *L = luaL_newstate();
    double v[16];
    if (attn_open(L) != LUA_OK ||
        luaL_dostring(L, "if not gpt then return end torch.set_grad_enabled(false) torch.manual_seed(123) "
                         "gpt2 = gpt.GPTModel(gpt.GPT_CONFIG_124M):eval() "
                         "ids = torch.randint(1, 50258, {1, 1024})") != LUA_OK ||
        luaL_loadstring(L, "return gpt2(ids)") != LUA_OK) {
        printf("\nGPT-2 small forward: skipped (%s)\n", lua_tostring(L, -1));
        lua_close(L);
        return;
    }
    lua_getglobal(L, "gpt2");
    int have = !lua_isnil(L, -1);
    lua_pop(L, 1);
    if (!have) {
        printf("\nGPT-2 small forward: skipped (no gpt table)\n");
        lua_close(L);
        return;
    }
    int chunk = lua_gettop(L), n_ok = 0;
    for (int r = -1; r < runs && r < 16; r++) {
        double t = lua_once(L, chunk);
        if (r >= 0 && t >= 0)
            v[n_ok++] = t;
    }
    lua_close(L);
    if (n_ok == 0)
        return;
    double med = median(v, n_ok);
    printf("\nGPT-2 small (124M, random weights) forward, 1 x 1024 tokens: %.1f ms, %.1f GFLOP/s, %.2fx its\n"
           "  %.0f GFLOP of products at the sgemm rate of (a)  (median of %d)\n",
           med, gflop / med * 1e3, med / (gflop / rate), gflop, n_ok);
}

/* One target: the figure, the target and whether it is met. */
static void target(const char *what, double got, double limit, const char *unit)
{
    if (got < 0) {
        printf("  %-58s  not measured  (target <= %.2f%s: not met)\n", what, limit, unit);
        return;
    }
    printf("  %-58s %8.2f%-3s (target <= %.2f%s: %s)\n", what, got, unit, limit, unit,
           got <= limit ? "met" : "not met");
}

#define LESSON "lessons/03_causal_attention.lua"

int main(int argc, char **argv)
{
    const char *attn = argc > 1 ? argv[1] : "./attn";
    const char *torch_script = argc > 2 ? argv[2] : "scripts/bench_torch.py";
    int runs = 21;
    results res = {.staged = -1, .torch = -1};
    setvbuf(stdout, NULL, _IOLBF, 0); /* each line as it is measured, also into a file or a pipe */
    double load[3];
    if (getloadavg(load, 3) == 3)
        printf("load average %.1f %.1f %.1f on %ld cores (the ratios are measured in one run, alike under load)\n",
               load[0], load[1], load[2], sysconf(_SC_NPROCESSORS_ONLN));

    char *attn_argv[] = {(char *)attn, NULL};
    char *lua_argv[] = {"lua5.4", "-i", NULL};
    double t_attn = startup(attn_argv, "attn> ", runs);
    double t_lua = startup(lua_argv, "> ", runs);
    printf("REPL start to prompt   attn %6.2f ms   lua5.4 -i %6.2f ms   ratio %.2fx   (budget 30 ms: %s)\n",
           t_attn, t_lua, t_lua > 0 ? t_attn / t_lua : 0.0, t_attn >= 0 && t_attn <= 30 ? "within" : "OVER");
    res.repl = t_attn;
    res.lesson = chapter3_lessons(attn, 5, LESSON);

    double m_attn = matmul_attn(runs), m_direct = matmul_direct(runs);
    double ratio = m_direct > 0 ? m_attn / m_direct : 0.0;
    printf("[1024,768]x[768,768]   attn %6.2f ms   cblas_sgemm %6.2f ms   ratio %.2fx   (budget 1.5x: %s)\n",
           m_attn, m_direct, ratio, ratio > 0 && ratio <= 1.5 ? "within" : "OVER");
    printf("(medians of %d runs; OpenBLAS threads: %d)\n", runs, openblas_get_num_threads());

    attention_workload(9, torch_script, &res);
    gpt2_forward(3, res.rate);

    printf("\nperformance targets, from this run:\n");
    target("staged MHA forward / PyTorch's book MultiHeadAttention", res.torch > 0 ? res.staged / res.torch : -1,
           1.0, "x");
    if (res.torch <= 0)
        printf("    (PyTorch skipped: %s)\n", res.torch_why);
    target("fused whole forward / its FLOPs at the sgemm rate of (a)", res.whole / res.whole_flops, 1.15, "x");
    target("  the same in CPU time (holds under load)", res.whole_cpu / res.whole_flops_cpu, 1.15, "x");
    target("attention.fused right after the GEMMs / on its own", res.fused_after / res.fused_alone, 1.1, "x");
    target("REPL start to prompt", res.repl, 30, " ms");
    target("chapter-3 lesson in --check mode (" LESSON ")", res.lesson, 100, " ms");
    return 0;
}
