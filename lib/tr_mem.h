/*
** tr_mem.h: allocation, block arenas, growable arrays and capped text buffers.
*/
#ifndef TR_MEM_H
#define TR_MEM_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
** Allocation goes through these so tests can make the Nth one fail and check
** that every caller returns TR_E_NOMEM cleanly (SQLite's fault injection).
*/
void *tr_malloc(size_t n);
void *tr_calloc(size_t count, size_t size);
void *tr_realloc(void *p, size_t n);
void tr_free(void *p);
/*
** ^Blocks of this size and more are backed by transparent huge pages where
** the kernel allows, for the whole huge pages that fit inside them.
*/
#define TR_MEM_HUGE ((size_t)2 << 20)
/*
** ^Has the kernel map the pages of the N bytes at P now, cleared, as a write
** would, without changing what they hold (advice: nothing where the kernel
** cannot): a thread with nothing else to do takes the faults a later pass
** would have waited on.
*/
void tr_mem_populate(void *p, size_t n);
/* ^qsort that accepts an empty (even NULL) array, which qsort itself must not be given. */
static inline void tr_qsort(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    if (n > 1) qsort(v, n, size, cmp);
}

/*
** tr_alloc_fail_after: make allocation number N (counting from the call,
** 1-based) and every later one fail; 0 turns failures off.  tr_alloc_fail_once
** fails allocation N alone (SQLite's transient faults): a caller that goes on
** after it must still say it failed.
*/
void tr_alloc_fail_after(uint64_t n);
void tr_alloc_fail_once(uint64_t n);

/*
** tr_arena: a block arena (git's mem-pool).  Small records and strings are
** carved from large blocks and released all at once by tr_arena_fini.
*/
typedef struct tr_arena_block tr_arena_block;
typedef struct tr_arena {
    tr_arena_block *head;
    size_t used;  /* bytes taken from head */
    size_t total; /* bytes held in all blocks */
} tr_arena;

void tr_arena_init(tr_arena *a);
void tr_arena_fini(tr_arena *a);
/* ^Returns N bytes aligned to 8, or NULL when out of memory. */
void *tr_arena_alloc(tr_arena *a, size_t n);
/* ^Copies N bytes of S and a terminating NUL into the arena. */
char *tr_arena_strndup(tr_arena *a, const char *s, size_t n);
/* ^Makes room for N more bytes in one block; returns TR_OK, or TR_FATAL when out of memory. */
int tr_arena_reserve(tr_arena *a, size_t n);

/*
** tr_vec: a growable array of fixed-size elements.  ^tr_vec_push returns a
** pointer to the new (zeroed) slot or NULL when out of memory.
*/
typedef struct tr_vec {
    void *data;
    size_t len, cap;
    size_t elem;
} tr_vec;

void tr_vec_init(tr_vec *v, size_t elem);
void tr_vec_fini(tr_vec *v);
int tr_vec_reserve(tr_vec *v, size_t n); /* room for N elements in all; TR_OK or TR_FATAL */
void *tr_vec_push(tr_vec *v);
#define TR_VEC_AT(v, type, i) (((type *)(v)->data)[i])

/*
** tr_buf: growable NUL-terminated text (git's strbuf).  ^p is never NULL.
** ^A buffer with a non-zero max refuses to grow past it: appends return
** TR_FAIL, with the text unchanged, rather than allocate without bound.
** ^An append that cannot allocate returns TR_FATAL and sets nomem, which
** stays set (reset keeps it): a caller that builds text in many appends
** checks once, later, that none was lost.
*/
typedef struct tr_buf {
    char *p;
    size_t len, cap;
    size_t max; /* 0 = no cap */
    int nomem;
} tr_buf;

void tr_buf_init(tr_buf *b, size_t max);
void tr_buf_fini(tr_buf *b);
void tr_buf_reset(tr_buf *b);
int tr_buf_grow(tr_buf *b, size_t extra); /* room for EXTRA more bytes and the NUL */

/* Writers append millions of small pieces: the common case is inline. */
static inline int tr_buf_add(tr_buf *b, const void *p, size_t n)
{
    if (n >= b->cap - b->len) {
        int rc = tr_buf_grow(b, n);
        if (rc != 0) return rc;
    }
    memcpy(b->p + b->len, p, n);
    b->len += n;
    b->p[b->len] = '\0';
    return 0;
}

static inline int tr_buf_addc(tr_buf *b, char c)
{
    if (b->len + 1 >= b->cap) {
        int rc = tr_buf_grow(b, 1);
        if (rc != 0) return rc;
    }
    b->p[b->len++] = c;
    b->p[b->len] = '\0';
    return 0;
}

int tr_buf_adds(tr_buf *b, const char *s);
int tr_buf_addf(tr_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
