/* test_memlimit.c — src/core/memlimit.c reads the limits a process lives under. A test cannot make a
 * cgroup, so it writes fake cgroup trees (v2, v1, a parent's limit, a container's view) under a temporary
 * directory and asks attn_memory_available_at about them. The expected values are the byte counts written
 * into those files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "memlimit.h"

static char root[256];

static void write_file(const char *rel, const char *text)
{
    char path[1024], dir[1024];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    snprintf(dir, sizeof dir, "%s", path);
    for (char *p = dir + strlen(root) + 1; *p; p++) /* mkdir -p of the file's folder */
        if (*p == '/') {
            *p = '\0';
            mkdir(dir, 0700);
            *p = '/';
        }
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static double avail(const char *cgroup_text, char *which, size_t size)
{
    write_file("self_cgroup", cgroup_text);
    char cg[512];
    snprintf(cg, sizeof cg, "%s/self_cgroup", root);
    return attn_memory_available_at(root, cg, which, size);
}

static int setup(void **state)
{
    (void)state;
    snprintf(root, sizeof root, "/tmp/attn-memlimit-XXXXXX");
    return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_v2_limit_minus_usage(void **state)
{
    (void)state;
    write_file("app/memory.max", "2000000000\n");
    write_file("app/memory.current", "500000000\n");
    char which[96];
    assert_true(avail("0::/app\n", which, sizeof which) == 1500000000.0);
    assert_non_null(strstr(which, "cgroup"));
}

static void test_v2_parent_limit_binds(void **state)
{
    (void)state;
    write_file("top/memory.max", "1000000000\n");
    write_file("top/memory.current", "900000000\n");
    write_file("top/leaf/memory.max", "max\n");
    write_file("top/leaf/memory.current", "100000000\n");
    assert_true(avail("0::/top/leaf\n", NULL, 0) == 100000000.0);
}

static void test_v1_and_no_limit(void **state)
{
    (void)state;
    write_file("memory/box/memory.limit_in_bytes", "300000000\n");
    write_file("memory/box/memory.usage_in_bytes", "100000000\n");
    assert_true(avail("4:memory:/box\n1:cpu,cpuacct:/box\n", NULL, 0) == 200000000.0);
    /* v1 writes "no limit" as a number near 2^63: only the machine's memory counts then */
    write_file("memory/free/memory.limit_in_bytes", "9223372036854771712\n");
    write_file("memory/free/memory.usage_in_bytes", "100000000\n");
    char which[96];
    assert_true(avail("4:cpuset,memory:/free\n", which, sizeof which) > 0);
    assert_null(strstr(which, "cgroup"));
}

static void test_container_sees_its_group_as_root(void **state)
{
    (void)state;
    /* the listed path is the host's; inside the container the group is mounted at the root */
    write_file("memory.max", "64000000\n");
    write_file("memory.current", "4000000\n");
    assert_true(avail("0::/host/path/of/the/container\n", NULL, 0) == 60000000.0);
}

static void test_usage_over_limit_is_zero(void **state)
{
    (void)state;
    write_file("full/memory.max", "1000\n");
    write_file("full/memory.current", "5000\n");
    assert_true(avail("0::/full\n", NULL, 0) == 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_v2_limit_minus_usage),
        cmocka_unit_test(test_v2_parent_limit_binds),
        cmocka_unit_test(test_v1_and_no_limit),
        cmocka_unit_test(test_container_sees_its_group_as_root),
        cmocka_unit_test(test_usage_over_limit_is_zero),
    };
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, setup, teardown);
}
