/*
** chrome_impl.h: what the files of the Chrome reader share (not public;
** shared/formats/chrome.md).
**
**   chrome.c       the events: threads, phases, the document's structure, the reader
**   chrome_json.c  the JSON scanner, the input window, the scan of an event and of its args
**   chrome_args.c  strings, args and metadata into the model
**   chrome_v8.c    samples, stackFrames and V8 CPU profiles
**   chrome_flow.c  flows, and what only the end of the input settles
**   chrome_bind.c  flows bound through sorters when the sink forgets
*/
#ifndef TR_CHROME_IMPL_H
#define TR_CHROME_IMPL_H

#include "tr_map.h"
#include "tr_reader.h"
#include "tr_sink.h"
#include "tr_sorter.h"
#include "tr_text.h"

#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h> /* SSE2 is part of x86-64: string runs and indents are passed 16 bytes at a time there */
#endif

#define WINDOW_INIT ((size_t)1 << 20)   /* the first window */
#define READ_MIN    ((size_t)256 << 10) /* a refill reads at least this */
#define WINDOW_PAD  16                  /* zero bytes after the data: scans stop there */
#define EVENT_MAX   ((size_t)64 << 20)  /* an event (or a kept value) larger is an error */
#define META_KEEP   ((size_t)1 << 20)   /* top-level values kept as metadata up to this */
#define DEPTH_MAX   ((size_t)1 << 20)   /* JSON nesting the scanner follows */
#define ARGS_DEPTH  32                  /* deeper args are kept as JSON text */
#define NUM_MAX     512                 /* longer number literals are errors */
#define STR_INTERN  64                  /* longer arg strings are stored, not interned */
#define CACHE_BITS  10                  /* the reader's cache of recent strings: 1024 entries */
#define ARG_RECS    4096                /* args members recorded per event; past it, a rescan */
#define TEXT_BITS   5                   /* the cache of args kept as JSON text: 32 pairs */
#define TEXT_MAX    256                 /* longer texts are not cached */
#define KEY_BITS    8                   /* args keys predicted by the key before: 256 entries */
#define FLOW_PAGE   1024                /* flow identities by decimal id: a page's ids */
#define FLOW_PRES   15                  /* ... the texts before the id that have pages */
#define FLOW_PRELEN 64                  /* ... and their greatest length */
#define IDENT_TEXT  15ULL               /* cj_rd.idents: the text is a flow_keys string */
#define IDENT_ID    ((1ULL << 60) - 1)  /* ... the id or string, below the prefix's bits */
#define MEMO_BITS   8                   /* event prefixes met before: 256 entries */
#define MEMO_BLOCK  32                  /* ... found by a hash of their first 32, 64, 96 */
#define MEMO_BLOCKS 4                   /* ... or 128 bytes, as long as they are */
#define MEMO_MAX    240                 /* ... kept up to this length */
#define MEMO_MIN    3                   /* ... and when of this many members at least */
#define MEMO_KEYS   16                  /* ... with the keys of their first args members */

/* Rare paths stay out of line, so the hot ones save no registers; hot ones go inline in loops. */
#if defined(__GNUC__)
#define CJ_SLOW   __attribute__((noinline, cold))
#define CJ_INLINE __attribute__((always_inline)) inline
#else
#define CJ_SLOW
#define CJ_INLINE inline
#endif

/* ---- JSON tokens ---- */

enum { J_NONE = 0, J_STR, J_NUM, J_TRUE, J_FALSE, J_NULL, J_OBJ, J_ARR };

#define JF_ESC  1 /* string with escapes */
#define JF_HIGH 2 /* string with bytes >= 0x80 */
#define JF_INT  4 /* integer literal */
#define JF_ODD  8 /* NaN or Infinity */
/*
** A number without exponent of at most 15 integer and 3 fraction digits, as
** nearly all are: mant holds its digits (sign and point left out), parsed as
** they were scanned, and JF_FRAC() the count of fraction digits.
*/
#define JF_MANT       16
#define JF_FRAC(f)    ((f) >> 8 & 3)
#define JF_FRAC_SHIFT 8

/* A value: strings are their content without quotes, containers their text. */
typedef struct jtok {
    const char *p;
    size_t n;
    int type, flags;
    uint64_t mant; /* JF_MANT */
} jtok;

enum { S_OK = 0, S_MORE = 1, S_ERR = -1 };

/* What a scan sees: the bytes up to END (followed by zeros), and whether more may follow. */
typedef struct jscan {
    const char *end;
    int eof;
    const char *err_at;
    const char *err;
} jscan;

/*
** A validating skipper for whole values, resumable: with STREAM set, S_MORE
** leaves *PP at a point from which the same state goes on once more bytes
** come (long strings included), so a value of any size passes in constant
** memory.  Trailing commas before '}' and ']' are accepted.
*/
enum { W_VALUE, W_VALUE_OR_CLOSE, W_KEY_OR_CLOSE, W_COLON, W_COMMA_OR_CLOSE, W_DONE };

typedef struct jskip {
    tr_buf stack; /* '{' and '[' of the open containers */
    size_t outer; /* containers open around the value, for the nesting limit */
    int want;
    int in_str; /* streaming: inside a string whose start was consumed */
    int str_is_key;
} jskip;

/* ---- the reader's state ---- */

/* An open B (or async begin) waiting for its end. */
typedef struct open_slice {
    int64_t ts;
    tr_str name, cat;
    uint32_t args;
    uint64_t off;
    tr_str bind; /* flow v2 id, 0 = none */
    uint8_t flow_in, flow_out;
    int64_t tts, tdur; /* thread clock (tts, tdur), TR_TIME_NONE when not stated */
} open_slice;

/*
** A slice (B/E, or X) that came inside an open B of the same start: freeze
** keeps input order among slices of one start and length, so it is added
** after the slice it waits on (the open one at index WAIT), which comes
** first in the file and so encloses it, as in Catapult and Perfetto.
*/
typedef struct held_slice {
    open_slice o;
    uint32_t track, args, wait;
    int64_t dur, bytes;
} held_slice;

/* A (pid, tid) of the input. */
typedef struct thread_st {
    uint32_t process;
    uint32_t track; /* TR_NONE until an event needs it */
    int64_t tid;    /* -1 for a string tid */
    tr_str tid_str; /* the string tid, 0 when numeric */
    tr_str name;
    int32_t sort_index;
    int gpu;      /* named a GPU stream by our writer's thread_name */
    tr_vec opens; /* open_slice */
    tr_vec held;  /* held_slice: ended, waiting on an open slice of their start */
} thread_st;

/* A thread looked up lately, by its event's pid and tid tokens (they point into the window). */
typedef struct thread_seen {
    uint32_t thread;
    jtok pid, tid;
} thread_seen;

/* An async track: (cat, id, scope[, process]). */
typedef struct async_st {
    uint32_t track;
    tr_vec opens;     /* open_slice */
    tr_vec held;      /* held_slice, as thread_st's */
    int64_t first_ts; /* its earliest slice so far (INT64_MAX: none), which names it */
    tr_str first_name;
} async_st;

/*
** A flow end, bound to a slice when the input ends: 40 bytes (a Kineto
** trace has two a kernel launch).  Its flow's id is read from the identity
** when the flow is made (cj_flow_pt_id).
*/
typedef struct flow_pt {
    tr_str key; /* identity: cat, name and id ("v2", bind_id for flow v2) */
    tr_str name, cat;
    uint32_t track;
    uint32_t row; /* the slice, when known (flow v2) */
    uint32_t seq;
    int64_t ts;
    uint32_t off_lo; /* the event's byte offset (cj_flow_pt_off), for the warning when dropped */
    uint16_t off_hi;
    char ph;      /* 's', 't', 'f' */
    uint8_t bits; /* FP_ENCLOSE, FP_V2, and why it made no flow << FP_DROP (0: it did) */
} flow_pt;

_Static_assert(sizeof(flow_pt) == 40, "flow_pt: 40 bytes");

#define FP_ENCLOSE 1 /* bind to the enclosing slice, not the next one */
#define FP_V2      2 /* flow v2: the identity is "v2", bind_id */
#define FP_DROP    2 /* the shift of the reason (enum in chrome_flow.c) */

static inline uint64_t cj_flow_pt_off(const flow_pt *f)
{
    return f->off_lo | (uint64_t)f->off_hi << 32;
}

static inline int cj_flow_pt_drop(const flow_pt *f)
{
    return f->bits >> FP_DROP;
}

/* A sample whose stack frame id is resolved at the end. */
typedef struct pend_sample {
    uint32_t track;
    int64_t ts;
    tr_str sf;      /* stackFrames id, 0 = none */
    uint32_t stack; /* resolved stack when sf is 0 */
    uint32_t args;
    uint64_t off;
} pend_sample;

/* A stackFrames entry. */
typedef struct sframe {
    tr_str id, parent;
    tr_frame f;
    uint32_t stack; /* TR_NONE until resolved */
    int busy;       /* resolving: a parent cycle */
} sframe;

/* A V8 CPU profile ("Profile" and its "ProfileChunk"s, by pid and id). */
typedef struct v8_prof {
    uint32_t track; /* the Profile event's thread */
    int64_t ts;     /* time of the last sample: startTime plus the deltas so far */
} v8_prof;

/* A metadata value kept for the input's arg set (built once, at the end). */
typedef struct meta_kv {
    tr_str key;
    int type;
    uint64_t bits;
} meta_kv;

/* An open-addressing map from a (a, b) pair to a row; slots hold row + 1. */
typedef struct pair_map {
    uint64_t *ka, *kb;
    uint32_t *val;
    size_t cap, n;
} pair_map;

/* A string the reader interned lately: the trace's copy of its text and its id. */
typedef struct cache_ent {
    const char *p;
    size_t n;
    tr_str id;
} cache_ent;

/*
** A member of an event's args object, recorded as the event is scanned so
** that its text is read once: a scalar, a container kept as JSON text, or
** (OPEN) a nested object whose members follow one level deeper.
*/
typedef struct arg_rec {
    jtok key, val;
    int depth, open;
    tr_str text; /* a container's compact JSON text, when the cache knew it; else 0 */
} arg_rec;

/*
** An args value kept as JSON text (Kineto's "Input Dims", "grid"): its
** bytes as the input wrote them and the compact text's id.  An event whose
** value has the same bytes passes them without scanning them again (they
** were valid) or compacting them.
*/
typedef struct text_ent {
    uint32_t n; /* 0: empty */
    tr_str id;
    char raw[TEXT_MAX];
} text_ent;

enum cj_const {
    K_NAME,
    K_SORT_INDEX,
    K_LABELS,
    K_RANK,
    K_BYTES,
    K_PH,
    K_CAT,
    K_ID,
    K_UNFINISHED,
    K_STEP,
    K_THREAD_STATE,
    K_CLOCK,
    K_UNBOUND_FLOWS,
    K_COUNT
};

/* A C event's series (ev_memo.series): the event's name and process, the series, its track. */
typedef struct memo_series {
    tr_str name, series;
    uint32_t process, track;
} memo_series;

/*
** The start of an event as met before (cj_unit_event): its members up to
** the first that is not ph, cat, name, pid or tid (those an event of one
** kind repeats), with the comma after the last.  An event that starts with
** the same bytes takes their tokens without scanning them.
*/
typedef struct ev_memo {
    uint64_t h; /* the hash of its first whole MEMO_BLOCKs, up to MEMO_BLOCKS; 0: empty */
    uint32_t n; /* the prefix's length */
    uint32_t at[5];
    jtok tok[5]; /* ph, cat, name, pid, tid (J_NONE: not there); at[k] is tok[k]'s offset */
    struct ev_memo *next; /* the start of the event after the last of this start */
    /* what the events of this start gave, once one has (phase, timed_event) */
    int has_strs, has_thread;
    tr_str name, cat;
    uint32_t thread;
    /*
    ** The keys of their args' first members, by position (arg_emit): events
    ** of one kind list the same keys, where key_after is misled by a key
    ** that kinds share and follow with different ones.
    */
    cache_ent keys[MEMO_KEYS];
    memo_series series[MEMO_KEYS];
    char text[MEMO_MAX];
} ev_memo;

/* The text before a flow identity's decimal id, whose ids have pages (cj_flow_key). */
typedef struct flow_pre {
    size_t n;
    char text[FLOW_PRELEN];
} flow_pre;

/* The event fields the reader looks at. */
typedef struct cev {
    jtok ph, name, cat, ts, dur, pid, tid, id, id2, s, bp, args, sf, stack, bind_id, flow_in,
        flow_out, scope, tts, tdur;
    uint64_t off;
    int dup;
    int keys;      /* whether the object has members */
    ev_memo *memo; /* the start it shares with events before, or NULL */
} cev;

/* Where the reader is in the document, from one call of next to the next. */
enum cj_state {
    ST_START,     /* nothing read yet */
    ST_EVENTS,    /* in the events array (form_array: the document is it) */
    ST_KEYS,      /* at a member of the top-level object */
    ST_AFTER_KEY, /* after a member's value: ',' or '}' */
    ST_CONTAINER, /* in "samples" (open '[') or "stackFrames" (open '{') */
    ST_TAIL,      /* after the document */
    ST_OPENS,     /* the end: slices never closed, */
    ST_SAMPLES,   /* samples waiting for their stack frames, */
    ST_END,       /* flows, names and the input's info */
    ST_DONE
};

typedef struct cj_rd {
    int state; /* enum cj_state */
    int form_array;
    int has_events; /* the object form had traceEvents, samples or stackFrames */
    char open;
    size_t next_sample; /* ST_SAMPLES: the pending sample to add next */
    tr_trace *t;
    tr_input *in;
    tr_diag *diag;
    tr_error *e;
    uint32_t input;
    tr_str c[K_COUNT];

    /* the window: unread data is buf[pos, end), followed by WINDOW_PAD zeros */
    char *buf;
    size_t cap, pos, end;
    uint64_t base; /* stream offset of buf[0] */
    int eof;
    jskip skip;
    jscan js;

    tr_buf scratch, key, raw;
    size_t prefix[ARGS_DEPTH]; /* flattening: key's length at each depth of nesting */
    tr_vec recs;               /* arg_rec: the members of the event's args */
    int recs_over;             /* more than ARG_RECS: the args are scanned again */
    int bytes_seen;            /* cj_event_args: the first "bytes" arg was met */
    int64_t bytes;             /* ... and its value, -1 when not a size */
    cache_ent cache[1 << CACHE_BITS];
    text_ent texts[2 << TEXT_BITS];
    /*
    ** An args key by the key before it (the last one added): events of one
    ** kind list the same keys in the same order, so this answers most keys
    ** with one compare and no hash.
    */
    cache_ent key_after[1 << KEY_BITS];
    ev_memo memo[1 << MEMO_BITS];
    ev_memo *memo_last; /* the start of the event before, or NULL */
    ev_memo *keys_of;   /* cj_event_args: the memo of the event whose set is built, or NULL */
    tr_str last_key;    /* or, before an event's first, its name */
    int64_t origin;     /* the first timestamp, in ns */
    int have_origin;
    uint64_t warnings;

    tr_vec threads; /* thread_st */
    pair_map thread_map;
    /*
    ** A table of the reader's own could not grow: the read fails (as the
    ** trace's own failures do) where callers saw only TR_NONE; so does a
    ** buffer's lost append (tr_buf.nomem, checked by cj_lost).
    */
    int oom;
    /*
    ** The last two threads the map gave, the later first (thread TR_NONE: none),
    ** by their tokens: events come in runs of one thread, and a Kineto trace
    ** goes back and forth between a CPU thread and a GPU stream.
    */
    thread_seen seen[2];
    tr_vec asyncs; /* async_st */
    pair_map async_map;
    tr_vec flows; /* flow_pt */
    /*
    ** The flows' identities (cat, name and id; "v2" and bind_id), numbered
    ** from 1 as they come, apart from the model's strings: a flow's is
    ** needed only until its points are bound, and a Kineto trace has one for
    ** every kernel launch.  IDENTS holds what each is: its text in flow_keys
    ** (IDENT_TEXT), or a prefix and a decimal id (below).
    */
    tr_vec idents;   /* uint64_t: IDENT_TEXT << 60 | flow_keys string, or prefix << 60 | id */
    tr_vec ident_of; /* uint32_t: the identity of each flow_keys string */
    tr_trace *flow_keys;
    /*
    ** Identities that end in a decimal id after one of FLOW_PRES texts (Kineto's
    ** "ac2g", counting up: one a kernel launch) are found by that text and
    ** the id in pages of FLOW_PAGE ids, which the next ids reuse, not in
    ** flow_keys' index (a cache miss each), and keep no text of their own.
    */
    flow_pre pres[FLOW_PRES];
    size_t n_pres;
    pair_map page_map; /* (prefix, id / FLOW_PAGE) -> pages row */
    tr_vec pages;      /* tr_str *, FLOW_PAGE ids each (0: none yet) */
    size_t paged;      /* identities in the pages */
    int pages_full;    /* no more prefixes or pages: new ones go to the index */
    uint32_t last_pre; /* the prefix and page of the last identity found in pages */
    uint64_t last_page_no;
    tr_str *last_page;
    tr_vec samples; /* pend_sample */
    tr_vec frames;  /* sframe */
    pair_map frame_map;
    tr_vec profs;      /* v8_prof */
    pair_map prof_map; /* (process, id) -> profs row */
    pair_map node_map; /* (profs row, node id) -> stack */
    tr_vec meta;       /* meta_kv */
    uint32_t first_slice;
    /*
    ** A sink that forgets (tr_sink.forget) drops the rows of each batch:
    ** flows are then bound through sorters (chrome_bind.c), not by looking
    ** back at the slices.
    */
    tr_sink *sink;
    int forgets;
    int no_args; /* tr_read_opts.no_args: an event whose slice or instant is made now adds none */
    uint32_t n_points;                            /* flow points so far: the next one's seq */
    tr_sorter *bind_slices, *bind_points, *chain; /* forgets: slice keys, points, bound points */
    tr_vec group;                                 /* flow_pt: the points of one flow, or waiting */
    int bound, flows_done;                        /* forgets: points bound; flows chained */
    uint64_t unbound;                             /* forgets: points that made no flow */
    int32_t rank;                                 /* distributedInfo.rank, -1 = none */
    int64_t base_ns;                              /* baseTimeNanoseconds, INT64_MIN = none */
    int bad_unit;                                 /* displayTimeUnit was not ms/ns */
} cj_rd;

/* A scanner of one unit at *PP (cj_win_unit): S_OK, S_MORE or S_ERR. */
typedef int (*unit_fn)(cj_rd *r, const char **pp, void *arg);

/* ---- small scanners, inline: they run on every token ---- */

static inline const char *cj_jws(const char *p)
{
    /* ' ' is the greatest of the four: one test passes any other byte */
    if ((unsigned char)*p > ' ') return p;
    /* one blank, as most writers put after ':' and ',' */
    if (*p == ' ' && (unsigned char)p[1] > ' ') return p + 1;
    while ((unsigned char)*p <= ' ' && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
    return p;
}

/*
** The blanks at P: a pretty-printer's newline and indent between events
** passed at once, sixteen bytes of it a test (the window's padding covers
** the load); anything else as cj_jws passes it.
*/
static inline const char *cj_blanks(const char *p)
{
#if defined(__SSE2__) && defined(__GNUC__)
    p += *p == '\n';
    unsigned mask = (unsigned)_mm_movemask_epi8(
        _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)p), _mm_set1_epi8(' ')));
    if (mask != 0xffff) p += __builtin_ctz(~mask);
#endif
    return cj_jws(p);
}

static inline int cj_is_hex(char c)
{
    return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}

static inline int cj_is_digit(char c)
{
    return (unsigned)(c - '0') < 10;
}

/*
** The two cache entries (the newer first) a container's text at P may be
** in, by its first 16 bytes (the window's padding covers them).
*/
static inline text_ent *cj_text_slot(cj_rd *r, const char *p)
{
    uint64_t a, b;
    memcpy(&a, p, 8);
    memcpy(&b, p + 8, 8);
    return &r->texts[2 * (tr_hash_mix(a ^ (b * 0x9E3779B97F4A7C15ULL)) >> (64 - TEXT_BITS))];
}

/* 1 when the N bytes at A and B are equal, inline: no call on the hit paths of the caches. */
static inline int cj_same_bytes(const char *a, const char *b, size_t n)
{
    if (n > 16) {
        uint64_t d = 0;
        for (size_t i = 0; i + 8 < n; i += 8) {
            uint64_t x, y;
            memcpy(&x, a + i, 8);
            memcpy(&y, b + i, 8);
            d |= x ^ y;
        }
        uint64_t x, y; /* the last eight, overlapping */
        memcpy(&x, a + n - 8, 8);
        memcpy(&y, b + n - 8, 8);
        return (d | (x ^ y)) == 0;
    }
    if (n >= 8) { /* the first and the last eight, overlapping */
        uint64_t a0, b0, a1, b1;
        memcpy(&a0, a, 8);
        memcpy(&b0, b, 8);
        memcpy(&a1, a + n - 8, 8);
        memcpy(&b1, b + n - 8, 8);
        return ((a0 ^ b0) | (a1 ^ b1)) == 0;
    }
    if (n >= 4) {
        uint32_t a0, b0, a1, b1;
        memcpy(&a0, a, 4);
        memcpy(&b0, b, 4);
        memcpy(&a1, a + n - 4, 4);
        memcpy(&b1, b + n - 4, 4);
        return ((a0 ^ b0) | (a1 ^ b1)) == 0;
    }
    return !n || (a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1]);
}

/* The stream offset of P, a pointer into the window. */
static inline uint64_t cj_off_of(const cj_rd *r, const char *p)
{
    return r->base + (uint64_t)(p - r->buf);
}

/* Whether T is the string S, as written (no escapes). */
static inline int cj_tok_eq(const jtok *t, const char *s)
{
    size_t n = strlen(s);
    return t->type == J_STR && t->n == n && memcmp(t->p, s, n) == 0;
}

/* 1 and its value in *V when number token T is an integer of at most 15 digits. */
static inline int cj_tok_small_int(const jtok *t, int64_t *v)
{
    if ((t->flags & (JF_INT | JF_MANT)) != (JF_INT | JF_MANT)) return 0;
    *v = t->p[0] == '-' ? -(int64_t)t->mant : (int64_t)t->mant;
    return 1;
}

/* The slow path of cj_str_text: escapes or bytes >= 0x80 (chrome_json.c). */
const char *cj_str_unescape(const jtok *t, tr_buf *out, size_t *n, int *bad);

/*
** The text of string token T, unescaped and valid UTF-8 (bad bytes become
** U+FFFD, *BAD is set), in OUT; or T's own bytes when it needs neither.
*/
static inline const char *cj_str_text(const jtok *t, tr_buf *out, size_t *n, int *bad)
{
    if (t->type == J_STR && !(t->flags & (JF_ESC | JF_HIGH))) {
        *n = t->n;
        return t->p;
    }
    return cj_str_unescape(t, out, n, bad);
}

/* ---- the functions the files share ---- */

/* chrome_json.c */
int cj_scan_str(jscan *j, const char **pp, jtok *t);
int cj_scan_scalar(jscan *j, const char **pp, jtok *t);
double cj_tok_double(const jtok *t);
int cj_tok_us(const jtok *t, int64_t *ns);
int cj_tok_int(const jtok *t, int64_t *v);
int cj_win_fill(cj_rd *r, size_t keep);
int cj_win_ws(cj_rd *r, char *c);
int cj_win_unit(cj_rd *r, unit_fn fn, void *arg, size_t limit, int *st);
int cj_unit_str(cj_rd *r, const char **pp, void *arg);
int cj_unit_value(cj_rd *r, const char **pp, void *arg);
int cj_win_skip_stream(cj_rd *r);
const char *cj_value_end(const char *p);
int cj_args_scan(cj_rd *r, const char **pp, int depth, int emit, int *bad);
int cj_unit_event(cj_rd *r, const char **pp, void *arg);

/* chrome_checked.c */
void cj_compact_json(tr_buf *b, const char *p, const char *end);
jtok cj_member(cj_rd *r, const jtok *t, const char *name);
int cj_next_elem(cj_rd *r, const char **pp, jtok *v);
const char *cj_elems(const jtok *t);

/* chrome_args.c */
uint32_t cj_map_get(const pair_map *m, uint64_t a, uint64_t b);
int cj_map_put(pair_map *m, uint64_t a, uint64_t b, uint32_t v);
void cj_map_fini(pair_map *m);
tr_loc cj_loc_at(const cj_rd *r, uint64_t off);
int cj_warn_at(cj_rd *r, uint64_t off, const char *fmt, const char *arg);
int cj_fail_at(cj_rd *r, uint64_t off, int code, const char *what);
tr_str cj_intern(cj_rd *r, const char *s, size_t n);
tr_str cj_tok_intern(cj_rd *r, const jtok *t, int *bad);
int cj_arg_num(cj_rd *r, tr_str key, const jtok *t, int64_t *iv);
tr_str cj_intern_key(cj_rd *r);
void cj_arg_emit(cj_rd *r, const arg_rec *a, int *bad);
void cj_emit_recs(cj_rd *r, int *bad);
void cj_add_args(cj_rd *r, const jtok *t, int recorded, int *bad);
uint32_t cj_event_args(cj_rd *r, const cev *ev, int64_t *bytes, int *bad);
int cj_meta_push(cj_rd *r, tr_str key, int type, uint64_t bits);
int cj_meta_event(cj_rd *r, const cev *ev, int *bad);
int cj_id_text(cj_rd *r, const cev *ev, tr_buf *out, int *local, int *bad);
uint32_t cj_args_merge(cj_rd *r, uint32_t set, const jtok *extra, int unfinished, int *bad);
int64_t cj_bytes_of(cj_rd *r, uint32_t set);
int cj_read_meta_value(cj_rd *r, tr_str key);
int cj_read_system_object(cj_rd *r);

/* chrome_v8.c */
int cj_add_pending_sample(cj_rd *r, uint32_t track, int64_t ts, const jtok *sf, const jtok *stack,
                          uint32_t args, uint64_t off, int *bad);
int cj_v8_profile(cj_rd *r, const cev *ev, int chunk, int64_t ts, tr_str cat, uint32_t th,
                  int *bad);
int cj_handle_sample(cj_rd *r, const jtok *obj);
int cj_handle_frame(cj_rd *r, const jtok *id, const jtok *obj);
int cj_finish_samples(cj_rd *r, int *budget);

/* chrome_flow.c */
uint64_t cj_flow_id_num(const char *s, size_t n);
int cj_flow_point(cj_rd *r, tr_str key, tr_str name, tr_str cat, uint32_t track, uint32_t row,
                  int64_t ts, char ph, int bits, uint64_t off);
int cj_flow_v2(cj_rd *r, const open_slice *o, uint32_t track, uint32_t row);
int cj_flow_cmp(const void *a, const void *b);
int cj_chain_flows(cj_rd *r, flow_pt *f, size_t n, uint64_t *unbound);
int cj_slice_add(cj_rd *r, uint32_t track, int64_t ts, int64_t dur, tr_str name, tr_str cat,
                 int64_t bytes, uint32_t args, int64_t tts, int64_t tdur, uint32_t *row);
int cj_async_close(cj_rd *r, async_st *a, const open_slice *o, int64_t dur, uint32_t args);
void cj_async_name(async_st *a, const open_slice *o);
tr_str cj_bind_key(cj_rd *r, const cev *ev, int *bad);
/* The identity of flow identity text S (N bytes) (r->idents); 0 when out of memory. */
tr_str cj_flow_key(cj_rd *r, const char *s, size_t n);
void cj_flow_keys_fini(cj_rd *r);
/* The text of identity KEY (rebuilt in r->raw when it keeps none); *N its length when N. */
const char *cj_flow_key_text(cj_rd *r, tr_str key, size_t *n);
int cj_close_open(cj_rd *r, const open_slice *o, uint32_t track, int64_t dur, uint32_t args);
int cj_finish_opens(cj_rd *r);
int cj_hold(cj_rd *r, const tr_vec *opens, tr_vec *held, const held_slice *h);
int cj_finish_end(cj_rd *r, int *budget);

/* chrome_bind.c */
int cj_bind_open(cj_rd *r, const tr_read_opts *o);
void cj_bind_close(cj_rd *r);
int cj_bind_slice(cj_rd *r, uint32_t track, int64_t ts, int64_t dur, uint32_t row);
int cj_bind_point(cj_rd *r, const flow_pt *f);
int cj_bind_step(cj_rd *r, int *budget);

/* Whether a table or buffer of the reader's own lost something for want of memory. */
static inline int cj_lost(const cj_rd *r)
{
    return r->oom | r->key.nomem | r->scratch.nomem | r->raw.nomem;
}

/* chrome.c */
uint32_t cj_thread_of(cj_rd *r, const jtok *pidt, const jtok *tidt, int *bad);
thread_st *cj_thread_at(cj_rd *r, uint32_t id);
uint32_t cj_track_of(cj_rd *r, uint32_t thread, tr_str cat);
int64_t cj_rel_ts(cj_rd *r, int64_t ns);

#endif
