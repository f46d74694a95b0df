/* The harness's main: runs the test named by argv[1], or every test. */
#include "tr_test.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define TR_TEST_MAX 512

static struct {
    const char *name;
    tr_test_fn fn;
} tests[TR_TEST_MAX];
static int n_tests;
static int failures;

void tr_test_register(const char *name, tr_test_fn fn)
{
    if (n_tests < TR_TEST_MAX) {
        tests[n_tests].name = name;
        tests[n_tests].fn = fn;
        n_tests++;
    }
}

void tr_test_fail(const char *file, int line, const char *what)
{
    fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what);
    failures++;
}

const char *tr_test_srcdir(void)
{
    const char *s = getenv("TR_TEST_SRCDIR");
    return s ? s : TR_TEST_SRCDIR;
}

const char *tr_test_tmpdir(void)
{
    static char dir[4096];
    if (!dir[0]) {
        const char *base = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/trtest.XXXXXX", base ? base : "/tmp");
        if (!mkdtemp(dir)) {
            perror("mkdtemp");
            exit(1);
        }
    }
    return dir;
}

int main(int argc, char **argv)
{
    int ran = 0;
    for (int i = 0; i < n_tests; i++) {
        if (argc > 1 && strcmp(argv[1], tests[i].name) != 0) continue;
        int before = failures;
        tests[i].fn();
        ran++;
        if (failures > before) fprintf(stderr, "FAIL %s\n", tests[i].name);
    }
    if (argc > 1 && ran == 0) {
        fprintf(stderr, "no test named %s\n", argv[1]);
        return 2;
    }
    return failures ? 1 : 0;
}
