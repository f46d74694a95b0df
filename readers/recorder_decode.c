/*
** recorder_decode.c: the byte layouts of a Recorder rank -- Z-blocks (G3),
** call-signature tables and grammars (recorder.md §2.2, §2.3, §9, §10.3-10.5).
**
** Every count read from a file is checked against the bytes that are really
** there before anything is allocated from it, and every grammar reference is
** checked before expansion, so expansion itself cannot fail.
*/
#include "recorder_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#define REC_KEY_MIN 15 /* tid 8, func 1, level 1, argc 1, args_len 4 */
/* deflate cannot expand more than about 1032:1; anything more is a lie. */
#define REC_ZLIB_RATIO 1100

void rec_bytes_free(rec_bytes *b)
{
    tr_free(b->own);
    b->p = NULL;
    b->n = 0;
    b->own = NULL;
}

/* A format error at byte OFF of NAME. */
static int err_at(tr_error *e, const char *name, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int err_at(tr_error *e, const char *name, uint64_t off, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tr_loc loc = {name, 0, 0, off + 1};
    return tr_errorf(e, TR_E_FORMAT, &loc, "%s", msg);
}

int rec_zblock(const rec_bytes *src, size_t at, const char *name, uint64_t base, rec_bytes *out,
               size_t *next, tr_error *e)
{
    tr_loc loc = {name, 0, 0, base + at + 1};
    if (src->n < 16 || at > src->n - 16)
        return tr_errorf(e, TR_E_FORMAT, &loc, "compressed block header cut short");
    uint64_t csize = rec_le64(src->p + at), rsize = rec_le64(src->p + at + 8);
    if (csize > src->n - at - 16)
        return err_at(e, name, base + at, "compressed block claims %llu bytes, %zu are left",
                      (unsigned long long)csize, src->n - at - 16);
    if (rsize / REC_ZLIB_RATIO > csize || rsize > SIZE_MAX / 2)
        return err_at(e, name, base + at,
                      "compressed block claims %llu raw bytes from %llu compressed",
                      (unsigned long long)rsize, (unsigned long long)csize);
    unsigned char *buf = tr_malloc(rsize ? (size_t)rsize : 1);
    if (!buf) return tr_error_nomem(e);
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit(&z) != Z_OK) {
        tr_free(buf);
        return tr_error_nomem(e);
    }
    /* zlib counts in uInt; blocks bigger than 4 GiB are fed in parts. */
    const unsigned char *in = src->p + at + 16;
    uint64_t in_left = csize, out_left = rsize;
    unsigned char *dst = buf;
    int zr = Z_OK;
    while (zr == Z_OK) {
        if (z.avail_in == 0 && in_left) {
            z.next_in = (unsigned char *)(uintptr_t)in;
            z.avail_in = in_left > UINT32_MAX ? UINT32_MAX : (uInt)in_left;
            in += z.avail_in;
            in_left -= z.avail_in;
        }
        if (z.avail_out == 0 && out_left) {
            z.next_out = dst;
            z.avail_out = out_left > UINT32_MAX ? UINT32_MAX : (uInt)out_left;
            dst += z.avail_out;
            out_left -= z.avail_out;
        }
        uInt before_in = z.avail_in, before_out = z.avail_out;
        zr = inflate(&z, Z_NO_FLUSH);
        if (zr == Z_BUF_ERROR && (z.avail_in != before_in || z.avail_out != before_out)) zr = Z_OK;
        if (zr == Z_OK && z.avail_in == 0 && !in_left) zr = Z_BUF_ERROR; /* input ran out */
        if (zr == Z_OK && z.avail_out == 0 && !out_left) zr = Z_DATA_ERROR;
    }
    uint64_t got = z.total_out;
    inflateEnd(&z);
    if (zr != Z_STREAM_END || got != rsize || in_left || z.avail_in) {
        tr_free(buf);
        if (zr == Z_STREAM_END)
            return err_at(e, name, base + at,
                          "compressed block inflates to %llu bytes, its header says %llu",
                          (unsigned long long)got, (unsigned long long)rsize);
        return tr_errorf(e, TR_E_FORMAT, &loc, "compressed block does not inflate (%s)",
                         zr == Z_BUF_ERROR ? "cut short" : "corrupt data");
    }
    out->p = buf;
    out->n = (size_t)rsize;
    out->own = buf;
    if (next) *next = at + 16 + (size_t)csize;
    return TR_OK;
}

/* ---- call-signature table ---- */

int rec_cst_parse(rec_cst *c, rec_bytes *raw, int hdr, uint32_t n_names, const char *name,
                  tr_error *e)
{
    memset(c, 0, sizeof *c);
    c->raw = *raw;
    memset(raw, 0, sizeof *raw);
    const unsigned char *p = c->raw.p;
    size_t n = c->raw.n;
    if (n < 4) return err_at(e, name, 0, "call-signature table cut short (%zu bytes)", n);
    int32_t entries = rec_lei32(p);
    size_t min_entry = (size_t)hdr + REC_KEY_MIN;
    if (entries < 0 || (uint64_t)entries > (n - 4) / min_entry)
        return err_at(e, name, 0,
                      "call-signature table claims %d entries, its %zu bytes cannot hold them",
                      (int)entries, n);
    c->n = (uint32_t)entries;
    c->sig = tr_calloc(c->n ? c->n : 1, sizeof *c->sig);
    if (!c->sig) return tr_error_nomem(e);
    size_t at = 4;
    for (uint32_t i = 0; i < c->n; i++) {
        if (n - at < min_entry)
            return err_at(e, name, at, "call-signature entry %u of %u cut short", i, c->n);
        int32_t id = rec_lei32(p + at);
        int32_t key_len = rec_lei32(p + at + (hdr == 16 ? 8 : 4));
        /* G2a has no terminal ids worth trusting less: both index by id. */
        if (id < 0 || (uint32_t)id >= c->n)
            return err_at(e, name, at, "terminal id %d out of range (%u entries)", (int)id, c->n);
        if (c->sig[id].present) return err_at(e, name, at, "terminal id %d appears twice", (int)id);
        if (key_len < REC_KEY_MIN || (size_t)key_len > n - at - (size_t)hdr)
            return err_at(e, name, at, "key length %d does not fit (%zu bytes left)", (int)key_len,
                          n - at - (size_t)hdr);
        const unsigned char *k = p + at + hdr;
        int32_t args_len = rec_lei32(k + 11);
        if (args_len != key_len - REC_KEY_MIN)
            return err_at(e, name, at, "argument length %d does not match key length %d",
                          (int)args_len, (int)key_len);
        rec_sig *s = &c->sig[id];
        s->tid = (int64_t)rec_le64(k);
        s->func = k[8];
        s->level = k[9];
        s->argc = k[10];
        s->args = (const char *)k + REC_KEY_MIN;
        s->args_len = (uint32_t)args_len;
        s->present = 1;
        s->at = at;
        if (s->func != 255 && s->func >= n_names)
            return err_at(e, name, at, "function id %u out of range (%u names in recorder.mt)",
                          (unsigned)s->func, n_names);
        at += (size_t)hdr + (size_t)key_len;
    }
    return TR_OK;
}

uint64_t rec_cst_most(uint64_t size, int hdr)
{
    return size < 4 ? 0 : (size - 4) / ((uint64_t)hdr + REC_KEY_MIN);
}

void rec_cst_free(rec_cst *c)
{
    rec_bytes_free(&c->raw);
    tr_free(c->sig);
    memset(c, 0, sizeof *c);
}

/* ---- grammar ---- */

static uint32_t rule_hash(int32_t id)
{
    return (uint32_t)id * 2654435761u;
}

static uint32_t *rule_slot(const rec_cfg *g, int32_t id)
{
    size_t mask = g->cap - 1;
    for (size_t i = rule_hash(id) & mask;; i = (i + 1) & mask) {
        uint32_t *s = &g->slot[i];
        if (*s == 0 || g->rule[*s - 1].id == id) return s;
    }
}

static uint32_t rule_find(const rec_cfg *g, int32_t id)
{
    uint32_t s = *rule_slot(g, id);
    return s ? s - 1 : UINT32_MAX;
}

/* A frame of the walk over rule references: the rule and the next symbol. */
typedef struct walk {
    uint32_t rule, sym;
} walk;

/*
** Lengths bottom-up with an explicit stack; a rule met again while it is on
** the stack is a cycle.  STATE: 0 new, 1 on the stack, 2 done.
*/
static int cfg_lengths(rec_cfg *g, uint64_t max_records, const char *limit, const char *name,
                       tr_error *e)
{
    uint8_t *state = tr_calloc(g->n, 1);
    walk *st = tr_malloc(((size_t)g->n + 1) * sizeof *st);
    int rc = TR_OK;
    if (!state || !st) rc = tr_error_nomem(e);
    for (uint32_t root = 0; rc == TR_OK && root < g->n; root++) {
        if (state[root]) continue;
        size_t top = 0;
        st[top++] = (walk){root, 0};
        state[root] = 1;
        g->rule[root].len = 0;
        while (top && rc == TR_OK) {
            walk *w = &st[top - 1];
            rec_rule *r = &g->rule[w->rule];
            if (w->sym == r->n) {
                state[w->rule] = 2;
                top--;
                continue;
            }
            const unsigned char *sp = r->at + (size_t)w->sym * 8;
            int32_t v = rec_lei32(sp), rep = rec_lei32(sp + 4);
            uint64_t off = (uint64_t)(sp - g->raw.p);
            uint64_t unit = 1;
            if (v < 0) {
                uint32_t sub = rule_find(g, v);
                if (state[sub] == 1) {
                    tr_loc loc = {name, 0, 0, off + 1};
                    rc = tr_errorf(e, TR_E_FORMAT, &loc,
                                   sub == w->rule ? "rule %d refers to itself"
                                                  : "rule %d is part of a cycle of rules",
                                   (int)v);
                    break;
                }
                if (state[sub] == 0) {
                    state[sub] = 1;
                    g->rule[sub].len = 0;
                    st[top++] = (walk){sub, 0};
                    continue; /* come back to this symbol when SUB is done */
                }
                unit = g->rule[sub].len;
            }
            if (unit && (uint64_t)rep > max_records / unit) {
                rc = err_at(e, name, off, "grammar claims more records than the %llu %s",
                            (unsigned long long)max_records, limit);
                break;
            }
            r->len += unit * (uint64_t)rep;
            if (r->len > max_records) {
                rc = err_at(e, name, off, "grammar claims more records than the %llu %s",
                            (unsigned long long)max_records, limit);
                break;
            }
            w->sym++;
        }
    }
    tr_free(state);
    tr_free(st);
    return rc;
}

int rec_cfg_parse(rec_cfg *g, rec_bytes *raw, uint32_t n_terminals, uint64_t max_records,
                  const char *limit, const char *name, tr_error *e)
{
    memset(g, 0, sizeof *g);
    g->raw = *raw;
    memset(raw, 0, sizeof *raw);
    const unsigned char *p = g->raw.p;
    size_t n = g->raw.n;
    if (n < 4) return err_at(e, name, 0, "grammar cut short (%zu bytes)", n);
    int32_t rules = rec_lei32(p);
    if (rules < 1 || (uint64_t)rules > (n - 4) / 8)
        return err_at(e, name, 0, "grammar claims %d rules, its %zu bytes cannot hold them",
                      (int)rules, n);
    g->n = (uint32_t)rules;
    g->cap = 16;
    while (g->cap < (size_t)g->n * 2) g->cap *= 2;
    g->rule = tr_calloc(g->n, sizeof *g->rule);
    g->slot = tr_calloc(g->cap, sizeof *g->slot);
    if (!g->rule || !g->slot) return tr_error_nomem(e);
    size_t at = 4;
    for (uint32_t i = 0; i < g->n; i++) {
        if (n - at < 8) return err_at(e, name, at, "rule %u of %u cut short", i, g->n);
        int32_t id = rec_lei32(p + at), syms = rec_lei32(p + at + 4);
        if (id >= 0) return err_at(e, name, at, "rule id %d is not negative", (int)id);
        if (syms < 0 || (uint64_t)syms > (n - at - 8) / 8)
            return err_at(e, name, at, "rule claims %d symbols, %zu bytes are left", (int)syms,
                          n - at - 8);
        uint32_t *s = rule_slot(g, id);
        if (*s) return err_at(e, name, at, "rule id %d appears twice", (int)id);
        *s = i + 1;
        g->rule[i] = (rec_rule){id, (uint32_t)syms, p + at + 8, 0};
        at += 8 + (size_t)syms * 8;
    }
    uint32_t start = rule_find(g, -1);
    if (start == UINT32_MAX) return err_at(e, name, 0, "grammar has no start rule (-1)");
    g->start = start;
    /* Every symbol must name something that exists before lengths are summed. */
    for (uint32_t i = 0; i < g->n; i++) {
        for (uint32_t k = 0; k < g->rule[i].n; k++) {
            const unsigned char *sp = g->rule[i].at + (size_t)k * 8;
            int32_t v = rec_lei32(sp), rep = rec_lei32(sp + 4);
            uint64_t off = (uint64_t)(sp - p);
            if (rep < 1) return err_at(e, name, off, "repeat count %d is not positive", (int)rep);
            if (v >= 0 && (uint32_t)v >= n_terminals)
                return err_at(e, name, off, "terminal %d out of range (%u call signatures)", (int)v,
                              n_terminals);
            if (v < 0 && rule_find(g, v) == UINT32_MAX)
                return err_at(e, name, off, "reference to missing rule %d", (int)v);
        }
    }
    return cfg_lengths(g, max_records, limit, name, e);
}

void rec_cfg_free(rec_cfg *g)
{
    rec_bytes_free(&g->raw);
    tr_free(g->rule);
    tr_free(g->slot);
    memset(g, 0, sizeof *g);
}

/* REP copies of terminal id V, W bytes each, at O; returns their end. */
static inline __attribute__((always_inline)) unsigned char *put_ids(unsigned char *o, uint32_t v,
                                                                    uint32_t rep, unsigned w)
{
    uint8_t v8 = (uint8_t)v;
    uint16_t v16 = (uint16_t)v;
    if (w == 1 && rep > 2) {
        memset(o, v8, rep);
        return o + rep;
    }
    /* repeats are mostly 1 and 2: stores, not a call */
    for (uint32_t k = 0; k < rep; k++, o += w) {
        if (w == 1)
            *o = v8;
        else if (w == 2)
            memcpy(o, &v16, 2);
        else
            memcpy(o, &v, 4);
    }
    return o;
}

/*
** Depth first with an explicit stack (exponents can be large; the depth is
** at most the rule count since the grammar is acyclic).  A rule repeated K
** times is expanded once and its output copied K-1 more times.
*/
static inline __attribute__((always_inline)) int expand_w(const rec_cfg *g, unsigned char *out,
                                                          unsigned w, tr_error *e)
{
    typedef struct frame {
        uint32_t rule, sym;
        unsigned char *begin; /* where this rule's output starts */
        uint32_t reps;        /* copies to make once expanded */
    } frame;
    frame *st = tr_malloc(((size_t)g->n + 1) * sizeof *st);
    if (!st) return tr_error_nomem(e);
    size_t top = 0;
    unsigned char *o = out;
    st[top++] = (frame){g->start, 0, o, 1};
    while (top) {
        frame *f = &st[top - 1];
        const rec_rule *r = &g->rule[f->rule];
        if (f->sym == r->n) {
            size_t len = (size_t)(o - f->begin);
            for (uint32_t k = 1; k < f->reps; k++) {
                memcpy(o, f->begin, len);
                o += len;
            }
            top--;
            continue;
        }
        const unsigned char *sp = r->at + (size_t)f->sym * 8;
        int32_t v = rec_lei32(sp);
        uint32_t rep = rec_le32(sp + 4);
        f->sym++;
        if (v >= 0) {
            o = put_ids(o, (uint32_t)v, rep, w);
        } else {
            st[top++] = (frame){rule_find(g, v), 0, o, rep};
        }
    }
    tr_free(st);
    return TR_OK;
}

int rec_cfg_expand(const rec_cfg *g, unsigned char *out, unsigned w, tr_error *e)
{
    if (w == 1) return expand_w(g, out, 1, e);
    if (w == 2) return expand_w(g, out, 2, e);
    return expand_w(g, out, 4, e);
}
