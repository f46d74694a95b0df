/*
** chrome.c: Chrome Trace Event JSON (shared/formats/chrome.md), including
** PyTorch profiler (Kineto) traces.
**
** The reader streams: a window of the decompressed input is scanned by a JSON
** scanner of our own, one event object at a time, and each event goes into
** the model before the next is read.  The scan of an event also flattens its
** args, so their text is read once.  An event must fit in the window (up to
** EVENT_MAX); the values of top-level keys that are not events are kept as
** metadata when small and skipped in constant memory when not.  Nothing
** builds a tree of the document.
**
** What each phase becomes:
**   B/E, X       slices on the thread's track (E closes the innermost B)
**   i/I/R        instants with their scope
**   C            one counter track per series
**   M            process/thread names, sort indexes, labels (applied whenever
**                they arrive); other M events go into the input's metadata
**   b/n/e, S/T/p/F  slices and instants on async tracks keyed by cat and id
**   s/t/f, bind_id  flows, bound to slices when the input ends
**   P, samples   samples whose stacks come from stackFrames; V8's Profile and
**                ProfileChunk also unpack their CPU profile into samples
**   N/O/D ( ) v/V c  instants on their thread, with the phase as category
** GPU streams of Kineto traces (kernels, memcpys) become GPU tracks.
*/
#include "tr_map.h"
#include "tr_reader.h"
#include "tr_text.h"
#include "tr_utf8.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- JSON tokens ---- */

enum { J_NONE = 0, J_STR, J_NUM, J_TRUE, J_FALSE, J_NULL, J_OBJ, J_ARR };

#define JF_ESC  1 /* string with escapes */
#define JF_HIGH 2 /* string with bytes >= 0x80 */
#define JF_INT  4 /* integer literal */
#define JF_ODD  8 /* NaN or Infinity */

/* A value: strings are their content without quotes, containers their text. */
typedef struct jtok {
    const char *p;
    size_t n;
    int type, flags;
} jtok;

enum { S_OK = 0, S_MORE = 1, S_ERR = -1 };

/* What a scan sees: the bytes up to END (followed by zeros), and whether more may follow. */
typedef struct jscan {
    const char *end;
    int eof;
    const char *err_at;
    const char *err;
} jscan;

static int jerr(jscan *j, const char *at, const char *what)
{
    j->err_at = at;
    j->err = what;
    return S_ERR;
}

/* At a zero byte: the data ends here (more may come) or the input holds a NUL. */
static int jstop(jscan *j, const char *p, const char *what)
{
    if (p >= j->end) return j->eof ? jerr(j, p, "unexpected end of input") : S_MORE;
    return jerr(j, p, what);
}

static const char *jws(const char *p)
{
    /* ' ' is the greatest of the four: one test passes any other byte */
    while ((unsigned char)*p <= ' ' && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
    return p;
}

static int is_hex(char c)
{
    return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}

/* The first byte at or after P that ends a run of plain string content. */
static inline const char *str_run(const char *p)
{
    /* eight bytes at a time: a byte's high bit marks '"', '\\', < 0x20 or >= 0x80 */
    for (;; p += 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        uint64_t q = w ^ 0x2222222222222222ULL, b = w ^ 0x5c5c5c5c5c5c5c5cULL;
        uint64_t spec = (((q - 0x0101010101010101ULL) & ~q) | ((b - 0x0101010101010101ULL) & ~b) |
                         (w - 0x2020202020202020ULL) | w) &
                        0x8080808080808080ULL;
        if (!spec) continue;
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        /* borrows only carry upwards: the lowest marked byte is a true stop */
        return p + (__builtin_ctzll(spec) >> 3);
#else
        for (unsigned char c; (c = (unsigned char)*p) != '"' && c != '\\' && c >= 0x20 && c < 0x80;)
            p++;
        return p;
#endif
    }
}

/* str_body once a run stops short of the closing quote: escapes, high bytes, errors. */
static int str_body_slow(jscan *j, const char **pp, int *flags)
{
    const char *p = *pp;
    for (;;) {
        p = str_run(p);
        unsigned char c = (unsigned char)*p;
        if (c == '"') break;
        if (c >= 0x80) {
            *flags |= JF_HIGH;
            p++;
            continue;
        }
        if (c == '\\') {
            *flags |= JF_ESC;
            char e = p[1];
            if (e == 'u') {
                for (int k = 2; k < 6; k++) {
                    if (!p[k] && p + k >= j->end) {
                        *pp = p;
                        return jstop(j, p + k, "");
                    }
                    if (!is_hex(p[k])) return jerr(j, p, "bad \\u escape in string");
                }
                p += 6;
                continue;
            }
            if (e && strchr("\"\\/bfnrt", e)) {
                p += 2;
                continue;
            }
            if (!e && p + 1 >= j->end) {
                *pp = p;
                return jstop(j, p + 1, "");
            }
            return jerr(j, p, "bad escape in string");
        }
        if (!c && p >= j->end) {
            *pp = p;
            return jstop(j, p, "");
        }
        return jerr(j, p, c ? "control character in string" : "NUL byte in string");
    }
    *pp = p;
    return S_OK;
}

/*
** Advances *PP through string content up to the closing quote (left at it).
** S_MORE leaves *PP where scanning can resume (never inside an escape).
*/
static inline int str_body(jscan *j, const char **pp, int *flags)
{
    const char *p = str_run(*pp);
    *pp = p;
    return *p == '"' ? S_OK : str_body_slow(j, pp, flags);
}

/* A string token at *PP (its opening quote); *PP ends after the closing quote. */
static inline int scan_str(jscan *j, const char **pp, jtok *t)
{
    const char *p = *pp + 1;
    int flags = 0, rc = str_body(j, &p, &flags);
    if (rc != S_OK) return rc;
    t->p = *pp + 1;
    t->n = (size_t)(p - t->p);
    t->type = J_STR;
    t->flags = flags;
    *pp = p + 1;
    return S_OK;
}

static int is_digit(char c)
{
    return (unsigned)(c - '0') < 10;
}

/* The literal WORD at P (true, false, null, NaN, Infinity). */
static int scan_word(jscan *j, const char *p, const char *word)
{
    for (size_t k = 0; word[k]; k++) {
        if (p[k] == word[k]) continue;
        return p[k] ? jerr(j, p, "invalid literal") : jstop(j, p + k, "invalid literal");
    }
    return S_OK;
}

static int scan_num(jscan *j, const char **pp, jtok *t)
{
    const char *p = *pp, *s = p;
    int flags = JF_INT;
    if (*p == '-') p++;
    if (*p == 'I') {
        int rc = scan_word(j, p, "Infinity");
        if (rc != S_OK) return rc;
        p += 8;
        flags = JF_ODD;
    } else {
        if (*p == '0') {
            p++;
        } else if (is_digit(*p)) {
            while (is_digit(*p)) p++;
        } else {
            return *p ? jerr(j, p, "invalid number") : jstop(j, p, "invalid number");
        }
        if (*p == '.') {
            flags = 0;
            p++;
            if (!is_digit(*p)) return *p ? jerr(j, p, "invalid number") : jstop(j, p, "");
            while (is_digit(*p)) p++;
        }
        if (*p == 'e' || *p == 'E') {
            flags = 0;
            p++;
            if (*p == '+' || *p == '-') p++;
            if (!is_digit(*p)) return *p ? jerr(j, p, "invalid number") : jstop(j, p, "");
            while (is_digit(*p)) p++;
        }
    }
    /* A number that reaches the end of the data may go on in the next read. */
    if (p >= j->end && !j->eof) return S_MORE;
    if ((size_t)(p - s) > NUM_MAX) return jerr(j, s, "number too long");
    t->p = s;
    t->n = (size_t)(p - s);
    t->type = J_NUM;
    t->flags = flags;
    *pp = p;
    return S_OK;
}

/* A scalar (string, number, literal) at *PP. */
static inline int scan_scalar(jscan *j, const char **pp, jtok *t)
{
    const char *p = *pp;
    static const struct {
        char c;
        const char *word;
        int type, flags;
    } lits[] = {{'t', "true", J_TRUE, 0},
                {'f', "false", J_FALSE, 0},
                {'n', "null", J_NULL, 0},
                {'N', "NaN", J_NUM, JF_ODD}};
    if (*p == '"') return scan_str(j, pp, t);
    if (*p == '-' || is_digit(*p) || *p == 'I') return scan_num(j, pp, t);
    for (size_t i = 0; i < sizeof lits / sizeof lits[0]; i++) {
        if (*p != lits[i].c) continue;
        int rc = scan_word(j, p, lits[i].word);
        if (rc != S_OK) return rc;
        t->p = p;
        t->n = strlen(lits[i].word);
        t->type = lits[i].type;
        t->flags = lits[i].flags;
        *pp = p + t->n;
        return S_OK;
    }
    return *p ? jerr(j, p, "expected a JSON value") : jstop(j, p, "expected a JSON value");
}

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

static void skip_reset(jskip *k)
{
    tr_buf_reset(&k->stack);
    k->outer = 0;
    k->want = W_VALUE;
    k->in_str = 0;
}

static int skip_after_value(jskip *k)
{
    k->want = k->stack.len ? W_COMMA_OR_CLOSE : W_DONE;
    return k->want == W_DONE;
}

static int skip_run(jscan *j, jskip *k, const char **pp, int stream)
{
    const char *p = *pp;
    for (;;) {
        if (k->in_str) {
            int flags = 0, rc = str_body(j, &p, &flags);
            if (rc != S_OK) {
                *pp = p;
                return rc;
            }
            p++;
            k->in_str = 0;
            if (k->str_is_key)
                k->want = W_COLON;
            else if (skip_after_value(k))
                break;
        }
        p = jws(p);
        *pp = p;
        char c = *p;
        if (!c) {
            if (p >= j->end) return j->eof ? jerr(j, p, "unexpected end of input") : S_MORE;
            return jerr(j, p, "NUL byte");
        }
        switch (k->want) {
        case W_VALUE_OR_CLOSE:
            if (c == ']') {
                k->stack.p[--k->stack.len] = '\0';
                p++;
                if (skip_after_value(k)) goto done;
                continue;
            }
            /* fall through */
        case W_VALUE:
            if (c == '{' || c == '[') {
                if (k->outer + k->stack.len >= DEPTH_MAX) return jerr(j, p, "nesting too deep");
                if (tr_buf_addc(&k->stack, c) != TR_OK) return jerr(j, p, "out of memory");
                k->want = c == '{' ? W_KEY_OR_CLOSE : W_VALUE_OR_CLOSE;
                p++;
                continue;
            }
            if (c == '"' && stream) {
                k->in_str = 1;
                k->str_is_key = 0;
                p++;
                continue;
            }
            {
                jtok t;
                int rc = scan_scalar(j, &p, &t);
                if (rc != S_OK) return rc;
            }
            if (skip_after_value(k)) goto done;
            continue;
        case W_KEY_OR_CLOSE:
            if (c == '}') {
                k->stack.p[--k->stack.len] = '\0';
                p++;
                if (skip_after_value(k)) goto done;
                continue;
            }
            if (c != '"') return jerr(j, p, "expected a string key");
            if (stream) {
                k->in_str = 1;
                k->str_is_key = 1;
                p++;
                continue;
            } else {
                jtok t;
                int rc = scan_str(j, &p, &t);
                if (rc != S_OK) return rc;
                k->want = W_COLON;
            }
            continue;
        case W_COLON:
            if (c != ':') return jerr(j, p, "expected ':'");
            p++;
            k->want = W_VALUE;
            continue;
        default: { /* W_COMMA_OR_CLOSE */
            char open = k->stack.p[k->stack.len - 1];
            if (c == ',') {
                k->want = open == '{' ? W_KEY_OR_CLOSE : W_VALUE_OR_CLOSE;
                p++;
                continue;
            }
            if ((c == '}' && open == '{') || (c == ']' && open == '[')) {
                k->stack.p[--k->stack.len] = '\0';
                p++;
                if (skip_after_value(k)) goto done;
                continue;
            }
            return jerr(j, p, open == '{' ? "expected ',' or '}'" : "expected ',' or ']'");
        }
        }
    }
done:
    *pp = p;
    return S_OK;
}

/* ---- the reader's state ---- */

/* An open B (or async begin) waiting for its end. */
typedef struct open_slice {
    int64_t ts;
    tr_str name, cat;
    uint32_t args;
    uint64_t off;
    tr_str bind; /* flow v2 id, 0 = none */
    uint8_t flow_in, flow_out;
} open_slice;

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
} thread_st;

/* An async track: (cat, id, scope[, process]). */
typedef struct async_st {
    uint32_t track;
    tr_vec opens;
} async_st;

/* A flow end, bound to a slice when the input ends. */
typedef struct flow_pt {
    tr_str key; /* identity: cat, name and id */
    uint64_t id;
    tr_str name, cat;
    uint32_t track;
    uint32_t row; /* the slice, when known (flow v2) */
    int64_t ts;
    uint32_t seq;
    char ph;         /* 's', 't', 'f' */
    uint8_t enclose; /* bind to the enclosing slice, not the next one */
} flow_pt;

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
} arg_rec;

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

static const char *const cj_const_text[K_COUNT] = {
    [K_NAME] = "name",
    [K_SORT_INDEX] = "sort_index",
    [K_LABELS] = "labels",
    [K_RANK] = "rank",
    [K_BYTES] = "bytes",
    [K_PH] = "ph",
    [K_CAT] = "cat",
    [K_ID] = "id",
    [K_UNFINISHED] = "unfinished",
    [K_STEP] = "step",
    [K_THREAD_STATE] = "thread_state",
    [K_CLOCK] = "Trace Event timestamps (microseconds, as the trace states them)",
    [K_UNBOUND_FLOWS] = "unbound_flow_points",
};

/* The event fields the reader looks at. */
typedef struct cev {
    jtok ph, name, cat, ts, dur, pid, tid, id, id2, s, bp, args, sf, stack, bind_id, flow_in,
        flow_out, scope, tts, tdur;
    uint64_t off;
    int dup;
    size_t keys;
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
    int bytes_seen;            /* event_args: the first "bytes" arg was met */
    int64_t bytes;             /* ... and its value, -1 when not a size */
    cache_ent cache[1 << CACHE_BITS];
    int64_t origin; /* the first timestamp, in ns */
    int have_origin;
    uint64_t warnings;

    tr_vec threads; /* thread_st */
    pair_map thread_map;
    uint32_t last_thread;
    jtok last_pid, last_tid;
    tr_vec asyncs; /* async_st */
    pair_map async_map;
    tr_vec flows;   /* flow_pt */
    tr_vec samples; /* pend_sample */
    tr_vec frames;  /* sframe */
    pair_map frame_map;
    tr_vec profs;      /* v8_prof */
    pair_map prof_map; /* (process, id) -> profs row */
    pair_map node_map; /* (profs row, node id) -> stack */
    tr_vec meta;       /* meta_kv */
    uint32_t first_slice;
    int32_t rank;    /* distributedInfo.rank, -1 = none */
    int64_t base_ns; /* baseTimeNanoseconds, INT64_MIN = none */
    int bad_unit;    /* displayTimeUnit was not ms/ns */
} cj_rd;

/* ---- small helpers ---- */

static uint32_t map_get(const pair_map *m, uint64_t a, uint64_t b)
{
    if (!m->cap) return TR_NONE;
    size_t i = tr_hash_mix(a * 31 + tr_hash_mix(b)) & (m->cap - 1);
    while (m->val[i]) {
        if (m->ka[i] == a && m->kb[i] == b) return m->val[i] - 1;
        i = (i + 1) & (m->cap - 1);
    }
    return TR_NONE;
}

static int map_put(pair_map *m, uint64_t a, uint64_t b, uint32_t v)
{
    if ((m->n + 1) * 2 > m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 64;
        pair_map g = {tr_calloc(cap, 8), tr_calloc(cap, 8), tr_calloc(cap, 4), cap, 0};
        if (!g.ka || !g.kb || !g.val) {
            tr_free(g.ka), tr_free(g.kb), tr_free(g.val);
            return TR_FATAL;
        }
        for (size_t i = 0; i < m->cap; i++)
            if (m->val[i]) map_put(&g, m->ka[i], m->kb[i], m->val[i] - 1);
        tr_free(m->ka), tr_free(m->kb), tr_free(m->val);
        *m = g;
    }
    size_t i = tr_hash_mix(a * 31 + tr_hash_mix(b)) & (m->cap - 1);
    while (m->val[i]) i = (i + 1) & (m->cap - 1);
    m->ka[i] = a;
    m->kb[i] = b;
    m->val[i] = v + 1;
    m->n++;
    return TR_OK;
}

static void map_fini(pair_map *m)
{
    tr_free(m->ka), tr_free(m->kb), tr_free(m->val);
}

static tr_loc loc_at(const cj_rd *r, uint64_t off)
{
    tr_loc loc = {tr_input_name(r->in), 0, 0, off + 1};
    return loc;
}

/* A warning about the event at byte OFF; TR_FAIL under --strict. */
static int warn_at(cj_rd *r, uint64_t off, const char *fmt, const char *arg)
{
    tr_loc loc = loc_at(r, off);
    r->warnings++;
    return tr_warnf(r->diag, r->e, &loc, fmt, arg) == TR_FAIL ? TR_FAIL : TR_OK;
}

static int fail_at(cj_rd *r, uint64_t off, int code, const char *what)
{
    tr_loc loc = loc_at(r, off);
    return tr_errorf(r->e, code, &loc, "%s", what);
}

static uint64_t off_of(const cj_rd *r, const char *p)
{
    return r->base + (uint64_t)(p - r->buf);
}

/* ---- strings ---- */

static uint32_t hex4(const char *p)
{
    uint32_t v = 0;
    for (int k = 0; k < 4; k++) {
        char c = p[k];
        v = v << 4 | (uint32_t)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
    }
    return v;
}

/*
** The text of string token T, unescaped and valid UTF-8 (bad bytes become
** U+FFFD, *BAD is set), in OUT; or T's own bytes when it needs neither.
*/
static const char *str_text(const jtok *t, tr_buf *out, size_t *n, int *bad)
{
    if (t->type != J_STR) {
        *n = 0;
        return "";
    }
    if (!(t->flags & (JF_ESC | JF_HIGH))) {
        *n = t->n;
        return t->p;
    }
    tr_buf_reset(out);
    const char *p = t->p, *end = t->p + t->n;
    while (p < end) {
        unsigned char c = (unsigned char)*p;
        if (c == '\\') {
            char e = p[1];
            if (e == 'u') {
                uint32_t cp = hex4(p + 2);
                p += 6;
                if (cp >= 0xd800 && cp < 0xdc00 && p + 6 <= end && p[0] == '\\' && p[1] == 'u') {
                    uint32_t lo = hex4(p + 2);
                    if (lo >= 0xdc00 && lo < 0xe000) {
                        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                        p += 6;
                    }
                }
                if (cp >= 0xd800 && cp < 0xe000) cp = 0xfffd; /* a lone surrogate */
                tr_utf8_put(out, cp);
                continue;
            }
            static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
            const char *k = strchr(from, e);
            tr_buf_addc(out, k ? to[k - from] : e);
            p += 2;
        } else if (c < 0x80) {
            const char *s = p;
            while (p < end && *p != '\\' && (unsigned char)*p < 0x80) p++;
            tr_buf_add(out, s, (size_t)(p - s));
        } else {
            size_t sub, k = tr_utf8_seq((const unsigned char *)p, (size_t)(end - p), &sub);
            if (k) {
                tr_buf_add(out, p, k);
                p += k;
            } else {
                tr_utf8_put(out, 0xfffd);
                *bad = 1;
                p++;
            }
        }
    }
    *n = out->len;
    return out->p;
}

/* The cache slot of the N (> 0) bytes at S: a hash of both ends, the middle and the length. */
static size_t cache_slot(const char *s, size_t n)
{
    uint64_t a, b;
    if (n >= 8) {
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
        if (n > 16) {
            uint64_t m;
            memcpy(&m, s + n / 2 - 4, 8);
            b ^= tr_hash_mix(m);
        }
    } else if (n >= 4) {
        uint32_t x, y;
        memcpy(&x, s, 4);
        memcpy(&y, s + n - 4, 4);
        a = x;
        b = y;
    } else {
        a = (unsigned char)s[0] | (uint64_t)(unsigned char)s[n / 2] << 8 |
            (uint64_t)(unsigned char)s[n - 1] << 16;
        b = 0;
    }
    return (size_t)(tr_hash_mix(a + tr_hash_mix(b + n)) >> (64 - CACHE_BITS));
}

/* 1 when the N (> 0) bytes at A and B are equal; short ones (nearly all) inline. */
static int same_bytes(const char *a, const char *b, size_t n)
{
    if (n > 16) return memcmp(a, b, n) == 0;
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
    return a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1];
}

/*
** Interns the N bytes at S.  Names, categories and arg keys repeat from one
** event to the next: a small cache of recent strings answers most of them
** before the trace's own table, whose ids it gives back unchanged.
*/
static tr_str intern(cj_rd *r, const char *s, size_t n)
{
    if (n == 0) return 0;
    cache_ent *c = &r->cache[cache_slot(s, n)];
    if (c->n == n && same_bytes(c->p, s, n)) return c->id;
    tr_str id = tr_str_intern(r->t, s, n);
    if (id) {
        c->p = tr_str_get(r->t, id, NULL);
        c->n = n;
        c->id = id;
    }
    return id;
}

/* Interns string token T; *BAD set on invalid UTF-8. */
static tr_str tok_intern(cj_rd *r, const jtok *t, int *bad)
{
    if (t->type != J_STR || !t->n) return 0;
    size_t n;
    const char *s = str_text(t, &r->scratch, &n, bad);
    return intern(r, s, n);
}

static int tok_eq(const jtok *t, const char *s)
{
    size_t n = strlen(s);
    return t->type == J_STR && t->n == n && memcmp(t->p, s, n) == 0;
}

/* ---- numbers ---- */

/*
** The value of number token T, as strtod gives it.  Most numbers have at
** most 15 significant digits and no exponent: an exact integer over an exact
** power of ten, whose quotient IEEE division rounds correctly, as strtod
** does.  The others go through strtod (NUM_MAX bounds the copy).
*/
static double tok_double(const jtok *t)
{
    static const double pow10[16] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
    const char *p = t->p, *end = t->p + t->n;
    int neg = p < end && *p == '-', digits = 0, frac = -1;
    uint64_t m = 0;
    for (p += neg; p < end && digits <= 15; p++) {
        if (is_digit(*p)) {
            m = m * 10 + (uint64_t)(*p - '0');
            digits++;
            frac += frac >= 0;
        } else if (*p == '.' && frac < 0) {
            frac = 0;
        } else {
            break;
        }
    }
    if (p == end && digits && digits <= 15) {
        double d = (double)m / pow10[frac > 0 ? frac : 0];
        return neg ? -d : d;
    }
    char tmp[NUM_MAX + 1];
    size_t n = t->n < NUM_MAX ? t->n : NUM_MAX;
    memcpy(tmp, t->p, n);
    tmp[n] = '\0';
    return strtod(tmp, NULL);
}

/*
** The N bytes at S as microseconds with at most 15 digits and 3 decimals,
** as nearly every timestamp is: whole nanoseconds, exact in integers, as
** tr_parse_decimal_ns gives them (it takes the rest).  Returns 0 or -1.
*/
static int us_short(const char *s, size_t n, int64_t *ns)
{
    static const uint64_t scale[4] = {1000, 100, 10, 1};
    size_t i = s[0] == '-', start = i, frac = 0;
    uint64_t v = 0;
    for (; i < n && is_digit(s[i]) && i - start < 15; i++) v = v * 10 + (uint64_t)(s[i] - '0');
    if (i == start) return -1;
    if (i < n && s[i] == '.')
        for (i++; i < n && is_digit(s[i]) && frac < 3; i++, frac++)
            v = v * 10 + (uint64_t)(s[i] - '0');
    if (i != n || s[i - 1] == '.') return -1;
    *ns = s[0] == '-' ? -(int64_t)(v * scale[frac]) : (int64_t)(v * scale[frac]);
    return 0;
}

/*
** A timestamp or duration in microseconds as ns: a number, or a string
** holding one (Perfetto accepts "200.5" but not "100a").  Returns 0 or -1.
*/
static int tok_us(const jtok *t, int64_t *ns)
{
    if (t->type != J_NUM && t->type != J_STR) return -1;
    if (t->n == 0 || t->n > NUM_MAX || (t->flags & (JF_ESC | JF_HIGH | JF_ODD))) return -1;
    if (us_short(t->p, t->n, ns) == 0 || tr_parse_decimal_ns(t->p, t->n, 1000, ns) == 0) return 0;
    if (t->type == J_STR) {
        /* a string must hold a JSON number and nothing else */
        jscan j = {t->p + t->n, 1, NULL, NULL};
        char tmp[NUM_MAX + WINDOW_PAD];
        memcpy(tmp, t->p, t->n);
        memset(tmp + t->n, 0, WINDOW_PAD);
        const char *p = tmp;
        jtok num;
        j.end = tmp + t->n;
        if (scan_num(&j, &p, &num) != S_OK || p != tmp + t->n || (num.flags & JF_ODD)) return -1;
    }
    double us = tok_double(t);
    if (!(fabs(us) < 9.2e15)) return -1; /* NaN, or past int64 ns */
    *ns = (int64_t)llround(us * 1000.0);
    return 0;
}

/* An integer id (pid, tid, sort index): numbers, truncated; 0 or -1. */
static int tok_int(const jtok *t, int64_t *v)
{
    if (t->type != J_NUM || (t->flags & JF_ODD)) return -1;
    if ((t->flags & JF_INT) && tr_parse_int64(t->p, t->n, v) == 0) return 0;
    double d = tok_double(t);
    if (!(fabs(d) < 9.2e18)) return -1;
    *v = (int64_t)d;
    return 0;
}

/* ---- the window ---- */

/*
** Makes more input available: keeps buf[KEEP, end), reads at least READ_MIN
** more (and as much as is kept, so restarting a long value stays linear).
** Sets eof at the end of the stream.
*/
static int win_fill(cj_rd *r, size_t keep)
{
    size_t live = r->end - keep;
    if (keep) {
        memmove(r->buf, r->buf + keep, live);
        r->base += keep;
        r->pos -= keep;
        r->end = live;
    }
    size_t want = live > READ_MIN ? live : READ_MIN;
    if (r->cap - r->end - WINDOW_PAD < want) {
        size_t cap = r->cap;
        while (cap - r->end - WINDOW_PAD < want) cap *= 2;
        char *p = tr_realloc(r->buf, cap);
        if (!p) return tr_error_nomem(r->e);
        r->buf = p;
        r->cap = cap;
    }
    size_t room = r->cap - r->end - WINDOW_PAD, got = 0;
    while (got < room && !r->eof) {
        size_t n;
        int rc = tr_input_read(r->in, r->buf + r->end + got, room - got, &n, r->e);
        if (rc != TR_OK) return rc;
        if (n == 0) r->eof = 1;
        got += n;
        if (got >= want) break;
    }
    r->end += got;
    memset(r->buf + r->end, 0, WINDOW_PAD);
    r->last_thread = TR_NONE; /* its tokens pointed into the old window */
    r->js.end = r->buf + r->end;
    r->js.eof = r->eof;
    return TR_OK;
}

/* A syntax error at the scanner's position. */
static int syntax_error(cj_rd *r)
{
    tr_loc loc = loc_at(r, off_of(r, r->js.err_at));
    return tr_errorf(r->e, TR_E_FORMAT, &loc, "invalid JSON: %s", r->js.err);
}

/* Skips whitespace, refilling; *C is the next byte (0 at the end of input). */
static int win_ws(cj_rd *r, char *c)
{
    for (;;) {
        const char *p = jws(r->buf + r->pos);
        r->pos = (size_t)(p - r->buf);
        if (r->pos < r->end || r->eof) {
            *c = r->pos < r->end ? *p : 0;
            if (!*c && r->pos < r->end) {
                r->js.err_at = p;
                r->js.err = "NUL byte";
                return syntax_error(r);
            }
            return TR_OK;
        }
        int rc = win_fill(r, r->pos);
        if (rc != TR_OK) return rc;
    }
}

/*
** Scans one unit (a token, an event, a kept value) with FN from pos, refilling
** and restarting while it needs more, up to LIMIT bytes.  S_MORE comes back
** only at the end of input.
*/
typedef int (*unit_fn)(cj_rd *r, const char **pp, void *arg);

static int win_unit(cj_rd *r, unit_fn fn, void *arg, size_t limit, int *st)
{
    *st = S_OK;
    for (;;) {
        const char *p = r->buf + r->pos;
        int rc = fn(r, &p, arg);
        if (rc == S_OK && (size_t)(p - (r->buf + r->pos)) > limit) {
            *st = S_ERR;
            return TR_OK;
        }
        if (rc == S_OK) {
            r->pos = (size_t)(p - r->buf);
            return TR_OK;
        }
        /* the input ended inside the unit: the caller decides what that means */
        if (rc == S_ERR && r->eof && r->js.err_at >= r->js.end) rc = S_MORE;
        if (rc == S_ERR) return syntax_error(r);
        if (r->eof) {
            *st = S_MORE;
            return TR_OK;
        }
        if (r->end - r->pos >= limit) {
            *st = S_ERR;
            return TR_OK;
        }
        if ((rc = win_fill(r, r->pos)) != TR_OK) return rc;
    }
}

static int unit_str(cj_rd *r, const char **pp, void *arg)
{
    return scan_str(&r->js, pp, arg);
}

static int unit_value(cj_rd *r, const char **pp, void *arg)
{
    jtok *t = arg;
    const char *s = *pp;
    if (*s != '{' && *s != '[') return scan_scalar(&r->js, pp, t);
    skip_reset(&r->skip);
    int rc = skip_run(&r->js, &r->skip, pp, 0);
    if (rc != S_OK) return rc;
    t->p = s;
    t->n = (size_t)(*pp - s);
    t->type = *s == '{' ? J_OBJ : J_ARR;
    t->flags = 0;
    return S_OK;
}

/* Streams past a value of any size without keeping it. */
static int win_skip_stream(cj_rd *r)
{
    skip_reset(&r->skip);
    for (;;) {
        const char *p = r->buf + r->pos;
        int rc = skip_run(&r->js, &r->skip, &p, 1);
        r->pos = (size_t)(p - r->buf);
        if (rc == S_OK) return TR_OK;
        if (rc == S_ERR) return syntax_error(r);
        if ((rc = win_fill(r, r->pos)) != TR_OK) return rc;
    }
}

/* ---- args ---- */

/* The end of the validated value at P. */
static const char *value_end(const char *p)
{
    if (*p == '"') {
        p++;
        while (*p != '"') p += *p == '\\' ? 2 : 1;
        return p + 1;
    }
    if (*p != '{' && *p != '[') {
        while (*p && !strchr(",}] \t\r\n:", *p)) p++;
        return p;
    }
    size_t depth = 0;
    do {
        if (*p == '"') {
            p = value_end(p);
            continue;
        }
        if (*p == '{' || *p == '[') depth++;
        if (*p == '}' || *p == ']') depth--;
        p++;
    } while (depth);
    return p;
}

/* The validated value at P..END as compact JSON text (whitespace outside strings dropped). */
static void compact_json(tr_buf *b, const char *p, const char *end)
{
    tr_buf_reset(b);
    if (tr_buf_grow(b, (size_t)(end - p)) != TR_OK) return;
    char *o = b->p;
    while (p < end) {
        char c = *p++;
        if (c == '"') {
            *o++ = c;
            while ((c = *p++) != '"') {
                *o++ = c;
                if (c == '\\') *o++ = *p++;
            }
            *o++ = c;
        } else if (c != ' ' && c != '\t' && c != '\r' && c != '\n') {
            *o++ = c;
        }
    }
    b->len = (size_t)(o - b->p);
    b->p[b->len] = '\0';
}

/*
** Adds the number literal T under KEY: int64, uint64 when larger, else a
** double.  Returns 1 with the value in *IV when it went in as an int64.
*/
static int arg_num(cj_rd *r, tr_str key, const jtok *t, int64_t *iv)
{
    if ((t->flags & JF_INT) && tr_parse_int64(t->p, t->n, iv) == 0) {
        tr_args_int(r->t, key, *iv);
        return 1;
    }
    if ((t->flags & JF_INT) && t->p[0] != '-') {
        uint64_t u = 0;
        size_t i = 0;
        for (; i < t->n; i++) {
            unsigned d = (unsigned)(t->p[i] - '0');
            if (u > (UINT64_MAX - d) / 10) break;
            u = u * 10 + d;
        }
        if (i == t->n)
            tr_args_uint(r->t, key, u);
        else /* beyond 64 bits: the digits, exactly, as text */
            tr_args_str(r->t, key, intern(r, t->p, t->n));
        return 0;
    }
    tr_args_real(r->t, key, tok_double(t));
    return 0;
}

static tr_str intern_key(cj_rd *r)
{
    return intern(r, r->key.p, r->key.len);
}

/*
** Adds member A to the set under construction.  Its key is the text in
** r->key up to prefix[depth] (the enclosing objects' keys, each with a dot)
** and its own; an open object only extends the prefix for its members.
** The first "bytes" key sets r->bytes (an event's size, when a count).
*/
static void arg_emit(cj_rd *r, const arg_rec *a, int *bad)
{
    size_t at = r->prefix[a->depth], kn;
    const char *ks;
    if (!at && !a->open && !(a->key.flags & (JF_ESC | JF_HIGH))) {
        ks = a->key.p; /* the common case: the key's own bytes */
        kn = a->key.n;
    } else {
        r->key.len = at;
        r->key.p[at] = '\0';
        ks = str_text(&a->key, &r->scratch, &kn, bad);
        tr_buf_add(&r->key, ks, kn);
        if (a->open) {
            tr_buf_addc(&r->key, '.');
            r->prefix[a->depth + 1] = r->key.len;
            return;
        }
        ks = r->key.p;
        kn = r->key.len;
    }
    tr_str key = intern(r, ks, kn);
    const jtok *v = &a->val;
    int64_t iv = -1;
    int is_int = 0;
    if (v->type == J_OBJ || v->type == J_ARR) {
        compact_json(&r->raw, v->p, v->p + v->n);
        tr_args_str(r->t, key, intern(r, r->raw.p, r->raw.len));
    } else if (v->type == J_STR) {
        size_t n;
        const char *s = str_text(v, &r->scratch, &n, bad);
        tr_args_str(r->t, key, n <= STR_INTERN ? intern(r, s, n) : tr_str_add(r->t, s, n));
    } else if (v->type == J_NUM) {
        is_int = arg_num(r, key, v, &iv);
    } else if (v->type == J_NULL) {
        tr_args_real(r->t, key, NAN); /* writers print it as null */
    } else {
        tr_args_bool(r->t, key, v->type == J_TRUE);
    }
    if (key == r->c[K_BYTES] && !r->bytes_seen) {
        r->bytes_seen = 1;
        r->bytes = is_int && iv >= 0 ? iv : -1;
    }
}

/* Records member A of the event's args, or (EMIT) adds it to the set under construction. */
static void arg_put(cj_rd *r, const arg_rec *a, int emit, int *bad)
{
    if (emit)
        arg_emit(r, a, bad);
    else if (r->recs.len < ARG_RECS &&
             (r->recs.len < r->recs.cap || tr_vec_reserve(&r->recs, r->recs.len + 1) == TR_OK))
        TR_VEC_AT(&r->recs, arg_rec, r->recs.len++) = *a;
    else
        r->recs_over = 1;
}

/*
** The object at *PP (its '{'), validated as skip_run would (same errors,
** trailing commas too) and flattened in the same pass: nested objects as
** dotted keys (to ARGS_DEPTH), arrays and deeper values as compact JSON text,
** null as NaN.  EMIT adds the members to the set under construction (the
** text is known valid, so this cannot fail; BAD is set on invalid UTF-8),
** else they are recorded for emit_recs: a scan restarted after a refill
** must not have added anything.
*/
static int args_scan(cj_rd *r, const char **pp, int depth, int emit, int *bad)
{
    jscan *j = &r->js;
    const char *p = jws(*pp + 1);
    int rc = S_OK;
    while (*p != '}') {
        arg_rec a = {{NULL, 0, J_NONE, 0}, {NULL, 0, J_NONE, 0}, depth, 0};
        if (*p != '"') return *p ? jerr(j, p, "expected a string key") : jstop(j, p, "NUL byte");
        if ((rc = scan_str(j, &p, &a.key)) != S_OK) return rc;
        p = jws(p);
        if (*p != ':') return *p ? jerr(j, p, "expected ':'") : jstop(j, p, "NUL byte");
        p = jws(p + 1);
        if (*p == '{' && depth + 1 < ARGS_DEPTH) {
            a.open = 1;
            arg_put(r, &a, emit, bad);
            rc = args_scan(r, &p, depth + 1, emit, bad);
        } else if (*p == '{' || *p == '[') {
            const char *s = p;
            if (emit) {
                p = value_end(p);
            } else {
                /* an event's args start at depth 0: the nesting skip_run counts from there */
                skip_reset(&r->skip);
                r->skip.outer = (size_t)depth + 1;
                rc = skip_run(j, &r->skip, &p, 0);
            }
            a.val = (jtok){s, (size_t)(p - s), *s == '{' ? J_OBJ : J_ARR, 0};
            if (rc == S_OK) arg_put(r, &a, emit, bad);
        } else if (!*p) {
            return jstop(j, p, "NUL byte");
        } else if ((rc = scan_scalar(j, &p, &a.val)) == S_OK) {
            arg_put(r, &a, emit, bad);
        }
        if (rc != S_OK) return rc;
        p = jws(p);
        if (*p == ',') {
            p = jws(p + 1);
            continue; /* a '}' right after is a trailing comma */
        }
        if (*p != '}') return *p ? jerr(j, p, "expected ',' or '}'") : jstop(j, p, "NUL byte");
    }
    *pp = p + 1;
    return S_OK;
}

/* Adds the members recorded by the scan of the event's args (an object). */
static void emit_recs(cj_rd *r, int *bad)
{
    const arg_rec *a = r->recs.data;
    for (size_t i = 0; i < r->recs.len; i++) arg_emit(r, &a[i], bad);
}

/*
** Adds the args value T (any JSON) to the set under construction: an
** object's members flattened (from the records made while scanning the
** event when RECORDED), anything else under the key "args".
*/
static void add_args(cj_rd *r, const jtok *t, int recorded, int *bad)
{
    tr_buf_reset(&r->key);
    r->prefix[0] = 0;
    if (t->type == J_OBJ) {
        if (recorded && !r->recs_over) {
            emit_recs(r, bad);
        } else {
            const char *p = t->p;
            args_scan(r, &p, 0, 1, bad);
        }
    } else if (t->type == J_STR) {
        /* "__stripped__" and the like: kept as they are */
        size_t n;
        const char *s = str_text(t, &r->scratch, &n, bad);
        tr_args_str(r->t, tr_str_internz(r->t, "args"), intern(r, s, n));
    } else if (t->type != J_NONE) {
        compact_json(&r->raw, t->p, t->p + t->n);
        tr_args_str(r->t, tr_str_internz(r->t, "args"), intern(r, r->raw.p, r->raw.len));
    }
}

/*
** Walks the top-level members of the validated object T: FN gets each key
** and value (a scalar token, or the container's text).
*/
typedef int (*member_fn)(cj_rd *r, const jtok *key, const jtok *val, void *arg);

static int each_member(cj_rd *r, const jtok *t, member_fn fn, void *arg)
{
    if (t->type != J_OBJ) return TR_OK;
    const char *p = jws(t->p + 1);
    while (*p == '"') {
        /* the text is valid: the scans cannot fail */
        jtok k = {NULL, 0, J_NONE, 0}, v = k;
        scan_str(&r->js, &p, &k);
        p = jws(jws(p) + 1);
        if (*p == '{' || *p == '[') {
            v.p = p;
            p = value_end(p);
            v.n = (size_t)(p - v.p);
            v.type = *v.p == '{' ? J_OBJ : J_ARR;
            v.flags = 0;
        } else {
            scan_scalar(&r->js, &p, &v);
        }
        int rc = fn(r, &k, &v, arg);
        if (rc != TR_OK) return rc;
        p = jws(p);
        if (*p == ',') p = jws(p + 1);
    }
    return TR_OK;
}

/* Finds member NAME of object T. */
typedef struct find_arg {
    const char *name;
    jtok val;
} find_arg;

static int find_cb(cj_rd *r, const jtok *key, const jtok *val, void *arg)
{
    (void)r;
    find_arg *f = arg;
    if (f->val.type == J_NONE && tok_eq(key, f->name)) f->val = *val;
    return TR_OK;
}

static jtok member(cj_rd *r, const jtok *t, const char *name)
{
    find_arg f = {name, {NULL, 0, J_NONE, 0}};
    each_member(r, t, find_cb, &f);
    return f.val;
}

/* The args set of event EV (0 when none), with the "bytes" arg in *BYTES. */
static uint32_t event_args(cj_rd *r, const cev *ev, int64_t *bytes, int *bad)
{
    r->bytes_seen = 0;
    r->bytes = -1;
    tr_args_begin(r->t);
    add_args(r, &ev->args, 1, bad);
    if (bytes) *bytes = r->bytes;
    return tr_args_end(r->t);
}

/* ---- processes and threads ---- */

/* The model's pid for a pid token: the number, or below -1 for a string. */
static int pid_of(cj_rd *r, const jtok *t, int64_t *pid, tr_str *s, int *bad)
{
    *s = 0;
    if (t->type == J_NONE) {
        *pid = -1;
        return 0;
    }
    if (t->type == J_STR) {
        /* Kineto's "" rows: the empty string needs an id of its own */
        *s = t->n ? tok_intern(r, t, bad) : tr_str_internz(r->t, "\"\"");
        *pid = -2 - (int64_t)*s;
        return 0;
    }
    return tok_int(t, pid);
}

static int is_gpu_cat(const cj_rd *r, tr_str cat)
{
    size_t n;
    const char *s = tr_str_get(r->t, cat, &n);
    return (n == 6 && (memcmp(s, "kernel", 6) == 0 || memcmp(s, "Kernel", 6) == 0)) ||
           (n >= 4 && memcmp(s, "gpu_", 4) == 0) || (n >= 6 && memcmp(s, "Memcpy", 6) == 0) ||
           (n >= 6 && memcmp(s, "Memset", 6) == 0);
}

/*
** The thread of (PID, TID) tokens, added when new; TR_NONE when a pid/tid
** is not a number or a string.  A missing tid is the pid (Perfetto).
*/
static uint32_t thread_of(cj_rd *r, const jtok *pidt, const jtok *tidt, int *bad)
{
    /* Events of one thread come in runs: the last lookup usually answers. */
    if (r->last_thread != TR_NONE && pidt->n == r->last_pid.n && tidt->n == r->last_tid.n &&
        pidt->type == r->last_pid.type && tidt->type == r->last_tid.type && pidt->type != J_NONE &&
        memcmp(pidt->p, r->last_pid.p, pidt->n) == 0 &&
        (tidt->type == J_NONE || memcmp(tidt->p, r->last_tid.p, tidt->n) == 0))
        return r->last_thread;
    int64_t pid, tid;
    tr_str ps, ts;
    if (pid_of(r, pidt, &pid, &ps, bad) != 0) return TR_NONE;
    if (tidt->type == J_NONE) {
        tid = pid;
        ts = ps;
    } else if (pid_of(r, tidt, &tid, &ts, bad) != 0) {
        return TR_NONE;
    }
    uint64_t a = (uint64_t)pid, b = (uint64_t)tid;
    uint32_t id = map_get(&r->thread_map, a, b);
    if (id == TR_NONE) {
        uint32_t proc = tr_process_intern(r->t, r->input, pid);
        thread_st *th = tr_vec_push(&r->threads);
        if (proc == TR_NONE || !th) return TR_NONE;
        id = (uint32_t)(r->threads.len - 1);
        th->process = proc;
        th->track = TR_NONE;
        th->tid = ts ? -1 : tid;
        th->tid_str = ts;
        tr_vec_init(&th->opens, sizeof(open_slice));
        tr_process *p = tr_process_at(r->t, proc);
        if (ps && !p->name) p->name = ps;
        if (map_put(&r->thread_map, a, b, id) != TR_OK) return TR_NONE;
    }
    /* Tokens point into the window, which an event never outlives. */
    r->last_thread = id;
    r->last_pid = *pidt;
    r->last_tid = *tidt;
    return id;
}

static thread_st *thread_at(cj_rd *r, uint32_t id)
{
    return &TR_VEC_AT(&r->threads, thread_st, id);
}

/* The thread's track, added at its first event; GPU streams (kernels, copies) get GPU tracks. */
static uint32_t track_of(cj_rd *r, uint32_t thread, tr_str cat)
{
    thread_st *th = thread_at(r, thread);
    if (th->track != TR_NONE) return th->track;
    /*
    ** Decided by the first event alone (or our writer's hint), never by
    ** metadata, which Kineto writes last: the same file read in another
    ** order must give the same tracks.
    */
    int gpu = th->gpu || is_gpu_cat(r, cat);
    th->track = tr_track_intern(r->t, th->process, gpu ? TR_TRACK_GPU : TR_TRACK_THREAD, th->tid,
                                th->tid_str);
    tr_track *tk = tr_track_at(r->t, th->track);
    if (tk) {
        if (th->name) tk->name = th->name;
        tk->sort_index = th->sort_index;
    }
    return th->track;
}

/* ---- metadata ---- */

static int meta_push(cj_rd *r, tr_str key, int type, uint64_t bits)
{
    meta_kv *m = tr_vec_push(&r->meta);
    if (!m) return tr_error_nomem(r->e);
    m->key = key;
    m->type = type;
    m->bits = bits;
    return TR_OK;
}

/* Collects the set under construction into the metadata list, then drops it. */
static int meta_take(cj_rd *r, uint32_t set)
{
    size_t n = tr_args_count(r->t, set);
    for (size_t i = 0; i < n; i++) {
        tr_arg a;
        tr_args_at(r->t, set, i, &a);
        if (meta_push(r, a.key, a.type, a.v.u) != TR_OK) return TR_FATAL;
    }
    return TR_OK;
}

/* A top-level value kept as metadata under KEY (objects flattened as args are). */
static int meta_value(cj_rd *r, const jtok *key, const jtok *val, int *bad)
{
    size_t kn;
    const char *ks = str_text(key, &r->scratch, &kn, bad);
    tr_buf_reset(&r->key);
    tr_buf_add(&r->key, ks, kn);
    tr_args_begin(r->t);
    if (val->type == J_OBJ) {
        tr_buf_addc(&r->key, '.');
        r->prefix[1] = r->key.len;
        const char *p = val->p;
        args_scan(r, &p, 1, 1, bad);
    } else if (val->type == J_ARR) {
        compact_json(&r->raw, val->p, val->p + val->n);
        tr_args_str(r->t, intern_key(r), intern(r, r->raw.p, r->raw.len));
    } else if (val->type == J_STR) {
        size_t n;
        const char *s = str_text(val, &r->scratch, &n, bad);
        tr_args_str(r->t, intern_key(r), intern(r, s, n));
    } else if (val->type == J_NUM) {
        int64_t iv;
        arg_num(r, intern_key(r), val, &iv);
    } else if (val->type == J_NULL) {
        tr_args_real(r->t, intern_key(r), NAN);
    } else {
        tr_args_bool(r->t, intern_key(r), val->type == J_TRUE);
    }
    return meta_take(r, tr_args_end(r->t));
}

/* The process_name args of our own writer carry the rank. */
static int meta_event(cj_rd *r, const cev *ev, int *bad)
{
    uint32_t th = thread_of(r, &ev->pid, &ev->tid, bad);
    if (th == TR_NONE) return warn_at(r, ev->off, "skipped %s event: invalid pid or tid", "M");
    tr_process *p = tr_process_at(r->t, thread_at(r, th)->process);
    jtok name = ev->name;
    if (tok_eq(&name, "process_name") || tok_eq(&name, "thread_name")) {
        jtok v = member(r, &ev->args, "name");
        tr_str s = tok_intern(r, &v, bad);
        if (!s)
            return warn_at(r, ev->off, "%s without a name",
                           name.p[0] == 'p' ? "process_name" : "thread_name");
        if (name.p[0] == 'p') {
            p->name = s;
            jtok rk = member(r, &ev->args, "rank");
            int64_t rank;
            if (tok_int(&rk, &rank) == 0 && rank >= 0 && rank <= INT32_MAX) p->rank = (int32_t)rank;
        } else {
            thread_st *t = thread_at(r, th);
            jtok kind = member(r, &ev->args, "kind");
            t->gpu = tok_eq(&kind, "gpu");
            t->name = s;
            if (t->track != TR_NONE) tr_track_at(r->t, t->track)->name = s;
        }
        return TR_OK;
    }
    if (tok_eq(&name, "process_sort_index") || tok_eq(&name, "thread_sort_index")) {
        jtok v = member(r, &ev->args, "sort_index");
        int64_t si;
        if (tok_int(&v, &si) != 0 || si < INT32_MIN || si > INT32_MAX)
            return warn_at(r, ev->off, "%s without an integer sort_index", "M");
        if (name.p[0] == 'p') {
            p->sort_index = (int32_t)si;
        } else {
            thread_st *t = thread_at(r, th);
            t->sort_index = (int32_t)si;
            if (t->track != TR_NONE) tr_track_at(r->t, t->track)->sort_index = (int32_t)si;
        }
        return TR_OK;
    }
    if (tok_eq(&name, "process_labels")) {
        jtok v = member(r, &ev->args, "labels");
        p->labels = tok_intern(r, &v, bad);
        return TR_OK;
    }
    /* Anything else (num_cpus, process_uptime_seconds, TraceConfig...): metadata. */
    size_t n;
    const char *s = str_text(&name, &r->scratch, &n, bad);
    tr_buf_reset(&r->key);
    tr_buf_add(&r->key, "M.", 2);
    tr_buf_add(&r->key, s, n);
    tr_buf_addc(&r->key, '.');
    tr_args_begin(r->t);
    if (ev->args.type == J_OBJ) {
        r->prefix[1] = r->key.len;
        const char *q = ev->args.p;
        args_scan(r, &q, 1, 1, bad);
    }
    return meta_take(r, tr_args_end(r->t));
}

/* ---- events ---- */

static jtok *event_slot(cev *ev, const jtok *k)
{
    const char *s = k->p;
    if (k->flags) return NULL;
    switch (k->n) {
    case 1:
        return s[0] == 's' ? &ev->s : NULL;
    case 2:
        if (s[0] == 'p' && s[1] == 'h') return &ev->ph;
        if (s[0] == 't' && s[1] == 's') return &ev->ts;
        if (s[0] == 'i' && s[1] == 'd') return &ev->id;
        if (s[0] == 'b' && s[1] == 'p') return &ev->bp;
        if (s[0] == 's' && s[1] == 'f') return &ev->sf;
        return NULL;
    case 3:
        if (memcmp(s, "cat", 3) == 0) return &ev->cat;
        if (memcmp(s, "dur", 3) == 0) return &ev->dur;
        if (memcmp(s, "pid", 3) == 0) return &ev->pid;
        if (memcmp(s, "tid", 3) == 0) return &ev->tid;
        if (memcmp(s, "id2", 3) == 0) return &ev->id2;
        if (memcmp(s, "tts", 3) == 0) return &ev->tts;
        return NULL;
    case 4:
        if (memcmp(s, "name", 4) == 0) return &ev->name;
        if (memcmp(s, "args", 4) == 0) return &ev->args;
        if (memcmp(s, "tdur", 4) == 0) return &ev->tdur;
        return NULL;
    case 5:
        if (memcmp(s, "stack", 5) == 0) return &ev->stack;
        if (memcmp(s, "scope", 5) == 0) return &ev->scope;
        return NULL;
    case 7:
        if (memcmp(s, "bind_id", 7) == 0) return &ev->bind_id;
        if (memcmp(s, "flow_in", 7) == 0) return &ev->flow_in;
        return NULL;
    case 8:
        return memcmp(s, "flow_out", 8) == 0 ? &ev->flow_out : NULL;
    default:
        return NULL;
    }
}

/* One event object at *PP into EV (tokens point into the window). */
static int unit_event(cj_rd *r, const char **pp, void *arg)
{
    jscan *j = &r->js;
    cev *ev = arg;
    const char *p = jws(*pp + 1);
    memset(ev, 0, sizeof *ev);
    ev->off = off_of(r, *pp);
    while (*p != '}') {
        if (*p != '"') {
            if (!*p) return jstop(j, p, "NUL byte");
            return jerr(j, p, "expected a string key");
        }
        jtok k, dummy;
        int rc = scan_str(j, &p, &k);
        ev->keys++;
        if (rc != S_OK) return rc;
        p = jws(p);
        if (*p != ':') return *p ? jerr(j, p, "expected ':'") : jstop(j, p, "NUL byte");
        p = jws(p + 1);
        jtok *slot = event_slot(ev, &k);
        if (!slot) {
            slot = &dummy;
        } else if (slot->type != J_NONE) {
            ev->dup = 1;
        }
        if (slot == &ev->args) {
            r->recs.len = 0; /* a repeated key: the last value counts */
            r->recs_over = 0;
        }
        if (*p == '{' || *p == '[') {
            const char *s = p;
            if (slot == &ev->args && *p == '{') {
                rc = args_scan(r, &p, 0, 0, NULL);
            } else {
                skip_reset(&r->skip);
                rc = skip_run(j, &r->skip, &p, 0);
            }
            if (rc != S_OK) return rc;
            slot->p = s;
            slot->n = (size_t)(p - s);
            slot->type = *s == '{' ? J_OBJ : J_ARR;
            slot->flags = 0;
        } else if ((rc = scan_scalar(j, &p, slot)) != S_OK) {
            return rc;
        }
        p = jws(p);
        if (*p == ',') {
            p = jws(p + 1);
            continue;
        }
        if (*p != '}') return *p ? jerr(j, p, "expected ',' or '}'") : jstop(j, p, "NUL byte");
    }
    *pp = p + 1;
    return S_OK;
}

/*
** Event timestamps stay on the trace's own clock (its zero is the origin):
** the first timestamp of a file is not its earliest, a stream cannot shift
** what it has already added, and rank files of one job share that clock, so
** several of them line up in one model as they were recorded.
*/
static int64_t rel_ts(cj_rd *r, int64_t ns)
{
    if (!r->have_origin || ns < r->origin) r->origin = ns;
    r->have_origin = 1;
    return ns;
}

/* The id of an async/flow event as text: "id", or "id2" local/global. */
static int id_text(cj_rd *r, const cev *ev, tr_buf *out, int *local, int *bad)
{
    jtok id = ev->id;
    *local = 0;
    if (ev->id2.type == J_OBJ) {
        jtok l = member(r, &ev->id2, "local"), g = member(r, &ev->id2, "global");
        if (l.type != J_NONE) {
            id = l;
            *local = 1;
        } else {
            id = g;
        }
    }
    if (id.type == J_STR) {
        size_t n;
        const char *s = str_text(&id, &r->scratch, &n, bad);
        tr_buf_add(out, s, n);
        return 0;
    }
    if (id.type == J_NUM) {
        tr_buf_add(out, id.p, id.n);
        return 0;
    }
    return -1;
}

/* A flow id for the model: the number, a hex string's value, else a hash of the text. */
static uint64_t flow_id_num(const char *s, size_t n)
{
    uint64_t v = 0;
    size_t i = 0;
    if (n > 2 && s[0] == '0' && (s[1] | 0x20) == 'x') {
        for (i = 2; i < n && i < 18 && is_hex(s[i]); i++)
            v = v << 4 | (uint64_t)(s[i] <= '9' ? s[i] - '0' : (s[i] | 0x20) - 'a' + 10);
        if (i == n) return v;
    } else {
        for (i = 0; i < n && is_digit(s[i]) && v <= (UINT64_MAX - 9) / 10; i++)
            v = v * 10 + (uint64_t)(s[i] - '0');
        if (i == n && n) return v;
    }
    uint64_t h = 0x9E3779B97F4A7C15ULL;
    for (i = 0; i < n; i++) h = tr_hash_mix(h ^ (unsigned char)s[i]);
    return h;
}

static int flow_point(cj_rd *r, tr_str key, uint64_t id, tr_str name, tr_str cat, uint32_t track,
                      uint32_t row, int64_t ts, char ph, int enclose)
{
    flow_pt *f = tr_vec_push(&r->flows);
    if (!f) return tr_error_nomem(r->e);
    f->key = key;
    f->id = id;
    f->name = name;
    f->cat = cat;
    f->track = track;
    f->row = row;
    f->ts = ts;
    f->seq = (uint32_t)(r->flows.len - 1);
    f->ph = ph;
    f->enclose = (uint8_t)enclose;
    return TR_OK;
}

/* Flow v2: a slice that carries bind_id with flow_in/flow_out. */
static int flow_v2(cj_rd *r, const open_slice *o, uint32_t track, uint32_t row)
{
    if (!o->bind || (!o->flow_in && !o->flow_out)) return TR_OK;
    size_t n;
    const char *s = tr_str_get(r->t, o->bind, &n);
    uint64_t id = flow_id_num(s, n);
    int rc = TR_OK;
    if (o->flow_in) rc = flow_point(r, o->bind, id, 0, 0, track, row, o->ts, 'f', 1);
    if (rc == TR_OK && o->flow_out)
        rc = flow_point(r, o->bind, id, 0, 0, track, row, o->ts, 's', 1);
    return rc;
}

/* The bind_id key of flow v2 (namespaced apart from v1 keys), 0 when none. */
static tr_str bind_key(cj_rd *r, const cev *ev, int *bad)
{
    if (ev->bind_id.type != J_STR && ev->bind_id.type != J_NUM) return 0;
    tr_buf_reset(&r->raw);
    tr_buf_add(&r->raw, "v2\x1f", 3);
    if (ev->bind_id.type == J_NUM) {
        tr_buf_add(&r->raw, ev->bind_id.p, ev->bind_id.n);
    } else {
        size_t n;
        const char *s = str_text(&ev->bind_id, &r->scratch, &n, bad);
        tr_buf_add(&r->raw, s, n);
    }
    return intern(r, r->raw.p, r->raw.len);
}

/* Builds the set of SET's args plus EXTRA's args (keys already in SET skipped). */
static uint32_t args_merge(cj_rd *r, uint32_t set, const jtok *extra, int unfinished, int *bad)
{
    if ((!extra || extra->type == J_NONE) && !unfinished) return set;
    uint32_t more = 0;
    if (extra && extra->type != J_NONE) {
        tr_args_begin(r->t);
        add_args(r, extra, 1, bad);
        more = tr_args_end(r->t);
    }
    tr_args_begin(r->t);
    size_t n = tr_args_count(r->t, set);
    for (size_t i = 0; i < n; i++) {
        tr_arg a;
        tr_args_at(r->t, set, i, &a);
        if (a.type == TR_ARG_REAL)
            tr_args_real(r->t, a.key, a.v.d);
        else if (a.type == TR_ARG_STR)
            tr_args_str(r->t, a.key, a.v.s);
        else if (a.type == TR_ARG_UINT)
            tr_args_uint(r->t, a.key, a.v.u);
        else if (a.type == TR_ARG_BOOL)
            tr_args_bool(r->t, a.key, (int)a.v.i);
        else
            tr_args_int(r->t, a.key, a.v.i);
    }
    size_t m = tr_args_count(r->t, more);
    for (size_t i = 0; i < m; i++) {
        tr_arg a, old;
        tr_args_at(r->t, more, i, &a);
        if (set && tr_args_find(r->t, set, tr_str_get(r->t, a.key, NULL), &old)) continue;
        if (a.type == TR_ARG_REAL)
            tr_args_real(r->t, a.key, a.v.d);
        else if (a.type == TR_ARG_STR)
            tr_args_str(r->t, a.key, a.v.s);
        else if (a.type == TR_ARG_UINT)
            tr_args_uint(r->t, a.key, a.v.u);
        else if (a.type == TR_ARG_BOOL)
            tr_args_bool(r->t, a.key, (int)a.v.i);
        else
            tr_args_int(r->t, a.key, a.v.i);
    }
    if (unfinished) tr_args_int(r->t, r->c[K_UNFINISHED], 1);
    return tr_args_end(r->t);
}

static int64_t bytes_of(cj_rd *r, uint32_t set)
{
    tr_arg a;
    if (set && tr_args_find(r->t, set, "bytes", &a) && a.type == TR_ARG_INT && a.v.i >= 0)
        return a.v.i;
    return -1;
}

/* Closes open slice O at END_TS on TRACK (END_TS < 0 relative: still open). */
static int close_open(cj_rd *r, const open_slice *o, uint32_t track, int64_t dur, uint32_t args)
{
    uint32_t row = tr_slice_add(r->t, track, o->ts, dur, o->name, o->cat, bytes_of(r, args), args);
    if (row == TR_NONE) return tr_error_nomem(r->e);
    return flow_v2(r, o, track, row);
}

static int phase_be(cj_rd *r, const cev *ev, char ph, int64_t ts, tr_str name, tr_str cat,
                    uint32_t th, int *bad)
{
    thread_st *t = thread_at(r, th);
    if (ph == 'B') {
        open_slice *o = tr_vec_push(&t->opens);
        if (!o) return tr_error_nomem(r->e);
        o->ts = ts;
        o->name = name;
        o->cat = cat;
        o->off = ev->off;
        o->args = event_args(r, ev, NULL, bad);
        o->bind = bind_key(r, ev, bad);
        o->flow_in = ev->flow_in.type == J_TRUE;
        o->flow_out = ev->flow_out.type == J_TRUE;
        return TR_OK;
    }
    if (!t->opens.len)
        return warn_at(r, ev->off, "%s event with no open B on its thread: dropped", "E");
    open_slice o = TR_VEC_AT(&t->opens, open_slice, t->opens.len - 1);
    t->opens.len--;
    int rc = TR_OK;
    if (name && o.name && name != o.name)
        rc = warn_at(r, ev->off, "E event's name differs from its B's (\"%s\"): closed anyway",
                     tr_str_get(r->t, o.name, NULL));
    if (rc == TR_OK && ts < o.ts)
        rc = warn_at(r, ev->off, "E event before its B: %s", "zero-length slice");
    if (rc != TR_OK) return rc;
    uint32_t track = track_of(r, th, o.cat);
    uint32_t args = args_merge(r, o.args, &ev->args, 0, bad);
    return close_open(r, &o, track, ts > o.ts ? ts - o.ts : 0, args);
}

/* The async track of EV: (cat, id, scope[, pid when local]). */
static uint32_t async_of(cj_rd *r, const cev *ev, uint32_t th, tr_str cat, tr_str name, int *bad)
{
    tr_buf_reset(&r->key);
    size_t n;
    const char *s = tr_str_get(r->t, cat, &n);
    tr_buf_add(&r->key, s, n);
    tr_buf_addc(&r->key, '\x1f');
    int local;
    /* id_text uses scratch, key holds the text being built */
    if (id_text(r, ev, &r->key, &local, bad) != 0) return TR_NONE;
    if (ev->scope.type == J_STR) {
        tr_buf_addc(&r->key, '\x1f');
        tr_buf_add(&r->key, ev->scope.p, ev->scope.n);
    }
    uint32_t proc = thread_at(r, th)->process;
    if (local) tr_buf_addf(&r->key, "\x1fpid %u", proc);
    tr_str key = intern(r, r->key.p, r->key.len);
    uint32_t id = map_get(&r->async_map, key, 0);
    if (id != TR_NONE) return id;
    async_st *a = tr_vec_push(&r->asyncs);
    if (!a) return TR_NONE;
    id = (uint32_t)(r->asyncs.len - 1);
    tr_vec_init(&a->opens, sizeof(open_slice));
    a->track = tr_track_intern(r->t, proc, TR_TRACK_ASYNC, -1, key);
    tr_track *tk = tr_track_at(r->t, a->track);
    if (tk) tk->name = name;
    return map_put(&r->async_map, key, 0, id) == TR_OK ? id : TR_NONE;
}

static int phase_async(cj_rd *r, const cev *ev, char ph, int64_t ts, tr_str name, tr_str cat,
                       uint32_t th, int *bad)
{
    uint32_t id = async_of(r, ev, th, cat, name, bad);
    if (id == TR_NONE) {
        if (tr_trace_status(r->t, r->e) != TR_OK) return TR_FATAL;
        char what[2] = {ph, 0};
        return warn_at(r, ev->off, "async event '%s' without an id: dropped", what);
    }
    async_st *a = &TR_VEC_AT(&r->asyncs, async_st, id);
    if (ph == 'b' || ph == 'S') {
        open_slice *o = tr_vec_push(&a->opens);
        if (!o) return tr_error_nomem(r->e);
        memset(o, 0, sizeof *o);
        o->ts = ts;
        o->name = name;
        o->cat = cat;
        o->off = ev->off;
        o->args = event_args(r, ev, NULL, bad);
        return TR_OK;
    }
    if (ph == 'e' || ph == 'F') {
        /* the innermost open begin of that name, else the innermost one */
        size_t k = a->opens.len;
        while (k > 0 && name && TR_VEC_AT(&a->opens, open_slice, k - 1).name != name) k--;
        if (k == 0) k = a->opens.len;
        if (k == 0)
            return warn_at(r, ev->off, "async end '%s' without a begin: dropped",
                           ph == 'e' ? "e" : "F");
        open_slice o = TR_VEC_AT(&a->opens, open_slice, k - 1);
        memmove(&TR_VEC_AT(&a->opens, open_slice, k - 1), &TR_VEC_AT(&a->opens, open_slice, k),
                (a->opens.len - k) * sizeof o);
        a->opens.len--;
        uint32_t args = args_merge(r, o.args, &ev->args, 0, bad);
        return close_open(r, &o, a->track, ts > o.ts ? ts - o.ts : 0, args);
    }
    /* n, T, p: a step or instant on the async track */
    int64_t bytes;
    uint32_t args = event_args(r, ev, &bytes, bad);
    if (tr_instant_add(r->t, a->track, ts, name, cat, TR_SCOPE_THREAD, bytes, args) == TR_NONE)
        return tr_error_nomem(r->e);
    return TR_OK;
}

static int phase_counter(cj_rd *r, const cev *ev, int64_t ts, tr_str name, uint32_t th, int *bad)
{
    if (ev->args.type != J_OBJ) return warn_at(r, ev->off, "C event without %s: dropped", "args");
    uint32_t proc = thread_at(r, th)->process;
    const char *p = jws(ev->args.p + 1);
    size_t nn;
    const char *ns = tr_str_get(r->t, name, &nn);
    tr_buf id;
    tr_buf_init(&id, 0);
    int local, has_id = id_text(r, ev, &id, &local, bad) == 0, added = 0, rc = TR_OK;
    while (*p == '"' && rc == TR_OK) {
        jtok k = {NULL, 0, J_NONE, 0}, v = k;
        scan_str(&r->js, &p, &k);
        p = jws(jws(p) + 1);
        const char *vs = p;
        double value = NAN;
        if (*p == '{' || *p == '[') {
            p = value_end(p);
        } else {
            scan_scalar(&r->js, &p, &v);
            int64_t x;
            if (v.type == J_NUM)
                value = tok_double(&v);
            else if (v.type == J_STR && tok_us(&v, &x) == 0)
                value = (double)x / 1000.0;
        }
        (void)vs;
        size_t kn;
        const char *ks = str_text(&k, &r->scratch, &kn, bad);
        /* "<name> <key>" (Perfetto), or just the name when the key repeats it */
        tr_buf_reset(&r->key);
        tr_buf_add(&r->key, ns, nn);
        if (has_id) {
            tr_buf_add(&r->key, " id: ", 5);
            tr_buf_add(&r->key, id.p, id.len);
        }
        if (has_id || kn != nn || memcmp(ks, ns, nn) != 0) {
            if (r->key.len) tr_buf_addc(&r->key, ' ');
            tr_buf_add(&r->key, ks, kn);
        }
        if (isnan(value)) {
            rc = warn_at(r, ev->off, "C event: series '%s' is not a number: skipped", r->key.p);
        } else {
            uint32_t track = tr_track_intern(r->t, proc, TR_TRACK_COUNTER, -1, intern_key(r));
            if (tr_counter_add(r->t, track, ts, value) == TR_NONE) rc = tr_error_nomem(r->e);
            added++;
        }
        p = jws(p);
        if (*p == ',') p = jws(p + 1);
    }
    tr_buf_fini(&id);
    if (rc == TR_OK && !added && ev->args.n)
        rc = warn_at(r, ev->off, "C event without numeric %s: dropped", "args");
    return rc;
}

/* Flows v1: s, t, f. */
static int phase_flow(cj_rd *r, const cev *ev, char ph, int64_t ts, tr_str name, tr_str cat,
                      uint32_t th, int *bad)
{
    size_t n;
    tr_buf_reset(&r->key);
    const char *s = tr_str_get(r->t, cat, &n);
    tr_buf_add(&r->key, s, n);
    tr_buf_addc(&r->key, '\x1f');
    s = tr_str_get(r->t, name, &n);
    tr_buf_add(&r->key, s, n);
    tr_buf_addc(&r->key, '\x1f');
    size_t at = r->key.len;
    int local;
    if (id_text(r, ev, &r->key, &local, bad) != 0)
        return warn_at(r, ev->off, "flow event '%s' without an id: dropped",
                       ph == 's'   ? "s"
                       : ph == 't' ? "t"
                                   : "f");
    uint64_t id = flow_id_num(r->key.p + at, r->key.len - at);
    tr_str key = intern_key(r);
    int enclose = ph == 's' || tok_eq(&ev->bp, "e");
    return flow_point(r, key, id, name, cat, track_of(r, th, cat), TR_NONE, ts, ph, enclose);
}

/* Samples: P events with sf or stack; those without (V8 profiles) are instants. */
static int add_pending_sample(cj_rd *r, uint32_t track, int64_t ts, const jtok *sf,
                              const jtok *stack, uint32_t args, uint64_t off, int *bad)
{
    pend_sample *s = tr_vec_push(&r->samples);
    if (!s) return tr_error_nomem(r->e);
    s->track = track;
    s->ts = ts;
    s->args = args;
    s->off = off;
    s->stack = 0;
    s->sf = 0;
    if (sf->type == J_STR) {
        s->sf = tok_intern(r, sf, bad);
    } else if (sf->type == J_NUM) {
        s->sf = intern(r, sf->p, sf->n);
    } else if (stack->type == J_ARR) {
        /* program counters, outermost first: frames named by address */
        const char *p = jws(stack->p + 1);
        while (*p && *p != ']') {
            jtok pc = {NULL, 0, J_NONE, 0}; /* the text is valid: the scan cannot fail */
            if (*p == '{' || *p == '[') {
                p = value_end(p);
            } else {
                scan_scalar(&r->js, &p, &pc);
                size_t n = pc.n;
                const char *txt = pc.type == J_STR ? str_text(&pc, &r->scratch, &n, bad) : pc.p;
                tr_frame f = {intern(r, txt, n), 0, 0, 0, 1};
                uint32_t fr = tr_frame_intern(r->t, &f);
                if (fr != TR_NONE) s->stack = tr_stack_push(r->t, s->stack, fr);
            }
            p = jws(p);
            if (*p == ',') p = jws(p + 1);
        }
        if (s->stack == TR_NONE) s->stack = 0;
    }
    return TR_OK;
}

/* ---- V8 CPU profiles ---- */

/* The next element of array text at *PP (after its '['): 1 and V, or 0 at the ']'. */
static int next_elem(cj_rd *r, const char **pp, jtok *v)
{
    const char *p = jws(*pp);
    if (*p == ',') p = jws(p + 1);
    if (!*p || *p == ']') {
        *pp = p;
        return 0;
    }
    if (*p == '{' || *p == '[') {
        v->p = p;
        p = value_end(p);
        v->n = (size_t)(p - v->p);
        v->type = *v->p == '{' ? J_OBJ : J_ARR;
        v->flags = 0;
    } else {
        scan_scalar(&r->js, &p, v); /* the text is valid: the scan cannot fail */
    }
    *pp = p;
    return 1;
}

/* The text after the '[' of array T, or an empty array when T is not one. */
static const char *elems(const jtok *t)
{
    return t->type == J_ARR ? t->p + 1 : "]";
}

/* A cpuProfile node: its stack is its parent's (seen before) plus its call frame. */
static int v8_node(cj_rd *r, uint32_t prof, const jtok *node, uint64_t off, size_t *orphans,
                   int *bad)
{
    int64_t id, parent;
    jtok idt = member(r, node, "id"), pt = member(r, node, "parent");
    if (tok_int(&idt, &id) != 0)
        return warn_at(r, off, "V8 profile node without a valid %s: skipped", "\"id\"");
    if (map_get(&r->node_map, prof, (uint64_t)id) != TR_NONE)
        return warn_at(r, off, "V8 profile node with a %s: the first is used", "repeated id");
    uint32_t up = 0;
    if (pt.type != J_NONE) {
        if (tok_int(&pt, &parent) == 0) up = map_get(&r->node_map, prof, (uint64_t)parent);
        if (pt.type != J_NUM || up == TR_NONE) {
            (*orphans)++;
            up = 0;
        }
    }
    jtok cf = member(r, node, "callFrame");
    jtok fn = member(r, &cf, "functionName"), url = member(r, &cf, "url");
    jtok line = member(r, &cf, "lineNumber");
    uint32_t stack = up;
    if (!tok_eq(&fn, "(root)")) { /* the root is the empty stack */
        int64_t ln;
        tr_frame f = {fn.type == J_STR && fn.n ? tok_intern(r, &fn, bad)
                                               : tr_str_internz(r->t, "(anonymous)"),
                      url.type == J_STR ? tok_intern(r, &url, bad) : 0, 0,
                      tok_int(&line, &ln) == 0 && ln >= 0 && ln < INT32_MAX ? (int32_t)ln + 1 : 0,
                      0};
        uint32_t fr = tr_frame_intern(r->t, &f);
        if (fr == TR_NONE || (stack = tr_stack_push(r->t, up, fr)) == TR_NONE)
            return tr_error_nomem(r->e);
    }
    if (map_put(&r->node_map, prof, (uint64_t)id, stack) != TR_OK) return tr_error_nomem(r->e);
    return TR_OK;
}

/*
** "Profile" (args.data.startTime) starts a profile on its thread;
** "ProfileChunk" (same pid and id) brings nodes and samples, each sample
** timeDeltas[i] µs after the one before.  A chunk without its Profile starts
** the profile at the chunk's own ts and thread.
*/
static int v8_profile(cj_rd *r, const cev *ev, int chunk, int64_t ts, tr_str cat, uint32_t th,
                      int *bad)
{
    if (ev->id.type != J_STR && ev->id.type != J_NUM)
        return warn_at(r, ev->off, "V8 profile event without a valid %s: no samples", "\"id\"");
    tr_str id = ev->id.type == J_STR ? tok_intern(r, &ev->id, bad) : intern(r, ev->id.p, ev->id.n);
    uint32_t proc = thread_at(r, th)->process;
    jtok data = member(r, &ev->args, "data");
    uint32_t row = map_get(&r->prof_map, proc, id);
    if (row == TR_NONE) {
        v8_prof *p = tr_vec_push(&r->profs);
        if (!p) return tr_error_nomem(r->e);
        row = (uint32_t)(r->profs.len - 1);
        p->track = track_of(r, th, cat);
        p->ts = ts;
        jtok start = member(r, &data, "startTime");
        if (!chunk && start.type != J_NONE && tok_us(&start, &p->ts) != 0) {
            p->ts = ts;
            int rc = warn_at(r, ev->off, "V8 Profile with an invalid %s: ts used", "startTime");
            if (rc != TR_OK) return rc;
        }
        if (map_put(&r->prof_map, proc, id, row) != TR_OK) return tr_error_nomem(r->e);
    }
    if (!chunk) return TR_OK; /* a Profile only starts one: a repeated one changes nothing */
    jtok cpu = member(r, &data, "cpuProfile");
    jtok nodes = member(r, &cpu, "nodes"), samples = member(r, &cpu, "samples");
    jtok deltas = member(r, &data, "timeDeltas");
    const char *p = elems(&nodes);
    jtok v;
    size_t orphans = 0, unknown = 0;
    while (next_elem(r, &p, &v)) {
        int rc = v.type == J_OBJ
                     ? v8_node(r, row, &v, ev->off, &orphans, bad)
                     : warn_at(r, ev->off, "V8 profile node is not %s: skipped", "an object");
        if (rc != TR_OK) return rc;
    }
    const char *q = elems(&deltas);
    p = elems(&samples);
    while (next_elem(r, &p, &v)) {
        jtok d;
        int64_t delta = 0, node;
        if (next_elem(r, &q, &d) && tok_us(&d, &delta) != 0) delta = 0;
        v8_prof *pr = &TR_VEC_AT(&r->profs, v8_prof, row);
        pr->ts = tr_time_add(pr->ts, delta);
        uint32_t stack =
            tok_int(&v, &node) == 0 ? map_get(&r->node_map, row, (uint64_t)node) : TR_NONE;
        if (stack == TR_NONE) {
            unknown++;
            stack = 0;
        }
        if (tr_sample_add(r->t, pr->track, pr->ts, stack, 0) == TR_NONE)
            return tr_error_nomem(r->e);
    }
    /* chunks lost from a trace leave nodes and samples without their parents: one word each */
    char num[24];
    int rc = TR_OK;
    if (orphans) {
        snprintf(num, sizeof num, "%zu", orphans);
        rc = warn_at(r, ev->off, "V8 profile chunk with %s nodes of unknown parent: made roots",
                     num);
    }
    if (rc == TR_OK && unknown) {
        snprintf(num, sizeof num, "%zu", unknown);
        rc = warn_at(r, ev->off, "V8 profile chunk with %s samples of unknown nodes: empty stacks",
                     num);
    }
    return rc;
}

/* The category that names a phase without a table of its own. */
static const char *odd_phase_cat(char ph)
{
    switch (ph) {
    case 'N':
        return "object_created";
    case 'O':
        return "object_snapshot";
    case 'D':
        return "object_destroyed";
    case '(':
        return "context_enter";
    case ')':
        return "context_leave";
    case 'v':
        return "memory_dump";
    case 'V':
        return "memory_dump_global";
    case 'c':
        return "clock_sync";
    case 'P':
        return "sample_data";
    default:
        return NULL;
    }
}

/* A phase the model has no table for: an instant with its args, phase, cat and id. */
static int phase_odd(cj_rd *r, const cev *ev, char ph, int64_t ts, tr_str name, tr_str cat,
                     uint32_t th, int *bad)
{
    tr_args_begin(r->t);
    add_args(r, &ev->args, 1, bad);
    char phs[2] = {ph, 0};
    tr_args_str(r->t, r->c[K_PH], intern(r, phs, 1));
    if (cat) tr_args_str(r->t, r->c[K_CAT], cat);
    tr_buf_reset(&r->raw);
    int local;
    if (id_text(r, ev, &r->raw, &local, bad) == 0)
        tr_args_str(r->t, r->c[K_ID], intern(r, r->raw.p, r->raw.len));
    uint32_t args = tr_args_end(r->t);
    tr_str label = tr_str_internz(r->t, odd_phase_cat(ph));
    uint32_t track = track_of(r, th, cat);
    if (tr_instant_add(r->t, track, ts, name, label, TR_SCOPE_THREAD, -1, args) == TR_NONE)
        return tr_error_nomem(r->e);
    return TR_OK;
}

static int handle_event(cj_rd *r, const cev *ev)
{
    int bad = 0, rc = TR_OK;
    if (ev->ph.type == J_NONE) {
        /* {} ends arrays in JAX traces: skipped without a word */
        if (!ev->keys) return TR_OK;
        return warn_at(r, ev->off, "event without %s: skipped", "\"ph\"");
    }
    if (ev->ph.type != J_STR || ev->ph.n == 0)
        return warn_at(r, ev->off, "event whose %s is not a phase letter: skipped", "\"ph\"");
    if (ev->dup && (rc = warn_at(r, ev->off, "event with a %s: the last value is used",
                                 "duplicate key")) != TR_OK)
        return rc;
    char ph = ev->ph.p[0];
    if (ph == 'M') {
        rc = meta_event(r, ev, &bad);
    } else {
        int64_t ts = 0;
        if (!strchr("BEXiIRCbneSTpFstfPNOD()vVc", ph) || ph == 0) {
            char what[2] = {ph, 0};
            return warn_at(r, ev->off, "unknown phase '%s': skipped", what);
        }
        if (ev->ts.type == J_NONE || tok_us(&ev->ts, &ts) != 0)
            return warn_at(r, ev->off, "event without a valid %s: skipped", "\"ts\"");
        int64_t dur = 0;
        int has_dur = ev->dur.type != J_NONE;
        if (has_dur && tok_us(&ev->dur, &dur) != 0)
            return warn_at(r, ev->off, "event with an invalid %s: skipped", "\"dur\"");
        if ((ev->tts.type != J_NONE && tok_us(&ev->tts, &(int64_t){0}) != 0) ||
            (ev->tdur.type != J_NONE && tok_us(&ev->tdur, &(int64_t){0}) != 0))
            return warn_at(r, ev->off, "event with an invalid %s: skipped", "\"tts\" or \"tdur\"");
        uint32_t th = thread_of(r, &ev->pid, &ev->tid, &bad);
        if (th == TR_NONE) {
            if (tr_trace_status(r->t, r->e) != TR_OK) return TR_FATAL;
            return warn_at(r, ev->off, "event with an invalid %s: skipped", "pid or tid");
        }
        ts = rel_ts(r, ts);
        tr_str name = tok_intern(r, &ev->name, &bad), cat = tok_intern(r, &ev->cat, &bad);
        switch (ph) {
        case 'X': {
            if (!has_dur) return warn_at(r, ev->off, "X event without %s: skipped", "\"dur\"");
            if (dur < 0)
                return warn_at(r, ev->off, "X event with a negative %s: skipped", "\"dur\"");
            int64_t bytes;
            uint32_t args = event_args(r, ev, &bytes, &bad);
            uint32_t track = track_of(r, th, cat);
            uint32_t row = tr_slice_add(r->t, track, ts, dur, name, cat, bytes, args);
            if (row == TR_NONE) return tr_error_nomem(r->e);
            open_slice o = {ts,
                            name,
                            cat,
                            args,
                            ev->off,
                            bind_key(r, ev, &bad),
                            ev->flow_in.type == J_TRUE,
                            ev->flow_out.type == J_TRUE};
            rc = flow_v2(r, &o, track, row);
            break;
        }
        case 'B':
        case 'E':
            rc = phase_be(r, ev, ph, ts, name, cat, th, &bad);
            break;
        case 'i':
        case 'I':
        case 'R': {
            int scope = TR_SCOPE_THREAD;
            if (ph != 'R' && ev->s.type == J_STR && ev->s.n == 1)
                scope = ev->s.p[0] == 'g'   ? TR_SCOPE_GLOBAL
                        : ev->s.p[0] == 'p' ? TR_SCOPE_PROCESS
                                            : TR_SCOPE_THREAD;
            int64_t bytes;
            uint32_t args = event_args(r, ev, &bytes, &bad);
            if (tr_instant_add(r->t, track_of(r, th, cat), ts, name, cat, scope, bytes, args) ==
                TR_NONE)
                return tr_error_nomem(r->e);
            break;
        }
        case 'C':
            rc = phase_counter(r, ev, ts, name, th, &bad);
            break;
        case 'T':
            if (ev->id.type == J_NONE && ev->id2.type == J_NONE && has_dur) {
                /* Perfetto's thread state: a slice named by the state */
                int64_t bytes;
                uint32_t args = event_args(r, ev, &bytes, &bad);
                if (tr_slice_add(r->t, track_of(r, th, cat), ts, dur < 0 ? 0 : dur, name,
                                 r->c[K_THREAD_STATE], bytes, args) == TR_NONE)
                    return tr_error_nomem(r->e);
                break;
            }
            /* fall through - Catapult's legacy async step */
        case 'b':
        case 'n':
        case 'e':
        case 'S':
        case 'p':
        case 'F':
            rc = phase_async(r, ev, ph, ts, name, cat, th, &bad);
            break;
        case 's':
        case 't':
        case 'f':
            rc = phase_flow(r, ev, ph, ts, name, cat, th, &bad);
            break;
        case 'P':
            if (ev->sf.type != J_NONE || ev->stack.type == J_ARR) {
                if (ev->sf.type != J_NONE && ev->stack.type != J_NONE &&
                    (rc = warn_at(r, ev->off, "P event with both %s: sf used", "sf and stack")) !=
                        TR_OK)
                    return rc;
                uint32_t args = event_args(r, ev, NULL, &bad);
                rc = add_pending_sample(r, track_of(r, th, cat), ts, &ev->sf, &ev->stack, args,
                                        ev->off, &bad);
                break;
            }
            /* V8 profiles stay instants (their args as they are) and add samples */
            rc = phase_odd(r, ev, ph, ts, name, cat, th, &bad);
            int chunk = tok_eq(&ev->name, "ProfileChunk");
            if (rc == TR_OK && (chunk || tok_eq(&ev->name, "Profile")))
                rc = v8_profile(r, ev, chunk, ts, cat, th, &bad);
            break;
        default:
            rc = phase_odd(r, ev, ph, ts, name, cat, th, &bad);
            break;
        }
    }
    if (rc == TR_OK && bad) rc = warn_at(r, ev->off, "%s replaced by U+FFFD", "invalid UTF-8");
    if (rc == TR_OK && tr_trace_status(r->t, r->e) != TR_OK) rc = TR_FATAL;
    return rc;
}

/* ---- top-level structure ---- */

/*
** Up to *BUDGET events of the traceEvents array (or of the document, when it
** is the array); at its ']' (or, for the document, its end) the state moves on.
*/
static int events_step(cj_rd *r, int *budget)
{
    cev ev;
    char c;
    for (; *budget > 0; (*budget)--) {
        int rc = win_ws(r, &c), st = S_OK;
        if (rc != TR_OK) return rc;
        if (c == ']' || (!c && r->form_array)) {
            /* an array form without its ']': as viewers do, keep what came */
            r->pos += c == ']';
            r->state = r->form_array ? ST_TAIL : ST_AFTER_KEY;
            return TR_OK;
        }
        if (!c)
            return fail_at(r, off_of(r, r->buf + r->pos), TR_E_FORMAT,
                           "trace ends inside traceEvents (the object form may not be cut short)");
        if (c != '{')
            return fail_at(r, off_of(r, r->buf + r->pos), TR_E_FORMAT,
                           "invalid trace: an event is not a JSON object");
        uint64_t at = off_of(r, r->buf + r->pos);
        if ((rc = win_unit(r, unit_event, &ev, EVENT_MAX, &st)) != TR_OK) return rc;
        if (st == S_ERR) return fail_at(r, at, TR_E_LIMIT, "event larger than 64 MiB");
        if (st == S_MORE) {
            if (!r->form_array) return fail_at(r, at, TR_E_FORMAT, "trace ends inside an event");
            r->pos = r->end;
            r->state = ST_TAIL;
            return warn_at(r, at, "%s", "trace cut short: its last, incomplete event is dropped");
        }
        if ((rc = handle_event(r, &ev)) != TR_OK) return rc;
        if ((rc = win_ws(r, &c)) != TR_OK) return rc;
        if (c == ',') {
            r->pos++;
        } else if (c != ']' && c != 0) {
            return fail_at(r, off_of(r, r->buf + r->pos), TR_E_FORMAT,
                           "invalid JSON: expected ',' or ']' after an event");
        }
    }
    return TR_OK;
}

/* One entry of the top-level "samples" array. */
static int handle_sample(cj_rd *r, const jtok *obj)
{
    int bad = 0;
    uint64_t off = off_of(r, obj->p);
    jtok ts = member(r, obj, "ts"), pid = member(r, obj, "pid"), tid = member(r, obj, "tid");
    jtok sf = member(r, obj, "sf"), stack = member(r, obj, "stack"), args = member(r, obj, "args");
    int64_t ns;
    if (tok_us(&ts, &ns) != 0)
        return warn_at(r, off, "sample without a valid %s: skipped", "\"ts\"");
    uint32_t th = thread_of(r, &pid, &tid, &bad);
    if (th == TR_NONE) return warn_at(r, off, "sample with an invalid %s: skipped", "pid or tid");
    tr_args_begin(r->t);
    add_args(r, &args, 0, &bad);
    jtok w = member(r, obj, "weight");
    int64_t wv;
    /* speedscope writes the weight as a string */
    if (w.type == J_STR && tr_parse_int64(w.p, w.n, &wv) == 0)
        tr_args_int(r->t, tr_str_internz(r->t, "weight"), wv);
    else if (w.type == J_NUM)
        arg_num(r, tr_str_internz(r->t, "weight"), &w, &wv);
    uint32_t set = tr_args_end(r->t);
    return add_pending_sample(r, track_of(r, th, 0), rel_ts(r, ns), &sf, &stack, set, off, &bad);
}

/* One stackFrames entry: id -> {name, category, parent} (plus our writer's file, line, native). */
static int handle_frame(cj_rd *r, const jtok *id, const jtok *obj)
{
    int bad = 0;
    sframe *f = tr_vec_push(&r->frames);
    if (!f) return tr_error_nomem(r->e);
    memset(f, 0, sizeof *f);
    f->id = tok_intern(r, id, &bad);
    jtok name = member(r, obj, "name"), cat = member(r, obj, "category");
    jtok parent = member(r, obj, "parent"), file = member(r, obj, "file");
    jtok line = member(r, obj, "line"), native = member(r, obj, "native");
    f->f.function = tok_intern(r, &name, &bad);
    f->f.module = tok_intern(r, &cat, &bad);
    f->f.file = tok_intern(r, &file, &bad);
    int64_t ln;
    if (tok_int(&line, &ln) == 0 && ln > 0 && ln <= INT32_MAX) f->f.line = (int32_t)ln;
    f->f.is_native = native.type == J_TRUE;
    f->parent = parent.type == J_NUM ? intern(r, parent.p, parent.n) : tok_intern(r, &parent, &bad);
    f->stack = TR_NONE;
    if (map_put(&r->frame_map, f->id, 0, (uint32_t)(r->frames.len - 1)) != TR_OK)
        return tr_error_nomem(r->e);
    return TR_OK;
}

/* The key of a stackFrames entry, kept in r->raw (it must survive a refill). */
static int container_key(cj_rd *r)
{
    char c;
    int rc, st, bad = 0;
    jtok key = {NULL, 0, J_NONE, 0};
    if ((rc = win_unit(r, unit_str, &key, EVENT_MAX, &st)) != TR_OK) return rc;
    if (st != S_OK) return fail_at(r, off_of(r, r->buf + r->pos), TR_E_FORMAT, "trace ends early");
    tr_str kid = tok_intern(r, &key, &bad);
    if ((rc = win_ws(r, &c)) != TR_OK) return rc;
    if (c != ':')
        return fail_at(r, off_of(r, r->buf + r->pos), TR_E_FORMAT, "invalid JSON: expected ':'");
    r->pos++;
    if ((rc = win_ws(r, &c)) != TR_OK) return rc;
    size_t kn;
    const char *ks = tr_str_get(r->t, kid, &kn);
    tr_buf_reset(&r->raw);
    tr_buf_add(&r->raw, ks, kn);
    return TR_OK;
}

/* One element of the container: a stackFrames entry or a samples entry. */
static int container_elem(cj_rd *r)
{
    int rc, st;
    jtok val;
    if (r->open == '{' && (rc = container_key(r)) != TR_OK) return rc;
    uint64_t at = off_of(r, r->buf + r->pos);
    if ((rc = win_unit(r, unit_value, &val, EVENT_MAX, &st)) != TR_OK) return rc;
    if (st != S_OK)
        return fail_at(r, at, st == S_ERR ? TR_E_LIMIT : TR_E_FORMAT,
                       st == S_ERR ? "value larger than 64 MiB" : "trace ends early");
    if (r->open == '{') {
        jtok id = {r->raw.p, r->raw.len, J_STR, 0};
        if (val.type != J_OBJ)
            return warn_at(r, at, "stackFrames entry is not %s: skipped", "an object");
        return handle_frame(r, &id, &val);
    }
    if (val.type != J_OBJ) return warn_at(r, at, "samples entry is not %s: skipped", "an object");
    return handle_sample(r, &val);
}

/* Up to *BUDGET elements of a top-level "samples" array or "stackFrames" object. */
static int container_step(cj_rd *r, int *budget)
{
    char c, close = r->open == '[' ? ']' : '}';
    for (; *budget > 0; (*budget)--) {
        int rc;
        if ((rc = win_ws(r, &c)) != TR_OK) return rc;
        if (c == close) {
            r->pos++;
            r->state = ST_AFTER_KEY;
            return TR_OK;
        }
        if (!c) return fail_at(r, off_of(r, r->buf + r->pos), TR_E_FORMAT, "trace ends early");
        if ((rc = container_elem(r)) != TR_OK) return rc;
        if ((rc = win_ws(r, &c)) != TR_OK) return rc;
        if (c == ',')
            r->pos++;
        else if (c != close)
            return fail_at(r, off_of(r, r->buf + r->pos), TR_E_FORMAT,
                           "invalid JSON: expected ','");
    }
    return TR_OK;
}

/* A top-level key's value: kept as metadata when small, else streamed past. */
static int read_meta_value(cj_rd *r, tr_str key)
{
    jtok val;
    int st, rc;
    uint64_t at = off_of(r, r->buf + r->pos);
    if ((rc = win_unit(r, unit_value, &val, META_KEEP, &st)) != TR_OK) return rc;
    if (st == S_MORE) return fail_at(r, at, TR_E_FORMAT, "trace ends inside a top-level value");
    size_t kn;
    const char *ks = tr_str_get(r->t, key, &kn);
    if (st == S_ERR) {
        if ((rc = win_skip_stream(r)) != TR_OK) return rc;
        tr_buf_reset(&r->key);
        tr_buf_add(&r->key, ks, kn);
        return meta_push(r, intern_key(r), TR_ARG_STR,
                         tr_str_internz(r->t, "(large value not kept)"));
    }
    int bad = 0;
    jtok k = {ks, kn, J_STR, 0};
    if (kn == 15 && memcmp(ks, "distributedInfo", 15) == 0) {
        jtok rk = member(r, &val, "rank");
        int64_t rank;
        if (tok_int(&rk, &rank) == 0 && rank >= 0 && rank <= INT32_MAX) r->rank = (int32_t)rank;
    } else if (kn == 19 && memcmp(ks, "baseTimeNanoseconds", 19) == 0) {
        int64_t b;
        if (tok_int(&val, &b) == 0) r->base_ns = b;
    } else if (kn == 15 && memcmp(ks, "displayTimeUnit", 15) == 0) {
        if (!tok_eq(&val, "ms") && !tok_eq(&val, "ns")) r->bad_unit = 1;
    }
    rc = meta_value(r, &k, &val, &bad);
    if (rc == TR_OK && bad) rc = warn_at(r, at, "%s replaced by U+FFFD", "invalid UTF-8");
    return rc;
}

/* A top-level key and its ':'; *KID its string. */
static int object_key(cj_rd *r, tr_str *kid)
{
    char c;
    int rc, st, bad = 0;
    jtok key = {NULL, 0, J_NONE, 0};
    if ((rc = win_unit(r, unit_str, &key, EVENT_MAX, &st)) != TR_OK) return rc;
    if (st != S_OK)
        return fail_at(r, off_of(r, r->buf + r->pos), st == S_ERR ? TR_E_LIMIT : TR_E_FORMAT,
                       "trace ends inside a key");
    *kid = tok_intern(r, &key, &bad);
    if ((rc = win_ws(r, &c)) != TR_OK) return rc;
    if (c != ':')
        return fail_at(r, off_of(r, r->buf + r->pos), TR_E_FORMAT, "invalid JSON: expected ':'");
    r->pos++;
    return TR_OK;
}

/*
** One member of the top-level object: traceEvents, samples and stackFrames
** are read element by element in the states they start; other values are
** kept as metadata.
*/
static int keys_step(cj_rd *r)
{
    char c;
    int rc;
    if ((rc = win_ws(r, &c)) != TR_OK) return rc;
    if (c == '}') {
        r->pos++;
        r->state = ST_TAIL;
        return TR_OK;
    }
    if (!c)
        return fail_at(r, off_of(r, r->buf + r->pos), TR_E_FORMAT,
                       "trace ends before its closing '}'");
    if (c != '"')
        return fail_at(r, off_of(r, r->buf + r->pos), TR_E_FORMAT,
                       "invalid JSON: expected a string key");
    tr_str kid = 0;
    if ((rc = object_key(r, &kid)) != TR_OK || (rc = win_ws(r, &c)) != TR_OK) return rc;
    uint64_t at = off_of(r, r->buf + r->pos);
    const char *k = tr_str_get(r->t, kid, NULL);
    r->state = ST_AFTER_KEY;
    if (strcmp(k, "traceEvents") == 0) {
        if (c != '[') return fail_at(r, at, TR_E_FORMAT, "traceEvents is not an array");
        r->pos++;
        r->form_array = 0;
        r->state = ST_EVENTS;
    } else if ((strcmp(k, "samples") == 0 && c == '[') ||
               (strcmp(k, "stackFrames") == 0 && c == '{')) {
        r->pos++;
        r->open = c;
        r->state = ST_CONTAINER;
    } else if (strcmp(k, "systemTraceEvents") == 0) {
        /* ftrace text: not read here, only skipped (Catapult also writes []) */
        if (c != '"' && c != '[')
            rc = warn_at(r, at, "%s is not a string: ignored", "systemTraceEvents");
        if (rc == TR_OK) rc = win_skip_stream(r);
    } else {
        rc = read_meta_value(r, kid);
    }
    return rc;
}

/* After a top-level member: ',' or the closing '}'. */
static int after_key(cj_rd *r)
{
    char c;
    int rc = win_ws(r, &c);
    if (rc != TR_OK) return rc;
    if (c == ',') {
        r->pos++;
    } else if (c != '}') {
        return fail_at(r, off_of(r, r->buf + r->pos), TR_E_FORMAT,
                       c ? "invalid JSON: expected ',' or '}'"
                         : "trace ends before its closing '}'");
    }
    r->state = ST_KEYS;
    return TR_OK;
}

/* The start of the document: '[' (the array form) or '{' (the object form). */
static int doc_start(cj_rd *r)
{
    char c;
    int rc = win_fill(r, 0);
    if (rc != TR_OK) return rc;
    /* a UTF-8 byte order mark is allowed */
    if (r->end >= 3 && memcmp(r->buf, "\xef\xbb\xbf", 3) == 0) r->pos = 3;
    if ((rc = win_ws(r, &c)) != TR_OK) return rc;
    if (c != '[' && c != '{')
        return fail_at(r, off_of(r, r->buf + r->pos), TR_E_FORMAT,
                       "not a Trace Event JSON file: it must start with '{' or '['");
    r->pos++;
    r->form_array = c == '[';
    r->state = c == '[' ? ST_EVENTS : ST_KEYS;
    return TR_OK;
}

/* After the document: anything but blanks is ignored, with a word. */
static int doc_tail(cj_rd *r)
{
    char c;
    int rc = win_ws(r, &c);
    if (rc == TR_OK && c)
        rc = warn_at(r, off_of(r, r->buf + r->pos), "%s",
                     "bytes after the end of the JSON document ignored");
    r->state = ST_OPENS;
    return rc;
}

/* ---- the end of the input: what needed all of it ---- */

/* The stack of stackFrames entry I (parents first), or 0 when it cannot be built. */
static uint32_t frame_stack(cj_rd *r, uint32_t i)
{
    /* iterative: walk up to a resolved ancestor, then push down */
    tr_vec path;
    tr_vec_init(&path, sizeof(uint32_t));
    uint32_t cur = i, base = 0;
    while (cur != TR_NONE) {
        sframe *f = &TR_VEC_AT(&r->frames, sframe, cur);
        if (f->stack != TR_NONE) {
            base = f->stack;
            break;
        }
        if (f->busy) break; /* a cycle: cut it here */
        f->busy = 1;
        uint32_t *slot = tr_vec_push(&path);
        if (!slot) break;
        *slot = cur;
        cur = f->parent ? map_get(&r->frame_map, f->parent, 0) : TR_NONE;
    }
    for (size_t k = path.len; k-- > 0;) {
        sframe *f = &TR_VEC_AT(&r->frames, sframe, TR_VEC_AT(&path, uint32_t, k));
        uint32_t fr = tr_frame_intern(r->t, &f->f);
        base = fr == TR_NONE ? base : tr_stack_push(r->t, base, fr);
        if (base == TR_NONE) base = 0;
        f->stack = base;
        f->busy = 0;
    }
    tr_vec_fini(&path);
    return TR_VEC_AT(&r->frames, sframe, i).stack == TR_NONE
               ? 0
               : TR_VEC_AT(&r->frames, sframe, i).stack;
}

/* Up to *BUDGET of the samples that waited for stackFrames; the state moves on after the last. */
static int finish_samples(cj_rd *r, int *budget)
{
    for (; *budget > 0; (*budget)--, r->next_sample++) {
        if (r->next_sample >= r->samples.len) {
            r->state = ST_END;
            return TR_OK;
        }
        pend_sample *s = &TR_VEC_AT(&r->samples, pend_sample, r->next_sample);
        uint32_t stack = s->stack;
        if (s->sf) {
            uint32_t f = map_get(&r->frame_map, s->sf, 0);
            if (f == TR_NONE) {
                int rc = warn_at(r, s->off, "sample's stack frame '%s' is not in stackFrames",
                                 tr_str_get(r->t, s->sf, NULL));
                if (rc != TR_OK) return rc;
                stack = 0;
            } else {
                stack = frame_stack(r, f);
            }
        }
        if (tr_sample_add(r->t, s->track, s->ts, stack, s->args) == TR_NONE)
            return tr_error_nomem(r->e);
    }
    return TR_OK;
}

/* A slice of this input for binding flow ends: by time, the enclosing one first. */
typedef struct slice_key {
    uint32_t row;
    int64_t ts, end;
} slice_key;

static slice_key slice_key_of(const tr_slices *sl, uint32_t row)
{
    int64_t dur = sl->dur[row];
    return (slice_key){row, sl->ts[row], dur < 0 ? INT64_MAX : sl->ts[row] + dur};
}

static int slice_key_cmp(const void *a, const void *b)
{
    const slice_key *x = a, *y = b;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    if (x->end != y->end) return x->end > y->end ? -1 : 1; /* the enclosing one first */
    return x->row < y->row ? -1 : x->row > y->row;
}

/* Points of one flow in time order (files put an f before its s): s, then t, then f. */
static int flow_cmp(const void *a, const void *b)
{
    const flow_pt *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    int rx = x->ph == 's' ? 0 : x->ph == 't' ? 1 : 2, ry = y->ph == 's' ? 0 : y->ph == 't' ? 1 : 2;
    if (rx != ry) return rx - ry;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
** Puts the N slice rows at ROWS (one track's, in input order) in slice_key
** order.  Files list a thread's slices by start time nearly always, so the
** rows are usually in order already and nothing is sorted.
*/
static int sort_track_rows(const tr_slices *sl, uint32_t *rows, size_t n)
{
    size_t i = 1;
    for (; i < n; i++) {
        slice_key a = slice_key_of(sl, rows[i - 1]), b = slice_key_of(sl, rows[i]);
        if (slice_key_cmp(&a, &b) > 0) break;
    }
    if (i >= n) return TR_OK;
    slice_key *k = tr_malloc(n * sizeof *k);
    if (!k) return TR_FATAL;
    for (i = 0; i < n; i++) k[i] = slice_key_of(sl, rows[i]);
    qsort(k, n, sizeof *k, slice_key_cmp);
    for (i = 0; i < n; i++) rows[i] = k[i].row;
    tr_free(k);
    return TR_OK;
}

/* The slice a flow end binds to (enclosing, or the next one) among its track's ROWS, or TR_NONE. */
static uint32_t bind_point(const tr_slices *sl, const uint32_t *rows, size_t n, const flow_pt *f)
{
    size_t lo = 0, hi = n;
    /* the first slice at or after ts */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (sl->ts[rows[mid]] < f->ts)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (!f->enclose) return lo < n ? rows[lo] : TR_NONE;
    /* the deepest slice holding ts: among those starting at ts the last (shortest) */
    size_t i = lo;
    while (i < n && sl->ts[rows[i]] == f->ts) i++;
    for (size_t steps = 0; i > 0 && steps < 256; steps++) {
        slice_key s = slice_key_of(sl, rows[--i]);
        if (s.ts <= f->ts && f->ts <= s.end) return s.row;
    }
    return TR_NONE;
}

/*
** Binds the flow ends that name no slice: the slices of this input on the
** tracks of such ends, grouped by track (first[k] .. first[k + 1] in ROWS)
** and ordered by time on each, then a binary search per end.
*/
static int bind_flow_ends(cj_rd *r)
{
    tr_slices sl;
    tr_trace_slices(r->t, &sl);
    size_t ntk = tr_track_count(r->t), n = 0;
    flow_pt *f = r->flows.data;
    size_t *first = tr_calloc(ntk + 1, sizeof *first);
    unsigned char *need = tr_calloc(ntk ? ntk : 1, 1);
    uint32_t *rows = NULL;
    int rc = TR_FATAL;
    if (!first || !need) goto out;
    for (size_t i = 0; i < r->flows.len; i++)
        if (f[i].row == TR_NONE && f[i].track < ntk) need[f[i].track] = 1;
    for (size_t row = r->first_slice; row < sl.n; row++) {
        if (sl.track[row] < ntk && need[sl.track[row]]) {
            first[sl.track[row] + 1]++;
            n++;
        }
    }
    for (size_t k = 0; k < ntk; k++) first[k + 1] += first[k];
    if (!(rows = tr_malloc((n ? n : 1) * sizeof *rows))) goto out;
    /* first[k] counts up as track k is filled, then is put back */
    for (size_t row = r->first_slice; row < sl.n; row++)
        if (sl.track[row] < ntk && need[sl.track[row]])
            rows[first[sl.track[row]]++] = (uint32_t)row;
    for (size_t k = ntk; k > 0; k--) first[k] = first[k - 1];
    first[0] = 0;
    for (size_t k = 0; k < ntk; k++)
        if (need[k] && sort_track_rows(&sl, rows + first[k], first[k + 1] - first[k]) != TR_OK)
            goto out;
    for (size_t i = 0; i < r->flows.len; i++)
        if (f[i].row == TR_NONE && f[i].track < ntk)
            f[i].row = bind_point(&sl, rows + first[f[i].track],
                                  first[f[i].track + 1] - first[f[i].track], &f[i]);
    rc = TR_OK;
out:
    tr_free(first);
    tr_free(need);
    tr_free(rows);
    return rc == TR_OK ? TR_OK : tr_error_nomem(r->e);
}

static int finish_flows(cj_rd *r)
{
    if (!r->flows.len) return TR_OK;
    if (bind_flow_ends(r) != TR_OK) return TR_FATAL;
    flow_pt *f = r->flows.data;
    qsort(f, r->flows.len, sizeof *f, flow_cmp);
    /* chains s (t...) f of one identity */
    uint64_t unbound = 0;
    for (size_t i = 0; i < r->flows.len;) {
        size_t j = i;
        while (j < r->flows.len && f[j].key == f[i].key) j++;
        const flow_pt *from = NULL;
        for (size_t q = i; q < j; q++) {
            const flow_pt *p = &f[q];
            if (p->row == TR_NONE) {
                unbound++;
                if (p->ph == 'f') from = NULL;
                continue;
            }
            if (p->ph == 's') {
                if (from) unbound++;
                from = p;
                continue;
            }
            if (!from) {
                unbound++;
                if (p->ph == 't') from = p;
                continue;
            }
            tr_flow fl = {TR_REF(TR_EV_SLICE, from->row), TR_REF(TR_EV_SLICE, p->row),
                          from->name ? from->name : p->name, from->cat ? from->cat : p->cat,
                          from->id};
            if (tr_flow_add(r->t, &fl) == TR_NONE) return tr_error_nomem(r->e);
            from = p->ph == 't' ? p : NULL;
        }
        if (from && from->ph == 's') unbound++;
        i = j;
    }
    if (unbound) return meta_push(r, r->c[K_UNBOUND_FLOWS], TR_ARG_INT, unbound);
    return TR_OK;
}

static int finish_opens(cj_rd *r)
{
    int bad = 0, rc = TR_OK;
    for (size_t i = 0; i < r->threads.len && rc == TR_OK; i++) {
        thread_st *th = thread_at(r, (uint32_t)i);
        for (size_t k = 0; k < th->opens.len && rc == TR_OK; k++) {
            open_slice *o = &TR_VEC_AT(&th->opens, open_slice, k);
            rc = warn_at(r, o->off, "B event never ended (\"%s\"): kept open to the end",
                         tr_str_get(r->t, o->name, NULL));
            if (rc == TR_OK)
                rc = close_open(r, o, track_of(r, (uint32_t)i, o->cat), -1,
                                args_merge(r, o->args, NULL, 1, &bad));
        }
    }
    for (size_t i = 0; i < r->asyncs.len && rc == TR_OK; i++) {
        async_st *a = &TR_VEC_AT(&r->asyncs, async_st, i);
        for (size_t k = 0; k < a->opens.len && rc == TR_OK; k++) {
            open_slice *o = &TR_VEC_AT(&a->opens, open_slice, k);
            rc = warn_at(r, o->off, "async slice never ended (\"%s\"): kept open to the end",
                         tr_str_get(r->t, o->name, NULL));
            if (rc == TR_OK)
                rc = close_open(r, o, a->track, -1, args_merge(r, o->args, NULL, 1, &bad));
        }
    }
    return rc;
}

/* Names for what the trace left unnamed, as the chrome writer would print them. */
static void finish_names(cj_rd *r)
{
    tr_trace *t = r->t;
    char tmp[64];
    for (size_t i = 0; i < r->threads.len; i++) {
        thread_st *th = thread_at(r, (uint32_t)i);
        /* a named thread without events still shows */
        if (th->track == TR_NONE && th->name) track_of(r, (uint32_t)i, 0);
    }
    for (size_t i = 0; i < tr_process_count(t); i++) {
        tr_process *p = tr_process_at(t, (uint32_t)i);
        if (p->input != r->input) continue;
        if (r->rank >= 0 && p->rank < 0) p->rank = r->rank;
        if (p->name) continue;
        if (p->pid == -1) {
            p->name = tr_str_internz(t, "(no pid)");
        } else {
            snprintf(tmp, sizeof tmp, "pid %lld", (long long)p->pid);
            p->name = tr_str_internz(t, tmp);
        }
    }
    for (size_t i = 0; i < tr_track_count(t); i++) {
        tr_track *tk = tr_track_at(t, (uint32_t)i);
        const tr_process *p = tr_process_get(t, tk->process);
        if (p->input != r->input || tk->name) continue;
        snprintf(tmp, sizeof tmp, "%s %lld", tr_track_kind_name(tk->kind), (long long)tk->tid);
        tk->name = tr_str_internz(t, tmp);
    }
    /* async tracks: named by their earliest slice, whatever the file order */
    tr_slices sl;
    tr_trace_slices(t, &sl);
    for (size_t i = 0; i < r->asyncs.len; i++) {
        async_st *a = &TR_VEC_AT(&r->asyncs, async_st, i);
        int64_t best = INT64_MAX;
        tr_str name = 0;
        for (size_t row = r->first_slice; row < sl.n; row++)
            if (sl.track[row] == a->track &&
                (sl.ts[row] < best || (sl.ts[row] == best && sl.name[row] < name)))
                best = sl.ts[row], name = sl.name[row];
        tr_track *tk = tr_track_at(t, a->track);
        if (tk && name) tk->name = name;
    }
}

/* The input's info: origin, clock, warnings and the metadata collected. */
static void finish_info(cj_rd *r)
{
    tr_input_info *info = tr_input_at(r->t, r->input);
    if (!info) return;
    info->clock = r->c[K_CLOCK];
    info->warnings += r->warnings;
    if (r->base_ns != INT64_MIN)
        info->origin_unix_ns = r->base_ns; /* newer Kineto: ts from baseTimeNanoseconds */
    else if (r->have_origin && r->origin > 946684800000000000LL &&
             r->origin < 4102444800000000000LL)
        info->origin_unix_ns = 0; /* epoch microseconds (older Kineto, Chrome on Linux) */
    tr_args_begin(r->t);
    for (size_t i = 0; i < r->meta.len; i++) {
        meta_kv *m = &TR_VEC_AT(&r->meta, meta_kv, i);
        if (m->type == TR_ARG_STR)
            tr_args_str(r->t, m->key, (tr_str)m->bits);
        else if (m->type == TR_ARG_UINT)
            tr_args_uint(r->t, m->key, m->bits);
        else if (m->type == TR_ARG_REAL) {
            double d;
            memcpy(&d, &m->bits, sizeof d);
            tr_args_real(r->t, m->key, d);
        } else if (m->type == TR_ARG_BOOL)
            tr_args_bool(r->t, m->key, m->bits != 0);
        else
            tr_args_int(r->t, m->key, (int64_t)m->bits);
    }
    info->meta = tr_args_end(r->t);
}

/* What needed the whole input, after the samples: flows, names, the input's info. */
static int finish_end(cj_rd *r)
{
    int rc = finish_flows(r);
    if (rc != TR_OK) return rc;
    if (r->bad_unit && (rc = warn_at(r, 0, "displayTimeUnit is %s: timestamps read as microseconds",
                                     "neither \"ms\" nor \"ns\"")) != TR_OK)
        return rc;
    finish_names(r);
    finish_info(r);
    r->state = ST_DONE;
    return tr_trace_status(r->t, r->e);
}

/* ---- the reader ---- */

/* One step of the reader's state machine, using up *BUDGET records at most. */
static int chrome_step(cj_rd *r, int *budget)
{
    switch (r->state) {
    case ST_START:
        return doc_start(r);
    case ST_EVENTS:
        return events_step(r, budget);
    case ST_KEYS:
        (*budget)--;
        return keys_step(r);
    case ST_AFTER_KEY:
        return after_key(r);
    case ST_CONTAINER:
        return container_step(r, budget);
    case ST_TAIL:
        return doc_tail(r);
    case ST_OPENS:
        r->state = ST_SAMPLES;
        return finish_opens(r);
    case ST_SAMPLES:
        return finish_samples(r, budget);
    default:
        return finish_end(r);
    }
}

static int chrome_next(void *rd, tr_error *e)
{
    cj_rd *r = rd;
    r->e = e;
    int budget = TR_READ_BATCH, rc = TR_OK;
    while (rc == TR_OK && budget > 0 && r->state != ST_DONE) rc = chrome_step(r, &budget);
    if (rc != TR_OK) return rc;
    return r->state == ST_DONE ? TR_END : TR_OK;
}

static void chrome_close(void *rd)
{
    cj_rd *r = rd;
    if (!r) return;
    for (size_t i = 0; i < r->threads.len; i++) tr_vec_fini(&thread_at(r, (uint32_t)i)->opens);
    for (size_t i = 0; i < r->asyncs.len; i++)
        tr_vec_fini(&TR_VEC_AT(&r->asyncs, async_st, i).opens);
    tr_vec_fini(&r->threads);
    tr_vec_fini(&r->asyncs);
    tr_vec_fini(&r->flows);
    tr_vec_fini(&r->samples);
    tr_vec_fini(&r->frames);
    tr_vec_fini(&r->profs);
    tr_vec_fini(&r->meta);
    tr_vec_fini(&r->recs);
    map_fini(&r->thread_map);
    map_fini(&r->async_map);
    map_fini(&r->frame_map);
    map_fini(&r->prof_map);
    map_fini(&r->node_map);
    tr_buf_fini(&r->skip.stack);
    tr_buf_fini(&r->scratch);
    tr_buf_fini(&r->key);
    tr_buf_fini(&r->raw);
    tr_free(r->buf);
    tr_free(r);
}

static int chrome_open(void **rd, const tr_read_ctx *c, tr_error *e)
{
    cj_rd *r = tr_calloc(1, sizeof *r);
    *rd = r;
    if (!r) return tr_error_nomem(e);
    tr_trace *t = tr_sink_trace(c->sink);
    r->t = t;
    r->in = c->in;
    r->e = e;
    r->diag = c->opts ? c->opts->diag : NULL;
    r->input = c->input;
    r->rank = -1;
    r->base_ns = INT64_MIN;
    r->last_thread = TR_NONE;
    tr_slices sl;
    tr_trace_slices(t, &sl);
    r->first_slice = (uint32_t)sl.n;
    for (int i = 0; i < K_COUNT; i++) r->c[i] = tr_str_internz(t, cj_const_text[i]);
    tr_buf_init(&r->skip.stack, 0);
    tr_buf_init(&r->scratch, 0);
    tr_buf_init(&r->key, 0);
    tr_buf_init(&r->raw, 0);
    tr_vec_init(&r->threads, sizeof(thread_st));
    tr_vec_init(&r->asyncs, sizeof(async_st));
    tr_vec_init(&r->flows, sizeof(flow_pt));
    tr_vec_init(&r->samples, sizeof(pend_sample));
    tr_vec_init(&r->frames, sizeof(sframe));
    tr_vec_init(&r->profs, sizeof(v8_prof));
    tr_vec_init(&r->meta, sizeof(meta_kv));
    tr_vec_init(&r->recs, sizeof(arg_rec));
    r->buf = tr_malloc(WINDOW_INIT);
    r->cap = WINDOW_INIT;
    return r->buf && tr_trace_status(t, NULL) == TR_OK ? TR_OK : tr_error_nomem(e);
}

/* ---- probing ---- */

/*
** '{' or '[' first (after a BOM and blanks), then, in what the probe sees,
** the marks of a trace: "traceEvents", or "ph" with "ts"/"name" in an array.
*/
static int chrome_probe(const tr_peek *pk)
{
    if (!pk->head) return 0;
    const char *p = (const char *)pk->head;
    size_t n = pk->head_len, i = 0;
    if (n >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0) i = 3;
    while (i < n && (p[i] == ' ' || p[i] == '\n' || p[i] == '\r' || p[i] == '\t')) i++;
    if (i >= n || (p[i] != '{' && p[i] != '[')) return 0;
    int has_ph = 0, has_events = 0;
    for (size_t k = i; k + 4 <= n; k++) {
        if (p[k] != '"') continue;
        if (memcmp(p + k, "\"ph\"", 4) == 0) has_ph = 1;
        if (k + 13 <= n && memcmp(p + k, "\"traceEvents\"", 13) == 0) has_events = 1;
    }
    if (has_events) return 95;
    if (has_ph) return 90;
    /* an array that starts with an object: a trace cut very short, or with long args first */
    size_t j = i + 1;
    while (j < n && (p[j] == ' ' || p[j] == '\n' || p[j] == '\r' || p[j] == '\t')) j++;
    if (p[i] == '[' && (j == n || p[j] == '{' || p[j] == ']')) return 40;
    return p[i] == '{' && (j < n && p[j] == '"') ? 30 : 0;
}

const tr_reader tr_reader_chrome = {
    .abi = TR_READER_ABI,
    .name = "chrome",
    .description =
        "Chrome Trace Event JSON (chrome://tracing, Perfetto, PyTorch profiler / Kineto)",
    .extensions = "json",
    .probe = chrome_probe,
    .open = chrome_open,
    .next = chrome_next,
    .close = chrome_close,
};
