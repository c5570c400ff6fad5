/* bench.c — attn's performance budgets, each measured against a baseline in the same run:
 *
 *   1. REPL start to prompt (budget 30 ms): ./attn started in a pseudo-terminal until "attn> "
 *      appears, against lua5.4 -i until "> " appears.
 *   2. torch.rand(1024, 768):matmul(torch.rand(768, 768)) through the Lua API (budget 1.5x) against
 *      the same cblas_sgemm call made directly from C.
 *
 * Prints medians and ratios; never fails on time (timings are not tests). Run by scripts/bench.sh. */
#include <cblas.h>
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

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

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
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n);
        double t = now_ms() - t0;
        free(c);
        if (i >= 0)
            v[i] = t;
    }
    free(a);
    free(b);
    return median(v, runs < 256 ? runs : 256);
}

int main(int argc, char **argv)
{
    const char *attn = argc > 1 ? argv[1] : "./attn";
    int runs = 21;

    char *attn_argv[] = {(char *)attn, NULL};
    char *lua_argv[] = {"lua5.4", "-i", NULL};
    double t_attn = startup(attn_argv, "attn> ", runs);
    double t_lua = startup(lua_argv, "> ", runs);
    printf("REPL start to prompt   attn %6.2f ms   lua5.4 -i %6.2f ms   ratio %.2fx   (budget 30 ms: %s)\n",
           t_attn, t_lua, t_lua > 0 ? t_attn / t_lua : 0.0, t_attn >= 0 && t_attn <= 30 ? "within" : "OVER");

    double m_attn = matmul_attn(runs), m_direct = matmul_direct(runs);
    double ratio = m_direct > 0 ? m_attn / m_direct : 0.0;
    printf("[1024,768]x[768,768]   attn %6.2f ms   cblas_sgemm %6.2f ms   ratio %.2fx   (budget 1.5x: %s)\n",
           m_attn, m_direct, ratio, ratio > 0 && ratio <= 1.5 ? "within" : "OVER");
    printf("(medians of %d runs; OpenBLAS threads: %d)\n", runs, openblas_get_num_threads());
    return 0;
}
