/* The helpers of tr_test.h that the test files share. */
#include "tr_test.h"

#include "tr_load.h"
#include "tr_readers.h"

#include <pthread.h>
#include <stdlib.h>

/* One of 16 path buffers, in turn. */
static char *path_buf(void)
{
    static char bufs[16][4096];
    static int next;
    return bufs[next++ % 16];
}

const char *tr_test_join(const char *dir, const char *name)
{
    char *p = path_buf();
    if (snprintf(p, 4096, "%s/%s", dir, name) >= 4096) abort();
    return p;
}

const char *tr_test_src(const char *rel)
{
    return tr_test_join(tr_test_srcdir(), rel);
}

const char *tr_test_tmp(const char *name)
{
    return tr_test_join(tr_test_tmpdir(), name);
}

char *tr_test_slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, len = 0, got;
    char *p = malloc(cap + 1);
    while (p && (got = fread(p + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            char *more = realloc(p, cap * 2 + 1);
            if (!more) free(p);
            p = more;
            cap *= 2;
        }
    }
    fclose(f);
    if (!p) return NULL;
    p[len] = '\0';
    if (n) *n = len;
    return p;
}

const char *tr_test_write(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f) return path;
    CHECK(fwrite(p, 1, n, f) == n);
    CHECK(fclose(f) == 0);
    return path;
}

const char *tr_test_write_text(const char *path, const char *text)
{
    return tr_test_write(path, text, strlen(text));
}

void tr_test_on_warn(void *user, const tr_error *w)
{
    tr_test_warns *l = user;
    if (!l->n++) l->first = *w;
    l->last = *w;
}

int tr_test_file_is(const char *path, const char *want, size_t n)
{
    size_t got_n;
    char *have = tr_test_slurp(path, &got_n);
    int same = have && got_n == n && memcmp(have, want, n) == 0;
    free(have);
    return same;
}

int tr_test_load(tr_trace *t, const char *path, const tr_read_opts *read, tr_error *e)
{
    tr_load_opts o = {.readers = tr_readers};
    tr_diag counted = {0};
    if (read) o.read = *read;
    if (!o.read.diag) o.read.diag = &counted;
    memset(e, 0, sizeof *e);
    int rc = tr_load(t, path, &o, e);
    if (rc == TR_OK) rc = tr_trace_freeze(t, e);
    return rc;
}

typedef struct alloc_run {
    int (*run)(void *user, uint64_t n);
    void *user;
    uint64_t n;
    int failed;
} alloc_run;

static void *alloc_run_one(void *p)
{
    alloc_run *a = p;
    a->failed = a->run(a->user, a->n) != 0;
    return NULL;
}

int tr_test_each_alloc_failing(int (*run)(void *user, uint64_t n), void *user, int quiet,
                               uint64_t max)
{
    int failed = 0, calm = 0;
    for (uint64_t n = 1; n < max && calm < quiet; n++) {
        alloc_run a = {run, user, n, 0};
        pthread_t tid;
        if (pthread_create(&tid, NULL, alloc_run_one, &a) != 0) {
            tr_test_fail(__FILE__, __LINE__, "pthread_create");
            break;
        }
        pthread_join(tid, NULL);
        failed += a.failed;
        calm = a.failed ? 0 : calm + 1;
    }
    return failed;
}
