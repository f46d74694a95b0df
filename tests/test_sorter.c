/* test_sorter.c: the external merge sort (lib/sorter.c) and the stream's order (lib/stream.c). */
#include "tr_mem.h"
#include "tr_sorter.h"
#include "tr_stream.h"
#include "tr_test.h"

#include <dirent.h>

typedef struct rec {
    uint64_t key, seq;
} rec;

static int rec_cmp(const void *pa, const void *pb)
{
    const rec *a = pa, *b = pb;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Entries of DIR other than . and .. */
static int dir_entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *de; d && (de = readdir(d));) n += de->d_name[0] != '.' || de->d_name[1];
    if (d) closedir(d);
    return n - 1; /* ".." */
}

/* Sorts N records of a fixed pseudo-random sequence with BUDGET; checks the order and the runs. */
static void sort_check(size_t n, size_t budget, uint64_t want_runs)
{
    tr_sorter *s;
    tr_sorter_opts o = {sizeof(rec), rec_cmp, budget, tr_test_tmpdir(), 0};
    CHECK_INT(tr_sorter_open(&s, &o, NULL), TR_OK);
    uint64_t x = 88172645463325252ULL;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        rec r = {x % 1000, i}; /* many equal keys: ties go by seq */
        CHECK_INT(tr_sorter_push(s, &r, NULL), TR_OK);
    }
    const void *p;
    rec last = {0, 0};
    size_t got = 0;
    int rc;
    while ((rc = tr_sorter_next(s, &p, NULL)) == TR_OK) {
        const rec *r = p;
        if (got) CHECK(rec_cmp(&last, r) < 0);
        last = *r;
        got++;
    }
    CHECK_INT(rc, TR_END);
    CHECK_INT(got, n);
    CHECK_INT(tr_sorter_runs(s), want_runs);
    tr_sorter_close(s);
    CHECK_INT(dir_entries(tr_test_tmpdir()), 0);
}

/* In memory: nothing spilled, nothing made on disk. */
TR_TEST(sorter_in_memory)
{
    sort_check(10000, 1 << 20, 0);
}

/*
** A budget no machine maps (1 PiB: past the buffer's first 32 MiB it asks
** for all of it) is refused, and the buffer goes on doubling in memory.
*/
TR_TEST(sorter_budget_past_the_machine)
{
    sort_check(2200000, (size_t)1 << 50, 0);
}

/*
** 256 KiB hold 8192 records with their sort's scratch (16 bytes each):
** 300000 are 37 runs, more than the 4 the budget reads at once: eleven
** merge passes of 4 (37, 34, ... 7 runs left) write eleven more before the
** last merge.
*/
TR_TEST(sorter_spills_and_merges)
{
    sort_check(300000, 0, 37 + 11);
}

/* No room for a run: the error names the directory, and it is removed. */
TR_TEST(sorter_no_room)
{
    tr_sorter *s;
    tr_sorter_opts o = {sizeof(rec), rec_cmp, 0, tr_test_tmpdir(), 1000};
    CHECK_INT(tr_sorter_open(&s, &o, NULL), TR_OK);
    tr_error e = {0};
    int rc = TR_OK;
    for (uint64_t i = 0; i < 20000 && rc == TR_OK; i++) {
        rec r = {20000 - i, i};
        rc = tr_sorter_push(s, &r, &e);
    }
    CHECK_INT(rc, TR_FAIL);
    CHECK(strstr(e.msg, "no room to spill 131072 bytes (1000 free)") != NULL);
    tr_sorter_close(s);
    CHECK_INT(dir_entries(tr_test_tmpdir()), 0);
}

/* A record is 64 bytes, whatever the kind. */
TR_TEST(event_rec_size)
{
    CHECK_INT(sizeof(tr_event_rec), 80);
    CHECK_INT(TR_EVENT_REC_BARE, 64); /* what a stream without thread times sorts */
}
