/* test_safe_write.c — core/safe_write.c, the one way attn writes a file: the bytes land complete under
 * the name, a 0600 file stays 0600, a symlinked target is written through (the link stays), a dangling
 * symlink, a FIFO and a folder are refused with a message, an abort leaves the target as it was and no
 * temporary file behind, attn_safe_forbid refuses every write. Expected values are the bytes and modes
 * the test itself wrote. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "safe_write.h"

static char dir[] = "/tmp/attn_safe_write_XXXXXX";

static void path_in(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", dir, name);
}

static void read_back(const char *path, char *buf, size_t n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t k = fread(buf, 1, n - 1, f);
    buf[k] = '\0';
    fclose(f);
}

/* the number of entries of dir besides . and .. */
static int entries(void)
{
    int n = 0;
    DIR *d = opendir(dir);
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

static void test_writes_and_keeps_mode(void **state)
{
    (void)state;
    char p[512], text[64];
    attn_error err;
    path_in(p, sizeof p, "a.txt");
    assert_int_equal(attn_write_file("test", p, "first", 5, &err), 0);
    chmod(p, 0600);
    assert_int_equal(attn_write_file("test", p, "second", 6, &err), 0);
    read_back(p, text, sizeof text);
    assert_string_equal(text, "second");
    struct stat st;
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0600);
    assert_int_equal(entries(), 1); /* no temporary file left */
    unlink(p);
}

static void test_symlinks(void **state)
{
    (void)state;
    char real[512], link[512], dangling[512], text[64];
    attn_error err;
    path_in(real, sizeof real, "real.txt");
    path_in(link, sizeof link, "link.txt");
    path_in(dangling, sizeof dangling, "dangling.txt");
    assert_int_equal(attn_write_file("test", real, "old", 3, &err), 0);
    assert_int_equal(symlink("real.txt", link), 0);
    assert_int_equal(attn_write_file("test", link, "new", 3, &err), 0);
    struct stat st;
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    read_back(real, text, sizeof text);
    assert_string_equal(text, "new");
    assert_int_equal(symlink("nowhere.txt", dangling), 0);
    assert_int_equal(attn_write_file("test", dangling, "x", 1, &err), -1);
    assert_non_null(strstr(err.msg, "it is a symlink to a file that does not exist"));
    unlink(real);
    unlink(link);
    unlink(dangling);
}

static void test_refuses_non_regular(void **state)
{
    (void)state;
    char fifo[512];
    attn_error err;
    path_in(fifo, sizeof fifo, "fifo");
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_int_equal(attn_write_file("save_file", fifo, "x", 1, &err), -1);
    assert_non_null(strstr(err.msg, "save_file: will not write"));
    assert_non_null(strstr(err.msg, "it is a FIFO"));
    assert_int_equal(attn_write_file("save_file", dir, "x", 1, &err), -1);
    assert_non_null(strstr(err.msg, "it is a folder"));
    assert_int_equal(attn_write_file("save_file", "/dev/null", "x", 1, &err), -1);
    assert_non_null(strstr(err.msg, "it is a character device"));
    unlink(fifo);
}

static void test_abort_and_forbid(void **state)
{
    (void)state;
    char p[512], text[64];
    attn_error err;
    path_in(p, sizeof p, "b.txt");
    assert_int_equal(attn_write_file("test", p, "kept", 4, &err), 0);
    attn_safe_file *f = attn_safe_open("test", p, &err);
    assert_non_null(f);
    assert_int_equal(attn_safe_write(f, "lost", 4, &err), 0);
    attn_safe_abort(f);
    read_back(p, text, sizeof text);
    assert_string_equal(text, "kept");
    assert_int_equal(entries(), 1);
    attn_safe_forbid("writes are off");
    assert_int_equal(attn_write_file("tr:save", p, "x", 1, &err), -1);
    assert_non_null(strstr(err.msg, "tr:save: cannot write"));
    assert_non_null(strstr(err.msg, "writes are off"));
    attn_safe_forbid(NULL);
    assert_int_equal(attn_write_file("test", p, "again", 5, &err), 0);
    unlink(p);
}

int main(void)
{
    if (!mkdtemp(dir))
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_writes_and_keeps_mode),
        cmocka_unit_test(test_symlinks),
        cmocka_unit_test(test_refuses_non_regular),
        cmocka_unit_test(test_abort_and_forbid),
    };
    cmocka_set_message_output(CM_OUTPUT_TAP);
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    rmdir(dir);
    return failed;
}
