/*
** chrome_args.c: strings, args and metadata of the Chrome reader into the
** model: the cache of recent strings in front of the trace's table, an
** event's args as a flat set (nested objects as dotted keys), the metadata
** kept for the input, and the ids of async and flow events.
*/
#include "chrome_impl.h"

#include <math.h>
#include <stdio.h>

/* ---- small helpers ---- */

uint32_t cj_map_get(const pair_map *m, uint64_t a, uint64_t b)
{
    if (!m->cap) return TR_NONE;
    size_t i = tr_hash_mix(a * 31 + tr_hash_mix(b)) & (m->cap - 1);
    while (m->val[i]) {
        if (m->ka[i] == a && m->kb[i] == b) return m->val[i] - 1;
        i = (i + 1) & (m->cap - 1);
    }
    return TR_NONE;
}

int cj_map_put(pair_map *m, uint64_t a, uint64_t b, uint32_t v)
{
    if ((m->n + 1) * 2 > m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 64;
        pair_map g = {tr_calloc(cap, 8), tr_calloc(cap, 8), tr_calloc(cap, 4), cap, 0};
        if (!g.ka || !g.kb || !g.val) {
            tr_free(g.ka), tr_free(g.kb), tr_free(g.val);
            return TR_FATAL;
        }
        for (size_t i = 0; i < m->cap; i++)
            if (m->val[i]) cj_map_put(&g, m->ka[i], m->kb[i], m->val[i] - 1);
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

void cj_map_fini(pair_map *m)
{
    tr_free(m->ka), tr_free(m->kb), tr_free(m->val);
}

tr_loc cj_loc_at(const cj_rd *r, uint64_t off)
{
    tr_loc loc = {tr_input_name(r->in), 0, 0, off + 1};
    return loc;
}

/* A warning about the event at byte OFF; TR_FAIL under --strict. */
int cj_warn_at(cj_rd *r, uint64_t off, const char *fmt, const char *arg)
{
    tr_loc loc = cj_loc_at(r, off);
    r->warnings++;
    return tr_warnf(r->diag, r->e, &loc, fmt, arg) == TR_FAIL ? TR_FAIL : TR_OK;
}

int cj_fail_at(cj_rd *r, uint64_t off, int code, const char *what)
{
    tr_loc loc = cj_loc_at(r, off);
    return tr_errorf(r->e, code, &loc, "%s", what);
}

/* ---- strings ---- */

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
            b ^= m << 29 | m >> 35; /* rotated: it must not cancel the ends */
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
    return (size_t)(tr_hash_mix(a + 0x9E3779B97F4A7C15ULL * (b ^ n)) >> (64 - CACHE_BITS));
}

/* cj_intern past its cache: the trace's table, and cache slot C refilled. */
static CJ_SLOW tr_str intern_miss(cj_rd *r, cache_ent *c, const char *s, size_t n)
{
    tr_str id = tr_str_intern(r->t, s, n);
    if (id) {
        c->p = tr_str_get(r->t, id, NULL);
        c->n = n;
        c->id = id;
    }
    return id;
}

/*
** Interns the N bytes at S.  Names, categories and arg keys repeat from one
** event to the next: a small cache of recent strings answers most of them
** before the trace's own table, whose ids it gives back unchanged.
*/
tr_str cj_intern(cj_rd *r, const char *s, size_t n)
{
    if (n == 0) return 0;
    cache_ent *c = &r->cache[cache_slot(s, n)];
    if (c->n == n && cj_same_bytes(c->p, s, n)) return c->id;
    return intern_miss(r, c, s, n);
}

/* Interns string token T; *BAD set on invalid UTF-8. */
tr_str cj_tok_intern(cj_rd *r, const jtok *t, int *bad)
{
    if (t->type != J_STR || !t->n) return 0;
    size_t n;
    const char *s = cj_str_text(t, &r->scratch, &n, bad);
    return cj_intern(r, s, n);
}

/* ---- args ---- */

/*
** Adds the number literal T under KEY: int64, uint64 when larger, else a
** double.  Returns 1 with the value in *IV when it went in as an int64.
*/
int cj_arg_num(cj_rd *r, tr_str key, const jtok *t, int64_t *iv)
{
    if (cj_tok_small_int(t, iv) || ((t->flags & JF_INT) && tr_parse_int64(t->p, t->n, iv) == 0)) {
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
            tr_args_str(r->t, key, cj_intern(r, t->p, t->n));
        return 0;
    }
    tr_args_real(r->t, key, cj_tok_double(t));
    return 0;
}

tr_str cj_intern_key(cj_rd *r)
{
    return cj_intern(r, r->key.p, r->key.len);
}

/*
** Keeps the bytes of container value V (valid JSON) in the cache of texts,
** with TEXT, its compact text (0: not made yet; the scan then takes the
** bytes as valid, and arg_emit makes the text).
*/
static void text_keep(cj_rd *r, const jtok *v, tr_str text)
{
    text_ent *c = cj_text_slot(r, v->p);
    if (v->n > TEXT_MAX) return;
    for (int k = 0; k < 2; k++) {
        if (c[k].n == v->n && memcmp(c[k].raw, v->p, v->n) == 0) {
            if (text) c[k].id = text;
            return;
        }
    }
    c[1] = c[0]; /* the newer of the pair is kept */
    memcpy(c->raw, v->p, v->n);
    c->n = (uint32_t)v->n;
    c->id = text;
}

/*
** Adds member A to the set under construction.  Its key is the text in
** r->key up to prefix[depth] (the enclosing objects' keys, each with a dot)
** and its own; an open object only extends the prefix for its members.
** The first "bytes" key sets r->bytes (an event's size, when a count).
** IDX is A's place among the event's records (MEMO_KEYS: none).
*/
static CJ_INLINE void arg_emit(cj_rd *r, const arg_rec *a, size_t idx, int *bad)
{
    size_t at = r->prefix[a->depth], kn;
    const char *ks;
    if (!at && !a->open && !(a->key.flags & (JF_ESC | JF_HIGH))) {
        ks = a->key.p; /* the common case: the key's own bytes */
        kn = a->key.n;
    } else {
        r->key.len = at;
        r->key.p[at] = '\0';
        ks = cj_str_text(&a->key, &r->scratch, &kn, bad);
        tr_buf_add(&r->key, ks, kn);
        if (a->open) {
            tr_buf_addc(&r->key, '.');
            r->prefix[a->depth + 1] = r->key.len;
            return;
        }
        ks = r->key.p;
        kn = r->key.len;
    }
    /* the key at this position in the event's kind, else the one after the key before */
    cache_ent *after = r->keys_of && idx < MEMO_KEYS
                           ? &r->keys_of->keys[idx]
                           : &r->key_after[(r->last_key * 2654435761u) >> (32 - KEY_BITS)];
    tr_str key = after->id;
    if (!key || after->n != kn || !cj_same_bytes(after->p, ks, kn)) {
        key = cj_intern(r, ks, kn);
        if (key) *after = (cache_ent){tr_str_get(r->t, key, NULL), kn, key};
    }
    r->last_key = key;
    const jtok *v = &a->val;
    int64_t iv = -1;
    int is_int = 0;
    if (v->type == J_OBJ || v->type == J_ARR) {
        tr_str text = a->text;
        if (!text) {
            cj_compact_json(&r->raw, v->p, v->p + v->n);
            text = cj_intern(r, r->raw.p, r->raw.len);
            if (text) text_keep(r, v, text);
        }
        tr_args_str(r->t, key, text);
    } else if (v->type == J_STR) {
        size_t n;
        const char *s = cj_str_text(v, &r->scratch, &n, bad);
        tr_args_str(r->t, key, n <= STR_INTERN ? cj_intern(r, s, n) : tr_str_add(r->t, s, n));
    } else if (v->type == J_NUM) {
        if (cj_tok_small_int(v, &iv)) { /* nearly every one: no call to decide */
            tr_args_int(r->t, key, iv);
            is_int = 1;
        } else {
            is_int = cj_arg_num(r, key, v, &iv);
        }
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

void cj_arg_emit(cj_rd *r, const arg_rec *a, int *bad)
{
    arg_emit(r, a, MEMO_KEYS, bad);
}

/* Adds the members recorded by the scan of the event's args (an object); no call a member. */
void cj_emit_recs(cj_rd *r, int *bad)
{
    const arg_rec *a = r->recs.data;
    for (size_t i = 0; i < r->recs.len; i++) arg_emit(r, &a[i], i, bad);
}

/*
** Adds the args value T (any JSON) to the set under construction: an
** object's members flattened (from the records made while scanning the
** event when RECORDED), anything else under the key "args".
*/
void cj_add_args(cj_rd *r, const jtok *t, int recorded, int *bad)
{
    tr_buf_reset(&r->key);
    r->prefix[0] = 0;
    if (t->type == J_OBJ) {
        if (recorded && !r->recs_over) {
            cj_emit_recs(r, bad);
        } else {
            const char *p = t->p;
            cj_args_scan(r, &p, 0, 1, bad);
        }
    } else if (t->type == J_STR) {
        /* "__stripped__" and the like: kept as they are */
        size_t n;
        const char *s = cj_str_text(t, &r->scratch, &n, bad);
        tr_args_str(r->t, tr_str_internz(r->t, "args"), cj_intern(r, s, n));
    } else if (t->type != J_NONE) {
        cj_compact_json(&r->raw, t->p, t->p + t->n);
        tr_args_str(r->t, tr_str_internz(r->t, "args"), cj_intern(r, r->raw.p, r->raw.len));
    }
}

/*
** Event EV's "bytes" arg, as arg_emit finds it (r->bytes), from the members
** the scan recorded (an object of them all), its set not made: invalid
** UTF-8 in a key or a string still sets *BAD, as adding them would.
*/
static int64_t recs_bytes(cj_rd *r, int *bad)
{
    const arg_rec *a = r->recs.data;
    int seen = 0;
    int64_t bytes = -1;
    for (size_t i = 0; i < r->recs.len; i++) {
        size_t kn, vn;
        const char *ks = a[i].key.p;
        kn = a[i].key.n;
        if (a[i].key.flags & (JF_ESC | JF_HIGH)) ks = cj_str_text(&a[i].key, &r->scratch, &kn, bad);
        if (a[i].val.type == J_STR && (a[i].val.flags & (JF_ESC | JF_HIGH)))
            cj_str_text(&a[i].val, &r->scratch, &vn, bad);
        /* a container's bytes, valid: the same ones are not checked again */
        if ((a[i].val.type == J_OBJ || a[i].val.type == J_ARR) && !a[i].text)
            text_keep(r, &a[i].val, 0);
        if (seen || a[i].depth || a[i].open || kn != 5 || memcmp(ks, "bytes", 5) != 0) continue;
        int64_t iv;
        const jtok *v = &a[i].val;
        seen = 1;
        if (v->type == J_NUM && (cj_tok_small_int(v, &iv) ||
                                 ((v->flags & JF_INT) && tr_parse_int64(v->p, v->n, &iv) == 0)))
            bytes = iv >= 0 ? iv : -1;
    }
    return bytes;
}

/*
** The args set of event EV (0 when none), with the "bytes" arg in *BYTES.
** Without args (r->no_args), an event that asks for its size (a slice or
** an instant made now, not a B whose E merges its args) makes no set.
*/
uint32_t cj_event_args(cj_rd *r, const cev *ev, int64_t *bytes, int *bad)
{
    if (r->no_args && bytes && ev->args.type == J_OBJ && !r->recs_over) {
        *bytes = recs_bytes(r, bad);
        return 0;
    }
    r->bytes_seen = 0;
    r->bytes = -1;
    tr_args_begin(r->t);
    r->keys_of = ev->memo;
    cj_add_args(r, &ev->args, 1, bad);
    r->keys_of = NULL;
    if (bytes) *bytes = r->bytes;
    return tr_args_end(r->t);
}

/* ---- metadata ---- */

int cj_meta_push(cj_rd *r, tr_str key, int type, uint64_t bits)
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
        if (cj_meta_push(r, a.key, a.type, a.v.u) != TR_OK) return TR_FATAL;
    }
    return TR_OK;
}

/* A top-level value kept as metadata under KEY (objects flattened as args are). */
static int meta_value(cj_rd *r, const jtok *key, const jtok *val, int *bad)
{
    size_t kn;
    const char *ks = cj_str_text(key, &r->scratch, &kn, bad);
    tr_buf_reset(&r->key);
    tr_buf_add(&r->key, ks, kn);
    tr_args_begin(r->t);
    if (val->type == J_OBJ) {
        tr_buf_addc(&r->key, '.');
        r->prefix[1] = r->key.len;
        const char *p = val->p;
        cj_args_scan(r, &p, 1, 1, bad);
    } else if (val->type == J_ARR) {
        cj_compact_json(&r->raw, val->p, val->p + val->n);
        tr_args_str(r->t, cj_intern_key(r), cj_intern(r, r->raw.p, r->raw.len));
    } else if (val->type == J_STR) {
        size_t n;
        const char *s = cj_str_text(val, &r->scratch, &n, bad);
        tr_args_str(r->t, cj_intern_key(r), cj_intern(r, s, n));
    } else if (val->type == J_NUM) {
        int64_t iv;
        cj_arg_num(r, cj_intern_key(r), val, &iv);
    } else if (val->type == J_NULL) {
        tr_args_real(r->t, cj_intern_key(r), NAN);
    } else {
        tr_args_bool(r->t, cj_intern_key(r), val->type == J_TRUE);
    }
    return meta_take(r, tr_args_end(r->t));
}

/* The process_name args of our own writer carry the rank. */
int cj_meta_event(cj_rd *r, const cev *ev, int *bad)
{
    uint32_t th = cj_thread_of(r, &ev->pid, &ev->tid, bad);
    if (th == TR_NONE) return cj_warn_at(r, ev->off, "skipped %s event: invalid pid or tid", "M");
    tr_process *p = tr_process_at(r->t, cj_thread_at(r, th)->process);
    jtok name = ev->name;
    if (cj_tok_eq(&name, "process_name") || cj_tok_eq(&name, "thread_name")) {
        jtok v = cj_member(r, &ev->args, "name");
        tr_str s = cj_tok_intern(r, &v, bad);
        if (!s)
            return cj_warn_at(r, ev->off, "%s without a name",
                              name.p[0] == 'p' ? "process_name" : "thread_name");
        if (name.p[0] == 'p') {
            p->name = s;
            jtok rk = cj_member(r, &ev->args, "rank");
            int64_t rank;
            if (cj_tok_int(&rk, &rank) == 0 && rank >= 0 && rank <= INT32_MAX)
                p->rank = (int32_t)rank;
        } else {
            thread_st *t = cj_thread_at(r, th);
            jtok kind = cj_member(r, &ev->args, "kind");
            t->gpu = cj_tok_eq(&kind, "gpu");
            t->name = s;
            if (t->track != TR_NONE) tr_track_at(r->t, t->track)->name = s;
        }
        return TR_OK;
    }
    if (cj_tok_eq(&name, "process_sort_index") || cj_tok_eq(&name, "thread_sort_index")) {
        jtok v = cj_member(r, &ev->args, "sort_index");
        int64_t si;
        if (cj_tok_int(&v, &si) != 0 || si < INT32_MIN || si > INT32_MAX)
            return cj_warn_at(r, ev->off, "%s without an integer sort_index", "M");
        if (name.p[0] == 'p') {
            p->sort_index = (int32_t)si;
        } else {
            thread_st *t = cj_thread_at(r, th);
            t->sort_index = (int32_t)si;
            if (t->track != TR_NONE) tr_track_at(r->t, t->track)->sort_index = (int32_t)si;
        }
        return TR_OK;
    }
    if (cj_tok_eq(&name, "process_labels")) {
        jtok v = cj_member(r, &ev->args, "labels");
        p->labels = cj_tok_intern(r, &v, bad);
        return TR_OK;
    }
    /* Anything else (num_cpus, process_uptime_seconds, TraceConfig...): metadata. */
    size_t n;
    const char *s = cj_str_text(&name, &r->scratch, &n, bad);
    tr_buf_reset(&r->key);
    tr_buf_add(&r->key, "M.", 2);
    tr_buf_add(&r->key, s, n);
    tr_buf_addc(&r->key, '.');
    tr_args_begin(r->t);
    if (ev->args.type == J_OBJ) {
        r->prefix[1] = r->key.len;
        const char *q = ev->args.p;
        cj_args_scan(r, &q, 1, 1, bad);
    }
    return meta_take(r, tr_args_end(r->t));
}

/* ---- ids and merged sets ---- */

/* The id of an async/flow event as text: "id", or "id2" local/global. */
int cj_id_text(cj_rd *r, const cev *ev, tr_buf *out, int *local, int *bad)
{
    jtok id = ev->id;
    *local = 0;
    if (ev->id2.type == J_OBJ) {
        jtok l = cj_member(r, &ev->id2, "local"), g = cj_member(r, &ev->id2, "global");
        if (l.type != J_NONE) {
            id = l;
            *local = 1;
        } else {
            id = g;
        }
    }
    if (id.type == J_STR) {
        size_t n;
        const char *s = cj_str_text(&id, &r->scratch, &n, bad);
        tr_buf_add(out, s, n);
        return 0;
    }
    if (id.type == J_NUM) {
        tr_buf_add(out, id.p, id.n);
        return 0;
    }
    return -1;
}

/* Adds A, an arg of another set, to the set being built. */
static void cj_args_copy(cj_rd *r, const tr_arg *a)
{
    if (a->type == TR_ARG_REAL)
        tr_args_real(r->t, a->key, a->v.d);
    else if (a->type == TR_ARG_STR)
        tr_args_str(r->t, a->key, a->v.s);
    else if (a->type == TR_ARG_UINT)
        tr_args_uint(r->t, a->key, a->v.u);
    else if (a->type == TR_ARG_BOOL)
        tr_args_bool(r->t, a->key, (int)a->v.i);
    else
        tr_args_int(r->t, a->key, a->v.i);
}

/* Builds the set of SET's args plus EXTRA's args (keys already in SET skipped). */
uint32_t cj_args_merge(cj_rd *r, uint32_t set, const jtok *extra, int unfinished, int *bad)
{
    if ((!extra || extra->type == J_NONE) && !unfinished) return set;
    uint32_t more = 0;
    if (extra && extra->type != J_NONE) {
        tr_args_begin(r->t);
        cj_add_args(r, extra, 1, bad);
        more = tr_args_end(r->t);
    }
    tr_args_begin(r->t);
    size_t n = tr_args_count(r->t, set);
    for (size_t i = 0; i < n; i++) {
        tr_arg a;
        tr_args_at(r->t, set, i, &a);
        cj_args_copy(r, &a);
    }
    size_t m = tr_args_count(r->t, more);
    for (size_t i = 0; i < m; i++) {
        tr_arg a, old;
        tr_args_at(r->t, more, i, &a);
        if (set && tr_args_find(r->t, set, tr_str_get(r->t, a.key, NULL), &old)) continue;
        cj_args_copy(r, &a);
    }
    if (unfinished) tr_args_int(r->t, r->c[K_UNFINISHED], 1);
    return tr_args_end(r->t);
}

int64_t cj_bytes_of(cj_rd *r, uint32_t set)
{
    tr_arg a;
    if (set && tr_args_find(r->t, set, "bytes", &a) && a.type == TR_ARG_INT && a.v.i >= 0)
        return a.v.i;
    return -1;
}

/* A top-level key's value: kept as metadata when small, else streamed past. */
/* One process ('p') or thread ('t') record of a Fuchsia systemTraceEvents object. */
static int fuchsia_name(cj_rd *r, const jtok *ev, int proc, uint64_t off, int *bad)
{
    jtok pid = cj_member(r, ev, "pid"), tid = cj_member(r, ev, "tid"),
         name = cj_member(r, ev, "name");
    jtok none = {NULL, 0, J_NONE, 0, 0};
    uint32_t th = cj_thread_of(r, &pid, proc ? &none : &tid, bad);
    tr_str s = name.type == J_STR ? cj_tok_intern(r, &name, bad) : 0;
    if (th == TR_NONE || !s)
        return cj_warn_at(r, off, "systemTraceEvents %s record without a pid, tid or name: skipped",
                          proc ? "process" : "thread");
    thread_st *t = cj_thread_at(r, th);
    if (proc) {
        tr_process_at(r->t, t->process)->name = s;
    } else {
        t->name = s;
        if (t->track != TR_NONE) tr_track_at(r->t, t->track)->name = s;
    }
    return TR_OK;
}

/*
** Fuchsia's systemTraceEvents object, {"type":"fuchsia","events":[...]} as
** trace2json writes it: its process and thread records name the lanes, as
** Catapult's importer does.  Its context switches ('k') are per-CPU
** scheduling, which the model has no lanes for: counted in one warning.
*/
int cj_read_system_object(cj_rd *r)
{
    jtok val;
    int st, rc, bad = 0;
    uint64_t at = cj_off_of(r, r->buf + r->pos), other = 0;
    if ((rc = cj_win_unit(r, cj_unit_value, &val, META_KEEP, &st)) != TR_OK) return rc;
    if (st == S_MORE) return cj_fail_at(r, at, TR_E_FORMAT, "trace ends inside a top-level value");
    if (st == S_ERR) {
        rc = cj_win_skip_stream(r);
        return rc == TR_OK ? cj_warn_at(r, at, "%s over 1 MiB: not read", "systemTraceEvents") : rc;
    }
    jtok type = cj_member(r, &val, "type"), evs = cj_member(r, &val, "events");
    if (!cj_tok_eq(&type, "fuchsia") || evs.type != J_ARR)
        return cj_warn_at(r, at, "%s is neither text nor a Fuchsia object: ignored",
                          "systemTraceEvents");
    const char *p = cj_elems(&evs);
    jtok ev;
    while (rc == TR_OK && cj_next_elem(r, &p, &ev)) {
        jtok ph = cj_member(r, &ev, "ph");
        if (cj_tok_eq(&ph, "p") || cj_tok_eq(&ph, "t"))
            rc = fuchsia_name(r, &ev, ph.p[0] == 'p', at + (uint64_t)(ev.p - val.p), &bad);
        else
            other++;
    }
    if (rc == TR_OK && other) {
        char num[32];
        snprintf(num, sizeof num, "%llu", (unsigned long long)other);
        rc = cj_warn_at(r, at,
                        "systemTraceEvents: %s records other than process and thread names "
                        "(context switches) not read",
                        num);
    }
    if (rc == TR_OK && bad) rc = cj_warn_at(r, at, "%s replaced by U+FFFD", "invalid UTF-8");
    return rc;
}

int cj_read_meta_value(cj_rd *r, tr_str key)
{
    jtok val;
    int st, rc;
    uint64_t at = cj_off_of(r, r->buf + r->pos);
    if ((rc = cj_win_unit(r, cj_unit_value, &val, META_KEEP, &st)) != TR_OK) return rc;
    if (st == S_MORE) return cj_fail_at(r, at, TR_E_FORMAT, "trace ends inside a top-level value");
    size_t kn;
    const char *ks = tr_str_get(r->t, key, &kn);
    if (st == S_ERR) {
        if ((rc = cj_win_skip_stream(r)) != TR_OK) return rc;
        tr_buf_reset(&r->key);
        tr_buf_add(&r->key, ks, kn);
        return cj_meta_push(r, cj_intern_key(r), TR_ARG_STR,
                            tr_str_internz(r->t, "(large value not kept)"));
    }
    int bad = 0;
    jtok k = {ks, kn, J_STR, 0, 0};
    if (kn == 15 && memcmp(ks, "distributedInfo", 15) == 0) {
        jtok rk = cj_member(r, &val, "rank");
        int64_t rank;
        if (cj_tok_int(&rk, &rank) == 0 && rank >= 0 && rank <= INT32_MAX) r->rank = (int32_t)rank;
    } else if (kn == 19 && memcmp(ks, "baseTimeNanoseconds", 19) == 0) {
        int64_t b;
        if (cj_tok_int(&val, &b) == 0) r->base_ns = b;
    } else if (kn == 15 && memcmp(ks, "displayTimeUnit", 15) == 0) {
        if (!cj_tok_eq(&val, "ms") && !cj_tok_eq(&val, "ns")) r->bad_unit = 1;
    }
    rc = meta_value(r, &k, &val, &bad);
    if (rc == TR_OK && bad) rc = cj_warn_at(r, at, "%s replaced by U+FFFD", "invalid UTF-8");
    return rc;
}
