/*
** pyspy_impl.h: what the files of the py-spy reader family share (not public):
** readers/pyspy.c (probe, dump text, dump sequences), pyspy_frames.c (frame
** text and its cache), pyspy_markers.c (the dump text's #tracecat-dump
** markers and #tracecat-counter lines), pyspy_folded.c (folded stacks) and
** pyspy_json.c (dump --json, speedscope).
*/
#ifndef TR_PYSPY_IMPL_H
#define TR_PYSPY_IMPL_H

#include "scan_impl.h"
#include "tr_mem.h"
#include "tr_reader.h"
#include "tr_stack_slices.h"

#include <stdint.h>
#include <string.h>

/* What a dump's frame line or a folded frame says, pointing into the text. */
typedef struct tr_pyspy_frame_text {
    const char *fn, *file;
    size_t fn_n, file_n;
    int32_t line;
} tr_pyspy_frame_text;

/*
** Splits "name (file:line)", "name (file)", "name ()" or an opaque "name":
** the location is inside the last " (" .. ")" pair, the line the digits
** after its last ':'.
*/
void tr_pyspy_frame_split(const char *p, size_t n, tr_pyspy_frame_text *f);
/*
** Whether the N bytes at P are a hand edit standing for frames cut out ("...",
** "\u2026", "[...more user code...]", "(...)"): a gap in the stack, not a frame.
*/
int tr_pyspy_is_elision(const char *p, size_t n);
/* Interns the frame the N bytes at P describe; TR_NONE when out of memory. */
uint32_t tr_pyspy_frame_intern(tr_trace *t, const char *p, size_t n);

/*
** A cache from frame text to frame id: a dump repeats a few thousand frame
** lines millions of times, and hashing the line once is cheaper than parsing
** it and interning its three strings.  Each line also remembers the line
** that followed it last time: a frame's caller is nearly always the same,
** and comparing the line with that one is cheaper still than hashing it.
*/
typedef struct tr_pyspy_fcache {
    uint64_t *slots; /* hash << 32 | entry + 1; 0 is empty */
    size_t cap, n;   /* slots, entries */
    tr_vec entries;  /* uint64_t: the entries (struct tr_pyspy_fentry), each at its id */
} tr_pyspy_fcache;

void tr_pyspy_fcache_init(tr_pyspy_fcache *c);
void tr_pyspy_fcache_fini(tr_pyspy_fcache *c);
/*
** The frame id of the N bytes at P, parsing them the first time; TR_NONE on
** OOM.  *PREV is the cache's entry of the line before in the same stack
** (TR_NONE for a stack's first line) and becomes this line's.
*/
uint32_t tr_pyspy_fcache_intern(tr_pyspy_fcache *c, tr_trace *t, const char *p, size_t n,
                                uint32_t *prev);
/*
** The same without the guess: for a line tr_pyspy_fcache_guess missed and
** tr_pyspy_fcache_known did not find (a line new to the cache).
*/
uint32_t tr_pyspy_fcache_lookup(tr_pyspy_fcache *c, tr_trace *t, const char *p, size_t n,
                                uint32_t *prev);

/*
** An entry: the line's frame, the line that followed it last time, and the
** line's bytes right after them, so that fetching the entry fetches its
** text too.  Its id is where it starts in tr_pyspy_fcache.entries, in
** 8-byte words.
*/
struct tr_pyspy_fentry {
    uint32_t len;
    uint32_t frame;
    uint32_t next; /* the entry of the line that followed this one last time, TR_NONE */
    /*
    ** LEN, or 0 (no guess) when the line ends in '\r', as one read from a
    ** "\r\r\n" ending: in place, that '\r' and a "\n" after it are a "\r\n"
    ** ending, which tr_input_getline drops, so the guess would take another
    ** line for it.
    */
    uint32_t guess_len;
    char text[]; /* LEN bytes and a NUL */
};

static inline const struct tr_pyspy_fentry *tr_pyspy_fentry_at(const tr_pyspy_fcache *c,
                                                               uint32_t id)
{
    return (const struct tr_pyspy_fentry *)(const void *)((const uint64_t *)c->entries.data + id);
}

/* tr_same_bytes for any N. */
static inline int tr_pyspy_same_any(const char *a, const char *b, size_t n)
{
    return n >= 8 ? tr_same_bytes(a, b, n) : memcmp(a, b, n) == 0;
}

/*
** The cache's hash of the N bytes at P: two lanes of 8 bytes whose
** multiplications overlap, where tr_hash_bytes chains them all: a line the
** guess missed (a frame below the part of the stack that stayed) is hashed
** whole, and is 40 to 100 bytes long.  A step is a bijection of its lane
** (xor, then an odd multiplier: no bit is lost) without the shifts of a
** full mix, which would lengthen the chain; a bit reaches only the bits
** above it, so the end folds the halves together before one multiplier
** whose high half is the hash.
*/
static inline uint32_t tr_pyspy_fcache_hash(const char *p, size_t n)
{
    uint64_t a = 0x9E3779B97F4A7C15ULL ^ n, b = 0xC2B2AE3D27D4EB4FULL, x = 0, y = 0;
    if (n >= 16) {
        for (size_t i = 0; i + 16 < n; i += 16) {
            memcpy(&x, p + i, 8);
            memcpy(&y, p + i + 8, 8);
            a = (a ^ x) * 0xff51afd7ed558ccdULL;
            b = (b ^ y) * 0xc4ceb9fe1a85ec53ULL;
        }
        memcpy(&x, p + n - 16, 8);
        memcpy(&y, p + n - 8, 8);
    } else if (n >= 8) {
        memcpy(&x, p, 8);
        memcpy(&y, p + n - 8, 8);
    } else {
        memcpy(&x, p, n);
    }
    a = (a ^ x) * 0xff51afd7ed558ccdULL;
    b = (b ^ y) * 0xc4ceb9fe1a85ec53ULL;
    uint64_t h = a ^ (b >> 32 | b << 32);
    h ^= h >> 32;
    return (uint32_t)((h * 0x9E3779B97F4A7C15ULL) >> 32);
}

/* The entry of the N bytes at P, whose hash is H; TR_NONE when the cache has none. */
static inline uint32_t tr_pyspy_fcache_find(const tr_pyspy_fcache *c, const char *p, size_t n,
                                            uint32_t h)
{
    if (!c->cap) return TR_NONE;
    for (size_t k = h & (c->cap - 1);; k = (k + 1) & (c->cap - 1)) {
        uint64_t v = c->slots[k];
        if (!v) return TR_NONE;
        const struct tr_pyspy_fentry *en = tr_pyspy_fentry_at(c, (uint32_t)v - 1);
        if ((uint32_t)(v >> 32) == h && en->len == n && tr_pyspy_same_any(en->text, p, n))
            return (uint32_t)v - 1;
    }
}

/*
** The frame of the N bytes at P when the cache has them, with *PREV's entry
** pointed at theirs and *PREV made theirs, as tr_pyspy_fcache_lookup;
** TR_NONE when it has not: inline, for the lines the guess missed.
*/
static inline uint32_t tr_pyspy_fcache_known(tr_pyspy_fcache *c, const char *p, size_t n,
                                             uint32_t *prev)
{
    uint32_t k =
        n <= UINT32_MAX ? tr_pyspy_fcache_find(c, p, n, tr_pyspy_fcache_hash(p, n)) : TR_NONE;
    if (k == TR_NONE) return TR_NONE;
    if (*prev != TR_NONE)
        ((struct tr_pyspy_fentry *)(void *)((uint64_t *)c->entries.data + *prev))->next = k;
    *prev = k;
    return tr_pyspy_fentry_at(c, k)->frame;
}

/*
** The frame of the line at P (running to a "\n" before END) when it is the
** line that followed *PREV's last time, its length in *N; else TR_NONE.  The
** comparison finds the line's end too: no scan for the "\n" on a hit.
*/
static inline uint32_t tr_pyspy_fcache_guess(const tr_pyspy_fcache *c, const char *p,
                                             const char *end, uint32_t *prev, size_t *n)
{
    uint32_t next = *prev == TR_NONE ? TR_NONE : tr_pyspy_fentry_at(c, *prev)->next;
    if (next == TR_NONE) return TR_NONE;
    const struct tr_pyspy_fentry *en = tr_pyspy_fentry_at(c, next);
    size_t len = en->guess_len;
    if (len < 8 || len >= (size_t)(end - p) || p[len] != '\n' || !tr_same_bytes(p, en->text, len))
        return TR_NONE;
    *prev = next;
    *n = len;
    return en->frame;
}

/* ---- the dump text reader (pyspy.c, pyspy_markers.c) ---- */

#define PS_NS_PER_S 1000000000LL

static inline int ps_digit(char c)
{
    return (unsigned)(c - '0') < 10;
}

/* Strings interned once per read. */
enum ps_const {
    C_STATE,
    C_IDLE,
    C_ACTIVE,
    C_ACTIVE_GIL,
    C_GIL,
    C_CAT_ERROR,
    C_PYSPY,
    C_MESSAGE,
    C_ELIDED,
    C_COUNT
};

typedef struct ps_rd {
    tr_trace *t;
    tr_input *in;
    tr_diag *diag;
    uint32_t input;
    tr_str c[C_COUNT];
    uint32_t state_set[4]; /* idle, active, active+gil, gil */
    tr_stack_slicer *slicer;
    tr_pyspy_fcache fcache;
    tr_buf scratch, clean;
    uint64_t skipped, warnings;

    /* moments */
    int markers;         /* a #tracecat-dump marker was seen */
    int have_origin;     /* origin_unix set from a marker or counter */
    int64_t origin_unix; /* ns */
    int64_t ts;          /* the current moment's time */
    uint64_t moment;     /* the current moment's number + 1; 0 before the first */
    int moment_threads;  /* threads sampled in the current moment */
    int moment_fresh;    /* a banner or marker opened it and no process line came yet */
    tr_vec touched;      /* uint32_t: processes sampled in the current moment */
    int prev_kind;

    /* where samples go */
    uint32_t process;    /* TR_NONE: none named yet in this section */
    int64_t pending_pid; /* from a banner or marker, -1 = none */
    tr_str pending_host;
    tr_str marker_host; /* the host the last marker or shell prompt naming one named */
    int32_t pending_rank;

    /* the thread block being read */
    int in_thread;
    uint32_t track;
    uint32_t state_args;
    tr_vec frames;      /* uint32_t, innermost first */
    uint32_t fprev;     /* the frame cache's entry of the block's last frame line */
    tr_vec locals;      /* ps_local */
    int locals_section; /* 1 Arguments, 2 Locals, 0 none yet */
    uint32_t elided;    /* "..." lines: frames cut out by hand, the arg "elided" */
    int orphan_warned;  /* frames outside a thread: one warning per run */

    tr_vec prev; /* ps_prev by track id */
} ps_rd;

/* Counts and reports a warning; a strict run fails with E filled. */
int ps_warn_e(ps_rd *r, const tr_line *ln, uint64_t col, const char *what, tr_error *e);
/* Starts a moment at TS (markers) or at the next dump number. */
int ps_moment_start(ps_rd *r, int timed, int64_t ts, tr_error *e);
/* Parses a decimal pid at P (up to N bytes); returns the digits' length or 0. */
size_t ps_pid(const char *p, size_t n, int64_t *pid);
/* "#tracecat-dump ..." (pyspy_markers.c): a new moment at its time. */
int ps_on_marker(ps_rd *r, const tr_line *ln, tr_error *e);
/* "#tracecat-counter ts=T pid=P NAME=VALUE..." (pyspy_markers.c). */
int ps_on_counter(ps_rd *r, const tr_line *ln, tr_error *e);

/* The readers of the shapes other than dump text; the py-spy reader picks one by the head. */
extern const tr_reader tr_reader_folded; /* also --from folded (readers/all.c) */
extern const tr_reader tr_pyspy_json;    /* dump --json, speedscope */

#endif
