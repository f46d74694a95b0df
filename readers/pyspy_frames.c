/*
** pyspy_frames.c: the frames of py-spy's text outputs (dump text and folded
** stacks): "name (file:line)" split and interned, and a cache from a
** frame's text to its id, because a dump sequence repeats a few thousand
** frame lines millions of times.
*/
#include "pyspy_impl.h"

#include <string.h>

/*
** The frame cache is at most a quarter full while it has 16 k slots or
** fewer (128 KiB, a dump sequence's few thousand frame lines): a missed
** guess's line probes fewer slots, each its hash chain waiting on it.  Past
** that, half full, as it was: a quarter took a pool's 228 k distinct lines
** 8 MiB of slots, not 4, and the peak RSS 2 MiB more.
*/
#define PF_ROOMY ((size_t)1 << 14)

/* ---- frames ---- */

static int pf_digit(char c)
{
    return (unsigned)(c - '0') < 10;
}

void tr_pyspy_frame_split(const char *p, size_t n, tr_pyspy_frame_text *f)
{
    f->fn = p;
    f->fn_n = n;
    f->file = p + n;
    f->file_n = 0;
    f->line = 0;
    if (n < 3 || p[n - 1] != ')') return;
    size_t open = n - 1;
    while (open > 0 && !(p[open] == '(' && p[open - 1] == ' ')) open--;
    if (open == 0) return;
    const char *loc = p + open + 1;
    size_t loc_n = n - 1 - (open + 1);
    f->fn_n = open - 1;
    f->file = loc;
    f->file_n = loc_n;
    const char *colon = NULL;
    for (size_t i = loc_n; i > 0; i--)
        if (loc[i - 1] == ':') {
            colon = loc + i - 1;
            break;
        }
    if (!colon || colon + 1 == loc + loc_n) return;
    int64_t line = 0;
    for (const char *d = colon + 1; d < loc + loc_n; d++) {
        if (!pf_digit(*d) || line > INT32_MAX / 10) return;
        line = line * 10 + (*d - '0');
    }
    if (line > INT32_MAX) return;
    f->line = (int32_t)line;
    f->file_n = (size_t)(colon - loc);
}

static int pf_ends_with(const char *p, size_t n, const char *suffix)
{
    size_t m = strlen(suffix);
    return n >= m && memcmp(p + n - m, suffix, m) == 0;
}

/*
** Native: a symbol in a shared object or a C source, not Python code.  py-spy
** prints every Python frame with a location (if only "()"), so a bare name
** (pthread_cond_timedwait) is a native symbol.
*/
static int pf_is_native(const tr_pyspy_frame_text *f)
{
    if (f->fn_n > 2 && f->fn[0] == '0' && f->fn[1] == 'x') return 1;
    if (f->file == f->fn + f->fn_n) return f->fn_n > 0;
    if (f->file_n == 0) return 0;
    if (f->file[0] == '<') return 0;
    return !(pf_ends_with(f->file, f->file_n, ".py") || pf_ends_with(f->file, f->file_n, ".pyw") ||
             pf_ends_with(f->file, f->file_n, ".pyx"));
}

/* A shared object: the file of a native frame without line information. */
static int pf_is_module(const tr_pyspy_frame_text *f)
{
    if (f->line != 0 || f->file_n == 0) return 0;
    if (f->file_n == 1 && f->file[0] == '?') return 1;
    for (size_t i = 0; i + 3 <= f->file_n; i++)
        if (f->file[i] == '.' && f->file[i + 1] == 's' && f->file[i + 2] == 'o') return 1;
    return pf_ends_with(f->file, f->file_n, ".dll") || pf_ends_with(f->file, f->file_n, ".dylib");
}

int tr_pyspy_is_elision(const char *p, size_t n)
{
    while (n && (*p == ' ' || *p == '\t')) p++, n--;
    return (n >= 3 && memcmp(p, "...", 3) == 0) || (n >= 3 && memcmp(p, "\xE2\x80\xA6", 3) == 0) ||
           (n >= 5 && (p[0] == '[' || p[0] == '(') && memcmp(p + 1, "...", 3) == 0 &&
            p[n - 1] == (p[0] == '[' ? ']' : ')'));
}

uint32_t tr_pyspy_frame_intern(tr_trace *t, const char *p, size_t n)
{
    tr_pyspy_frame_text ft;
    tr_pyspy_frame_split(p, n, &ft);
    tr_frame f;
    memset(&f, 0, sizeof f);
    f.function = tr_str_intern(t, ft.fn, ft.fn_n);
    f.file = tr_str_intern(t, ft.file, ft.file_n);
    f.line = ft.line;
    f.is_native = pf_is_native(&ft);
    f.module = pf_is_module(&ft) ? f.file : 0;
    return tr_frame_intern(t, &f);
}

/* ---- the frame cache ---- */

void tr_pyspy_fcache_init(tr_pyspy_fcache *c)
{
    memset(c, 0, sizeof *c);
    tr_vec_init(&c->entries, sizeof(uint64_t));
}

void tr_pyspy_fcache_fini(tr_pyspy_fcache *c)
{
    tr_free(c->slots);
    tr_vec_fini(&c->entries);
}

static int ps_fcache_grow(tr_pyspy_fcache *c)
{
    size_t cap = c->cap ? c->cap * 2 : 1024;
    uint64_t *s = tr_calloc(cap, sizeof *s);
    if (!s) return TR_FATAL;
    for (size_t i = 0; i < c->cap; i++) {
        if (!c->slots[i]) continue;
        size_t k = (c->slots[i] >> 32) & (cap - 1);
        while (s[k]) k = (k + 1) & (cap - 1);
        s[k] = c->slots[i];
    }
    tr_free(c->slots);
    c->slots = s;
    c->cap = cap;
    return TR_OK;
}

static struct tr_pyspy_fentry *pf_entry(tr_pyspy_fcache *c, uint32_t id)
{
    return (struct tr_pyspy_fentry *)(void *)((uint64_t *)c->entries.data + id);
}

/* The entry of the N bytes at P, added when new; TR_NONE on OOM. */
static uint32_t ps_fcache_entry(tr_pyspy_fcache *c, tr_trace *t, const char *p, size_t n)
{
    if ((c->n + 1) * (c->cap <= PF_ROOMY ? 4 : 2) > c->cap && ps_fcache_grow(c) != TR_OK)
        return TR_NONE;
    uint32_t h = tr_pyspy_fcache_hash(p, n), found = tr_pyspy_fcache_find(c, p, n, h);
    if (found != TR_NONE) return found;
    size_t k = h & (c->cap - 1);
    while (c->slots[k]) k = (k + 1) & (c->cap - 1);
    /* the header's two words, then the text and its NUL in whole words */
    size_t id = c->entries.len, words = 2 + (n + 8) / 8;
    uint32_t frame = tr_pyspy_frame_intern(t, p, n);
    if (frame == TR_NONE || id + words >= TR_NONE ||
        tr_vec_reserve(&c->entries, id + words) != TR_OK)
        return TR_NONE;
    struct tr_pyspy_fentry *en = pf_entry(c, (uint32_t)id);
    *en = (struct tr_pyspy_fentry){(uint32_t)n, frame, TR_NONE, (uint32_t)n};
    if (n && p[n - 1] == '\r') en->guess_len = 0;
    memcpy(en->text, p, n);
    en->text[n] = '\0';
    c->entries.len += words;
    c->n++;
    c->slots[k] = (uint64_t)h << 32 | (id + 1);
    return (uint32_t)id;
}

uint32_t tr_pyspy_fcache_lookup(tr_pyspy_fcache *c, tr_trace *t, const char *p, size_t n,
                                uint32_t *prev)
{
    if (n > UINT32_MAX) {
        *prev = TR_NONE;
        return tr_pyspy_frame_intern(t, p, n);
    }
    uint32_t k = ps_fcache_entry(c, t, p, n);
    if (k == TR_NONE) return TR_NONE;
    if (*prev != TR_NONE) pf_entry(c, *prev)->next = k;
    *prev = k;
    return pf_entry(c, k)->frame;
}

uint32_t tr_pyspy_fcache_intern(tr_pyspy_fcache *c, tr_trace *t, const char *p, size_t n,
                                uint32_t *prev)
{
    uint32_t next = *prev == TR_NONE ? TR_NONE : pf_entry(c, *prev)->next;
    if (next != TR_NONE) {
        const struct tr_pyspy_fentry *en = pf_entry(c, next);
        if (en->len == n && tr_pyspy_same_any(en->text, p, n)) {
            *prev = next;
            return en->frame;
        }
    }
    return tr_pyspy_fcache_lookup(c, t, p, n, prev);
}
