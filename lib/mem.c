/* mem.c: allocation with fault injection, arenas, growable arrays, buffers. */
#include "tr_mem.h"
#include "tr_error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static uint64_t alloc_fail_at; /* 0 = never */
static uint64_t alloc_count;
static int alloc_fail_persists; /* the allocations after it fail too */

void tr_alloc_fail_after(uint64_t n)
{
    alloc_fail_at = n;
    alloc_count = 0;
    alloc_fail_persists = 1;
}

void tr_alloc_fail_once(uint64_t n)
{
    tr_alloc_fail_after(n);
    alloc_fail_persists = 0;
}

static int alloc_should_fail(void)
{
    if (!alloc_fail_at) return 0;
    ++alloc_count;
    return alloc_fail_persists ? alloc_count >= alloc_fail_at : alloc_count == alloc_fail_at;
}

/*
** Large blocks ask for transparent huge pages: the kernel then maps 2 MiB
** at a fault instead of 4 KiB, and in a virtual machine each fault costs
** tens of microseconds (a 256 MiB column: 128 faults instead of 65,536).
** Only the whole huge pages inside the block are advised; the pages stay
** unmapped until written, so room reserved and never filled costs nothing.
*/
static void *mem_advise(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
    if (p && n >= TR_MEM_HUGE) {
        uintptr_t a = ((uintptr_t)p + TR_MEM_HUGE - 1) & ~(TR_MEM_HUGE - 1);
        uintptr_t b = ((uintptr_t)p + n) & ~(TR_MEM_HUGE - 1);
        if (b > a) (void)madvise((void *)a, b - a, MADV_HUGEPAGE);
    }
#else
    (void)n;
#endif
    return p;
}

/*
** A large new block starts on a huge page, so that advice covers all of it
** but its tail: from malloc it would start anywhere in one, and the part
** before the first 2 MiB boundary would take a fault every 4 KiB.  A tail
** of three quarters of a huge page or more is rounded up to a whole one
** (*ROOM), and so is a block of that size: a 1.6 MiB column was 400 faults
** of 1.4 us each here, where one huge page is cleared in about 90 us.  The
** smaller tails stay small pages: rounded, they would add up to 2 MiB each
** to the pages the kernel clears.
*/
static void *mem_alloc(size_t n, size_t *room)
{
    void *p;
    size_t whole = n <= SIZE_MAX - TR_MEM_HUGE ? (n + TR_MEM_HUGE - 1) & ~(TR_MEM_HUGE - 1) : n;
    *room = whole - n <= TR_MEM_HUGE / 4 ? whole : n;
    if (*room >= TR_MEM_HUGE && posix_memalign(&p, TR_MEM_HUGE, *room) == 0) return p;
    *room = n;
    return malloc(n ? n : 1);
}

void *tr_malloc(size_t n)
{
    size_t room;
    if (alloc_should_fail()) return NULL;
    void *p = mem_alloc(n, &room);
    return mem_advise(p, room);
}

void *tr_calloc(size_t count, size_t size)
{
    if (alloc_should_fail()) return NULL;
    void *p = calloc(count ? count : 1, size ? size : 1);
    /* A large block is fresh mapped memory, which calloc does not write: advice still counts. */
    return count && size <= SIZE_MAX / count ? mem_advise(p, count * size) : p;
}

void *tr_realloc(void *p, size_t n)
{
    if (alloc_should_fail()) return NULL;
    if (p) return mem_advise(realloc(p, n ? n : 1), n);
    size_t room;
    void *q = mem_alloc(n, &room);
    return mem_advise(q, room);
}

void tr_free(void *p)
{
    free(p);
}

void tr_mem_populate(void *p, size_t n)
{
#ifdef MADV_POPULATE_WRITE
    /* whole pages inside (madvise wants a page's start); one the block shares is left to writes */
    long size = sysconf(_SC_PAGESIZE);
    uintptr_t page = size > 0 ? (uintptr_t)size : 4096, a = ((uintptr_t)p + page - 1) & ~(page - 1);
    uintptr_t b = ((uintptr_t)p + n) & ~(page - 1);
    if (p && b > a) (void)madvise((void *)a, b - a, MADV_POPULATE_WRITE);
#else
    (void)p;
    (void)n;
#endif
}

/* ---- arena ---- */

#define ARENA_BLOCK     (256 * 1024)
#define ARENA_BLOCK_MAX ((size_t)32 << 20)

/*
** The size of an arena's next block: 256 KiB, and an eighth of what it holds
** once that is more, so that a big arena (a model's strings) is carved from
** blocks large enough for huge pages.
*/
static size_t arena_block_size(const tr_arena *a)
{
    size_t b = a->total / 8;
    if (b <= ARENA_BLOCK) return ARENA_BLOCK;
    b = b < ARENA_BLOCK_MAX ? b : ARENA_BLOCK_MAX;
    return (b + TR_MEM_HUGE - 1) & ~(TR_MEM_HUGE - 1);
}

struct tr_arena_block {
    tr_arena_block *next;
    size_t size;
    _Alignas(8) unsigned char data[];
};

void tr_arena_init(tr_arena *a)
{
    a->head = NULL;
    a->used = 0;
    a->total = 0;
}

void tr_arena_fini(tr_arena *a)
{
    tr_arena_block *b = a->head;
    while (b) {
        tr_arena_block *next = b->next;
        tr_free(b);
        b = next;
    }
    tr_arena_init(a);
}

/* N bytes at the head's next multiple of ALIGN (a power of two, at most 8). */
static void *arena_carve(tr_arena *a, size_t n, size_t align)
{
    size_t at = (a->used + align - 1) & ~(align - 1);
    if (!a->head || a->head->size < at || a->head->size - at < n) {
        size_t block = arena_block_size(a), size = n > block / 4 ? n : block;
        tr_arena_block *b = tr_malloc(sizeof *b + size);
        if (!b) return NULL;
        b->size = size;
        if (a->head && size != block) {
            /* A big one-off goes behind the head so the head's free room stays usable. */
            b->next = a->head->next;
            a->head->next = b;
            a->total += size;
            return b->data;
        }
        b->next = a->head;
        a->head = b;
        a->total += size;
        at = 0;
    }
    void *p = a->head->data + at;
    a->used = at + n;
    return p;
}

void *tr_arena_alloc(tr_arena *a, size_t n)
{
    return arena_carve(a, n, 8);
}

/* Strings are packed: a model's millions of short ones would lose 3.5 bytes each to alignment. */
char *tr_arena_strndup(tr_arena *a, const char *s, size_t n)
{
    char *p = arena_carve(a, n + 1, 1);
    if (!p) return NULL;
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

/*
** A block of N bytes becomes the head when the head has less room: the text
** a reader expects then fills huge pages from its first byte, not 256 KiB
** blocks of small pages, one fault each 4 KiB.
*/
int tr_arena_reserve(tr_arena *a, size_t n)
{
    if (a->head && a->head->size >= a->used && a->head->size - a->used >= n) return TR_OK;
    tr_arena_block *b = n <= SIZE_MAX - sizeof *b ? tr_malloc(sizeof *b + n) : NULL;
    if (!b) return TR_FATAL;
    b->size = n;
    b->next = a->head;
    a->head = b;
    a->used = 0;
    a->total += n;
    return TR_OK;
}

/* ---- vec ---- */

void tr_vec_init(tr_vec *v, size_t elem)
{
    v->data = NULL;
    v->len = v->cap = 0;
    v->elem = elem;
}

void tr_vec_fini(tr_vec *v)
{
    tr_free(v->data);
    tr_vec_init(v, v->elem);
}

int tr_vec_reserve(tr_vec *v, size_t n)
{
    if (n <= v->cap) return TR_OK;
    size_t cap = v->cap ? v->cap : 16;
    while (cap < n) {
        if (cap > SIZE_MAX / 2 / v->elem) return TR_FATAL;
        cap *= 2;
    }
    void *p = tr_realloc(v->data, cap * v->elem);
    if (!p) return TR_FATAL;
    v->data = p;
    v->cap = cap;
    return TR_OK;
}

void *tr_vec_push(tr_vec *v)
{
    if (v->len == v->cap && tr_vec_reserve(v, v->len + 1) != TR_OK) return NULL;
    void *slot = (char *)v->data + v->len * v->elem;
    memset(slot, 0, v->elem);
    v->len++;
    return slot;
}

/* ---- buf ---- */

static char buf_empty[1];

void tr_buf_init(tr_buf *b, size_t max)
{
    b->p = buf_empty;
    b->len = b->cap = 0;
    b->max = max;
    b->nomem = 0;
}

void tr_buf_fini(tr_buf *b)
{
    if (b->cap) tr_free(b->p);
    tr_buf_init(b, b->max);
}

void tr_buf_reset(tr_buf *b)
{
    b->len = 0;
    /* buf_empty is "" already, and threads share it: never written. */
    if (b->cap) b->p[0] = '\0';
}

int tr_buf_grow(tr_buf *b, size_t extra)
{
    if (extra > SIZE_MAX - b->len - 1) return TR_FAIL;
    size_t need = b->len + extra + 1;
    if (need <= b->cap) return TR_OK;
    if (b->max && need > b->max + 1) return TR_FAIL;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need) cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    if (b->max && cap > b->max + 1) cap = b->max + 1;
    char *p = tr_realloc(b->cap ? b->p : NULL, cap);
    if (!p) {
        b->nomem = 1;
        return TR_FATAL;
    }
    if (!b->cap) p[0] = '\0';
    b->p = p;
    b->cap = cap;
    return TR_OK;
}

int tr_buf_adds(tr_buf *b, const char *s)
{
    return tr_buf_add(b, s, strlen(s));
}

int tr_buf_addf(tr_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return TR_FAIL;
    int rc = tr_buf_grow(b, (size_t)n);
    if (rc != TR_OK) return rc;
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return TR_OK;
}
