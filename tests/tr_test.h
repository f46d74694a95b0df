/*
** tr_test.h: a minimal unit-test harness.
**
** Each TR_TEST(name) block registers itself; tests/CMakeLists.txt scans the
** sources for TR_TEST( lines and adds one ctest per block, run as
** "test_binary name".  A failed CHECK reports file:line and fails the test.
*/
#ifndef TR_TEST_H
#define TR_TEST_H

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

#endif
