/*
** tr_test.h: a minimal unit-test harness, and the helpers the test files share.
**
** Each TR_TEST(name) block registers itself; tr_unit_test() in
** tests/CMakeLists.txt scans the file for TR_TEST( lines and adds one ctest
** per block, run as "test_binary name".  A failed CHECK reports file:line and
** fails the test.  The harness is tr_test_main.c, the helpers tr_test.c.
*/
#ifndef TR_TEST_H
#define TR_TEST_H

#include "tr_error.h"
#include "tr_reader.h"
#include "tr_trace.h"

#include <stdio.h>
#include <string.h>

typedef void (*tr_test_fn)(void);
void tr_test_register(const char *name, tr_test_fn fn);
void tr_test_fail(const char *file, int line, const char *what);
/* A scratch directory for this test run (created on first use). */
const char *tr_test_tmpdir(void);
/* The project's source directory, for testdata/. */
const char *tr_test_srcdir(void);

#define TR_TEST(name)                                                                              \
    static void test_##name(void);                                                                 \
    __attribute__((constructor)) static void register_##name(void)                                 \
    {                                                                                              \
        tr_test_register(#name, test_##name);                                                      \
    }                                                                                              \
    static void test_##name(void)

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) tr_test_fail(__FILE__, __LINE__, #cond);                                      \
    } while (0)

#define CHECK_STR(a, b)                                                                            \
    do {                                                                                           \
        const char *check_a_ = (a), *check_b_ = (b);                                               \
        if (!check_a_ || !check_b_ || strcmp(check_a_, check_b_) != 0) {                           \
            fprintf(stderr, "  got \"%s\", want \"%s\"\n", check_a_ ? check_a_ : "(null)",         \
                    check_b_ ? check_b_ : "(null)");                                               \
            tr_test_fail(__FILE__, __LINE__, #a " == " #b);                                        \
        }                                                                                          \
    } while (0)

#define CHECK_INT(a, b)                                                                            \
    do {                                                                                           \
        long long check_a_ = (long long)(a), check_b_ = (long long)(b);                            \
        if (check_a_ != check_b_) {                                                                \
            fprintf(stderr, "  got %lld, want %lld\n", check_a_, check_b_);                        \
            tr_test_fail(__FILE__, __LINE__, #a " == " #b);                                        \
        }                                                                                          \
    } while (0)

/* ---- helpers (tr_test.c) ---- */

/*
** Paths: SRCDIR/REL (the project's sources, testdata/), TMPDIR/NAME (the
** scratch directory) and DIR/NAME.  Each call has its own buffer among 16, so
** a test can hold a list of paths at once.
*/
const char *tr_test_src(const char *rel);
const char *tr_test_tmp(const char *name);
const char *tr_test_join(const char *dir, const char *name);

/* The bytes of PATH, NUL-terminated, from malloc (free them); *N gets their count (N may be NULL).
** NULL when the file cannot be read. */
char *tr_test_slurp(const char *path, size_t *n);
/* Whether the file at PATH holds exactly the N bytes at WANT. */
int tr_test_file_is(const char *path, const char *want, size_t n);
/* Writes N bytes at P (or the string TEXT) to PATH, and returns PATH; a failure fails the test. */
const char *tr_test_write(const char *path, const void *p, size_t n);
const char *tr_test_write_text(const char *path, const char *text);

/* A tr_diag handler (user: a tr_test_warns) that keeps the count, the first and the last warning.
 */
typedef struct tr_test_warns {
    int n;
    tr_error first, last;
} tr_test_warns;
void tr_test_on_warn(void *user, const tr_error *w);

/*
** Loads PATH into T with tr_load, choosing among all readers (tr_readers), with
** the read options READ (NULL: none; without a diag, warnings are only
** counted), and freezes T; the status, E says why.
*/
int tr_test_load(tr_trace *t, const char *path, const tr_read_opts *read, tr_error *e);

/*
** Runs RUN(USER, N) for N = 1, 2, ..., each on a thread of its own (whose
** caches start empty), until QUIET runs in a row succeed or N reaches MAX.
** RUN makes allocation N fail alone (tr_alloc_fail_once) around the work it
** tests, checks what that made, and returns 0 when the work succeeded, else
** nonzero.  Returns how many runs failed: a sweep where none did tested
** nothing.
*/
int tr_test_each_alloc_failing(int (*run)(void *user, uint64_t n), void *user, int quiet,
                               uint64_t max);

#endif
