/*
** gt.c: GT2 dispatcher instruction logs (shared/formats/gt.md).
**
** Accepts every form GT wrote: the current pipe form (with or without SIZE and
** DETAILS), the size-less 4a97ec6 form, the 6621e6d fire-and-forget form,
** trace captures (gt.scripts.trace) and the older "[TAPE <t>s]" console form.
**
** Each record becomes an instant on its source's track.  Client requests
** (RECV .. SEND) and worker round trips become slices; worker round trips are
** paired either the truthful way (synchronous SEND..RECV, and batches that GT
** logs reply first) or exactly as GT's gt.scripts.visualize pairs them.
**
** The reader streams: it keeps one pending start per track and one batch
** candidate, never the input.  Lines are scanned by hand, eight bytes at a
** time where fields are padded; nothing is allocated per line, and small
** caches sit in front of the trace's string table because a log repeats a
** handful of strings millions of times.
*/
#include "gt_impl.h"
#include "gt_line_impl.h"
#include "gt_text_impl.h"

#include <string.h>

/* ---- strings and tracks ---- */

/* Fills the scratch buffer with A then B: 0, or -1 when out of memory (remembered). */
static int gt_scratch(gt_rd *g, const char *a, size_t an, const char *b, size_t bn)
{
    tr_buf_reset(&g->scratch);
    if (tr_buf_add(&g->scratch, a, an) == TR_OK && tr_buf_add(&g->scratch, b, bn) == TR_OK)
        return 0;
    g->oom = 1;
    return -1;
}

/*
** A miss of the cache: the string goes to the trace, interned (unless the
** cache behind, MORE, has it) or (free TEXT) just stored, and into the
** set's last slot.
*/
static GT_SLOW tr_str gt_cache_miss(gt_rd *g, gt_str_slot *sl, const char *s, size_t n,
                                    uint64_t head, uint64_t tail, int text)
{
    gt_str_slot *more = text ? NULL : &g->more[gt_set_of(head, tail, n, GT_MORE_BITS)];
    tr_str id = 0;
    if (more && more->len == n && more->head == head && more->tail == tail &&
        (n <= 16 || gt_same(more->text + 8, s + 8, n - 16)))
        id = more->id;
    if (!id) id = text ? tr_str_add(g->t, s, n) : tr_str_intern(g->t, s, n);
    if (id && n <= GT_STR_MAX) {
        sl += GT_WAYS - 1;
        sl->head = head;
        sl->tail = tail;
        sl->len = (uint32_t)n;
        sl->interned = !text;
        sl->id = id;
        memcpy(sl->text, s, n);
        if (more) *more = *sl;
    }
    return id;
}

/*
** A string longer than the cache takes.  Details (free TEXT: batch lists,
** exception texts) that came before get an id of their own as tr_str_add
** gives, so every output stays as it was, but their text is not stored
** again.
*/
static GT_SLOW tr_str gt_long(gt_rd *g, const char *s, size_t n, int text)
{
    if (!text) return tr_str_intern(g->t, s, n);
    uint64_t h = tr_hash_bytes(s, n);
    gt_long_slot *sl = &g->longs[h & (GT_LONGS - 1)];
    if (sl->id && sl->hash == h && sl->len == n &&
        memcmp(tr_str_get(g->t, sl->id, NULL), s, n) == 0)
        return tr_str_again(g->t, sl->id);
    tr_str id = tr_str_add(g->t, s, n);
    if (id) *sl = (gt_long_slot){h, (uint32_t)n, id};
    return id;
}

/*
** The id of the N bytes at S through the cache.  Free TEXT (details) is
** stored without the trace's index: the ones that repeat ("success=True"
** on every reply) hit the cache, and unique ones (tensor ids) skip a probe
** of a large table.  Only interned ids answer a request for an interned one.
*/
static inline tr_str gt_cached(gt_rd *g, const char *s, size_t n, int text)
{
    if (n == 0) return 0;
    if (n > GT_STR_MAX) return gt_long(g, s, n, text);
    uint64_t head, tail;
    gt_words(s, n, &head, &tail);
    gt_str_slot *sl = &g->strs[gt_set_of(head, tail, n, GT_STR_BITS) * GT_WAYS];
    for (int w = 0; w < GT_WAYS; w++) {
        if (sl[w].len == n && sl[w].head == head && sl[w].tail == tail &&
            (sl[w].interned || text) && (n <= 16 || gt_same(sl[w].text + 8, s + 8, n - 16))) {
            tr_str id = sl[w].id;
            if (w > 0) {
                gt_str_slot hit = sl[w];
                sl[w] = sl[w - 1];
                sl[w - 1] = hit;
            }
            return id;
        }
    }
    return gt_cache_miss(g, sl, s, n, head, tail, text);
}

static tr_str gt_intern(gt_rd *g, const char *s, size_t n)
{
    return gt_cached(g, s, n, 0);
}

static uint32_t gt_lane_track(const gt_rd *g, uint32_t lane)
{
    return g->track_base + lane;
}

/*
** The lane of track "<kind> <id>" (ID lowercased if LOWER), adding the track.
** Returns TR_OK or TR_FATAL (the caller reports the OOM).
*/
static int gt_track_lane(gt_rd *g, int kind, const char *id, size_t n, int lower, uint32_t *lane)
{
    tr_buf *b = &g->scratch;
    if (gt_scratch(g, kind == TR_TRACK_WORKER ? "worker " : "client ", 7, id, n) != 0)
        return TR_FATAL;
    if (lower)
        for (size_t i = b->len - n; i < b->len; i++) b->p[i] = gt_lower(b->p[i]);
    tr_str name = tr_str_intern(g->t, b->p, b->len);
    uint32_t track = tr_track_intern(g->t, g->process, kind, -1, name);
    /* This input's process is new, so all its tracks come after track_base. */
    if (track == TR_NONE || track < g->track_base) return TR_FATAL;
    size_t i = track - g->track_base;
    if (tr_vec_reserve(&g->lanes, i + 1) != TR_OK) return TR_FATAL;
    while (g->lanes.len <= i) tr_vec_push(&g->lanes);
    *lane = (uint32_t)i;
    return TR_OK;
}

/*
** A client or a worker?  The source's type word says so ("WORKER
** auto_worker_0", "CLIENT CLIENT 006b8b4568"); without one ([TAPE], or a
** bare id) GT's own rule applies: a worker when the event names WORKER.
*/
static int gt_kind(const gt_rec *r)
{
    if (r->src_n > 7 && r->src[6] == ' ') {
        if (memcmp(r->src, "WORKER", 6) == 0) return TR_TRACK_WORKER;
        if (memcmp(r->src, "CLIENT", 6) == 0) return TR_TRACK_CLIENT;
    }
    for (size_t i = 0; i + 6 <= r->ev_n; i++)
        if (memcmp(r->ev + i, "WORKER", 6) == 0) return TR_TRACK_WORKER;
    return TR_TRACK_CLIENT;
}

/*
** visualize's lane: re.search(r'worker[_\s]*(\w+)', source.lower()), whose
** group gives the lane "worker_<group>".  Returns 1 and the group, or 0.
*/
static int gt_vis_lane_id(const char *s, size_t n, size_t *id, size_t *id_n)
{
    for (size_t p = 0; p + 6 <= n; p++) {
        size_t k = 0;
        while (k < 6 && gt_lower(s[p + k]) == "worker"[k]) k++;
        if (k < 6) continue;
        size_t q = p + 6, r = q;
        while (r < n && (s[r] == '_' || gt_space(s[r]))) r++;
        if (r < n && gt_word(s[r])) {
            *id = r;
            while (r < n && gt_word(s[r])) r++;
            *id_n = r - *id;
            return 1;
        }
        /* Backtracking: the run's last '_' is itself the \w+ (a space follows it). */
        for (size_t j = r; j > q; j--) {
            if (s[j - 1] == '_') {
                *id = j - 1;
                *id_n = 1;
                return 1;
            }
        }
    }
    return 0;
}

/*
** The lanes of R's source: its own track and, in visualize mode, its
** visualize lane, which a [TAPE] record's never has: the two forms are
** cached apart, so a pipe record's lanes (which its head keeps too,
** gt_head_slot) never depend on a [TAPE] record before it.
*/
static int gt_source(gt_rd *g, const gt_rec *r, uint32_t *lane, uint32_t *vis_lane)
{
    int kind = gt_kind(r), key = kind << 1 | r->tape;
    gt_src_slot *sl = NULL;
    if (r->src_n <= GT_SRC_MAX) {
        uint64_t head, tail;
        gt_words(r->src, r->src_n, &head, &tail);
        sl = &g->srcs[gt_set_of(head ^ (uint64_t)key, tail, r->src_n, GT_SRC_BITS) * GT_WAYS];
        for (int w = 0; w < GT_WAYS; w++) {
            if (sl[w].len == r->src_n && sl[w].key == key &&
                (r->src_n <= 32 ? gt_same(sl[w].text, r->src, r->src_n)
                                : memcmp(sl[w].text, r->src, r->src_n) == 0)) {
                *lane = sl[w].lane;
                *vis_lane = sl[w].vis_lane;
                if (w > 0) {
                    gt_src_slot hit = sl[w];
                    sl[w] = sl[w - 1];
                    sl[w - 1] = hit;
                }
                return TR_OK;
            }
        }
        sl += GT_WAYS - 1;
    }
    /* The id is the source's last word: "CLIENT CLIENT 006b8b4568" -> "006b8b4568". */
    size_t id = r->src_n;
    while (id > 0 && r->src[id - 1] != ' ') id--;
    if (gt_track_lane(g, kind, r->src + id, r->src_n - id, 0, lane) != TR_OK) return TR_FATAL;
    *vis_lane = GT_NO_LANE;
    size_t v, v_n;
    if (g->visualize && !r->tape && gt_vis_lane_id(r->src, r->src_n, &v, &v_n) &&
        gt_track_lane(g, TR_TRACK_WORKER, r->src + v, v_n, 1, vis_lane) != TR_OK)
        return TR_FATAL;
    if (sl) {
        sl->len = (uint32_t)r->src_n;
        sl->key = key;
        sl->lane = *lane;
        sl->vis_lane = *vis_lane;
        memcpy(sl->text, r->src, r->src_n);
    }
    return TR_OK;
}

/* ---- args ---- */

/* A set's args gathered, to be added whole in their shape (gt_args_set). */
typedef struct gt_args {
    uint32_t n, ints; /* bit K: arg K is an int, else a string */
    uint32_t has;     /* bit K: the optional arg K of the caller's list is there */
    tr_str key[4 + GT_DET_ARGS];
    int64_t val[4 + GT_DET_ARGS];
} gt_args;

static inline void gt_args_push(gt_args *a, tr_str key, int64_t v, int is_int)
{
    a->key[a->n] = key;
    a->val[a->n] = v;
    a->ints |= (uint32_t)is_int << a->n;
    a->n++;
}

/* Optional arg BIT: an int when V is one (>= 0; GT writes -1 for none). */
static inline void gt_args_opt(gt_args *a, unsigned bit, tr_str key, int64_t v)
{
    if (v < 0) return;
    a->has |= 1u << bit;
    gt_args_push(a, key, v, 1);
}

/* Pushes A's args, arg by arg, into the set being built. */
static void gt_args_push_each(gt_rd *g, const gt_args *a)
{
    for (uint32_t k = 0; k < a->n; k++) {
        if (a->ints >> k & 1)
            tr_args_int(g->t, a->key[k], a->val[k]);
        else
            tr_args_str(g->t, a->key[k], (tr_str)a->val[k]);
    }
}

/* Appends to A the args of details that SL kept (at most GT_DET_ARGS). */
static void gt_args_add_det(gt_args *a, const gt_det_slot *sl)
{
    for (uint32_t k = 0; k < sl->n; k++) {
        a->key[a->n + k] = sl->key[k];
        a->val[a->n + k] = sl->val[k];
    }
    a->ints |= sl->is_int << a->n;
    a->n += sl->n;
}

/*
** The shape of A's keys and types (tr_args_shape; 0 when it has none),
** through the cache: two ways a set, as a record with BYTES and its
** inject without come one after the other.
*/
static uint32_t gt_shape(gt_rd *g, const gt_args *a)
{
    /* Shifted sums and one multiply: a multiply a key would make a chain of them. */
    uint64_t h = a->n | (uint64_t)a->ints << 32;
    for (uint32_t k = 0; k < a->n; k++) h += (uint64_t)a->key[k] << (5 * k);
    gt_shape_slot *sl = &g->shapes[(h * 0x9E3779B97F4A7C15ULL >> (64 - GT_SHAPE_BITS)) * 2];
    for (int w = 0; w < 2; w++) {
        uint32_t k = 0;
        if (sl[w].n != a->n || sl[w].ints != a->ints) continue;
        while (k < a->n && sl[w].key[k] == a->key[k]) k++; /* a few keys: no call */
        if (k == a->n) return sl[w].shape;
    }
    uint32_t shape = tr_args_shape(g->t, a->key, a->ints, a->n);
    if (shape) {
        sl[1] = sl[0];
        sl->n = a->n;
        sl->ints = a->ints;
        sl->shape = shape;
        memcpy(sl->key, a->key, a->n * sizeof *a->key);
    }
    return shape;
}

/* A's set, in the shape *SHAPE holds (found on the first call); its id. */
static uint32_t gt_args_set(gt_rd *g, const gt_args *a, uint32_t *shape)
{
    tr_trace *t = g->t;
    if (!a->n || g->no_args) return 0;
    if (!*shape) *shape = gt_shape(g, a);
    if (*shape) return tr_args_shaped(t, *shape, a->val);
    tr_args_begin(t);
    gt_args_push_each(g, a);
    return tr_args_end(t);
}

/* "-?(0|[1-9][0-9]*)" that fits int64: stored as an int, anything else as text. */
static int gt_plain_int(const char *s, size_t n, int64_t *v)
{
    size_t i = n && s[0] == '-';
    if (i == n || !gt_digit(s[i]) || (s[i] == '0' && (n - i > 1 || i == 1))) return 0;
    int64_t u = 0;
    for (size_t k = i; k < n; k++) {
        if (!gt_digit(s[k])) return 0;
        if (k - i < 18) u = u * 10 + (s[k] - '0');
    }
    /* 18 digits cannot overflow; longer ones go through the checked parser */
    if (n - i > 18) return tr_parse_int64(s, n, v) == 0;
    *v = i ? -u : u;
    return 1;
}

/* The length of "\w+=" at S, or 0. */
static size_t gt_key_len(const char *s, size_t n)
{
    size_t k = 0;
    while (k < n && gt_word(s[k])) k++;
    return k > 0 && k < n && s[k] == '=' ? k : 0;
}

/*
** One arg of a details string, kept in SL while there is room; past that,
** the record's set (A, then SL's args and this one on) is built arg by arg.
*/
static void gt_detail_arg(gt_rd *g, gt_det_slot *sl, const gt_args *a, tr_str key, int is_int,
                          int64_t v)
{
    if (sl->n < GT_DET_ARGS) {
        sl->key[sl->n] = key;
        sl->val[sl->n] = v;
        sl->is_int |= (uint32_t)is_int << sl->n;
    } else {
        if (sl->n == GT_DET_ARGS) {
            gt_args all = *a;
            gt_args_add_det(&all, sl);
            tr_args_begin(g->t);
            gt_args_push_each(g, &all);
        }
        if (is_int)
            tr_args_int(g->t, key, v);
        else
            tr_args_str(g->t, key, (tr_str)v);
    }
    sl->n++;
}

/*
** DETAILS (the string DET, N bytes at D) as key=value args.  Only details
** that start with a key are read this way (batch lists and exception texts
** are free text).  A value runs up to the next " \w+=" token, since tuples
** and lists contain ", ".  A log repeats its short details ("success=True",
** an inject's "tensor_id=0 shape=(16, 1)"): the string cache gives them one
** id, whose args are kept and replayed rather than parsed again.  A holds
** the record's args before them; details with more args than SL keeps are
** built into the trace's set as they are read (tr_args_end ends it).
*/
static void gt_detail_args(gt_rd *g, gt_det_slot *sl, const gt_args *a, tr_str det, const char *d,
                           size_t n)
{
    *sl = (gt_det_slot){0};
    size_t klen = gt_key_len(d, n), i = 0;
    while (klen) {
        size_t v0 = i + klen + 1, end = n, next_klen = 0;
        /* Values are short: a byte loop finds the next space sooner than a call. */
        for (size_t j = v0; j < n; j++) {
            if (d[j] != ' ') continue;
            next_klen = gt_key_len(d + j + 1, n - j - 1);
            if (next_klen) {
                end = j;
                break;
            }
        }
        const char *v = d + v0;
        size_t v_n = end - v0;
        gt_trim(&v, &v_n);
        tr_str key = gt_intern(g, d + i, klen);
        if (key == g->c[C_SEQ] || key == g->c[C_COMMAND] || key == g->c[C_BYTES] ||
            key == g->c[C_DETAILS]) {
            key = gt_scratch(g, "details.", 8, d + i, klen) == 0
                      ? tr_str_intern(g->t, g->scratch.p, g->scratch.len)
                      : 0;
        }
        int64_t iv;
        if (gt_plain_int(v, v_n, &iv))
            gt_detail_arg(g, sl, a, key, 1, iv);
        else
            gt_detail_arg(g, sl, a, key, 0, gt_intern(g, v, v_n));
        i = end + 1;
        klen = next_klen;
    }
    if (sl->n <= GT_DET_ARGS && !g->oom) sl->det = det;
}

/* ---- slices ---- */

static int64_t gt_sum_bytes(int64_t a, int64_t b)
{
    if (a < 0) return b;
    if (b < 0) return a;
    return a + b;
}

static int64_t gt_dur(int64_t from, int64_t to)
{
    return to > from ? to - from : 0;
}

/* A client request answered by SEND R (or never answered, R NULL). */
static void gt_client_slice(gt_rd *g, uint32_t lane, const gt_rec *r)
{
    tr_trace *t = g->t;
    gt_open *q = &gt_lane_at(g, lane)->req;
    gt_args a;
    a.n = a.ints = a.has = 0;
    gt_args_opt(&a, 0, g->c[C_SEQ], q->seq);
    if (r) gt_args_opt(&a, 1, g->c[C_SEND_SEQ], r->seq);
    gt_args_opt(&a, 2, g->c[C_RECV_BYTES], q->bytes);
    if (r) gt_args_opt(&a, 3, g->c[C_SEND_BYTES], r->size);
    if (!r) gt_args_opt(&a, 4, g->c[C_UNFINISHED], 1);
    uint32_t args = gt_args_set(g, &a, &g->shape_client[a.has]);
    tr_slice_add(t, gt_lane_track(g, lane), q->ts, r ? gt_dur(q->ts, r->ts) : -1, q->name,
                 g->c[C_CAT_CLIENT], gt_sum_bytes(q->bytes, r ? r->size : -1), args);
    q->set = 0;
}

/* A worker round trip: sent by S, answered by the WORKER_RECV in A. */
static void gt_worker_slice(gt_rd *g, uint32_t lane, int64_t ts, const gt_open *s, const gt_open *a,
                            tr_str commands, int estimated)
{
    tr_trace *t = g->t;
    gt_args v;
    v.n = v.ints = v.has = 0;
    gt_args_opt(&v, 0, g->c[C_SEQ], s->seq);
    gt_args_opt(&v, 1, g->c[C_RECV_SEQ], a->seq);
    gt_args_opt(&v, 2, g->c[C_SEND_BYTES], s->bytes);
    gt_args_opt(&v, 3, g->c[C_RECV_BYTES], a->bytes);
    if (estimated) gt_args_opt(&v, 4, g->c[C_START_ESTIMATED], 1);
    if (commands) {
        v.has |= 1u << 5;
        gt_args_push(&v, g->c[C_COMMANDS], commands, 0);
    }
    uint32_t args = gt_args_set(g, &v, &g->shape_worker[v.has]);
    tr_slice_add(t, gt_lane_track(g, lane), ts, gt_dur(ts, a->ts), s->name, g->c[C_CAT_WORKER],
                 gt_sum_bytes(s->bytes, a->bytes), args);
}

/*
** visualize's op type for a WORKER_SEND line: the first op=(\w+) of the
** lowercased line, else a guess from COMMAND and the line's words.
*/
static tr_str gt_vis_op(gt_rd *g, const char *line, size_t n, const gt_rec *r)
{
    for (size_t i = 0; i + 3 < n; i++) {
        if (gt_lower(line[i]) != 'o' || gt_lower(line[i + 1]) != 'p' || line[i + 2] != '=' ||
            !gt_word(line[i + 3]))
            continue;
        size_t j = i + 3;
        tr_buf_reset(&g->scratch);
        while (j < n && gt_word(line[j])) {
            if (tr_buf_addc(&g->scratch, gt_lower(line[j++])) != TR_OK) {
                g->oom = 1;
                return 0;
            }
        }
        return gt_intern(g, g->scratch.p, g->scratch.len);
    }
    const tr_str *c = g->c;
    if (gt_icontains(r->cmd, r->cmd_n, "matmul")) return c[C_OP_MATMUL];
    if (gt_icontains(r->cmd, r->cmd_n, "binaryop")) return c[C_OP_ADD];
    if (gt_icontains(r->cmd, r->cmd_n, "unaryop")) {
        if (gt_icontains(line, n, "relu")) return c[C_OP_RELU];
        if (gt_icontains(line, n, "sum")) return c[C_OP_SUM];
        if (gt_icontains(line, n, "mean")) return c[C_OP_MEAN];
        if (gt_icontains(line, n, "randn")) return c[C_OP_RANDN];
        return c[C_OP_OTHER];
    }
    if (gt_icontains(r->cmd, r->cmd_n, "getdata")) return c[C_OP_GETDATA];
    if (gt_icontains(r->cmd, r->cmd_n, "freetensor")) return c[C_OP_FREETENSOR];
    return c[C_OP_OTHER];
}

/* visualize's pairing: one pending start per lane, replaced by every SEND. */
static void gt_vis_pair(gt_rd *g, uint32_t lane, const gt_rec *r, tr_str ev, tr_str cmd,
                        const char *line, size_t n)
{
    gt_open *v = &gt_lane_at(g, lane)->vis;
    if (ev == g->c[C_WSEND]) {
        v->set = 1;
        v->ts = r->ts;
        v->seq = r->seq;
        v->name = cmd;
        v->op = g->no_args ? 0 : gt_vis_op(g, line, n, r);
    } else if (ev == g->c[C_WRECV] && v->set) {
        tr_trace *t = g->t;
        uint32_t args = 0;
        if (!g->no_args) {
            tr_args_begin(t);
            tr_args_str(t, g->c[C_OP], v->op);
            tr_args_int(t, g->c[C_SEQ], v->seq);
            args = tr_args_end(t);
        }
        tr_slice_add(t, gt_lane_track(g, lane), v->ts, gt_dur(v->ts, r->ts), v->name,
                     g->c[C_CAT_WORKER], -1, args);
        v->set = 0;
    }
}

/* ---- records ---- */

/* The header is over: what it said goes into the input's info. */
static void gt_header_done(gt_rd *g)
{
    tr_input_info *info = tr_input_at(g->t, g->input);
    if (!info) return;
    info->origin_wall = g->origin_wall;
    if (g->captured || g->limit) {
        tr_args_begin(g->t);
        if (g->captured) tr_args_str(g->t, g->c[C_CAPTURED], g->captured);
        if (g->limit) tr_args_str(g->t, g->c[C_LIMIT], g->limit);
        info->meta = tr_args_end(g->t);
    }
}

/* "Started:" (the origin), "Captured:" and "Limit:" (trace captures). */
static void gt_header_line(gt_rd *g, const char *p, size_t n)
{
    static const char *const keys[] = {"Started: ", "Captured: ", "Limit: "};
    for (int k = 0; k < 3; k++) {
        size_t kn = strlen(keys[k]);
        if (n < kn || memcmp(p, keys[k], kn) != 0) continue;
        const char *v = p + kn;
        size_t v_n = n - kn;
        gt_trim(&v, &v_n);
        if (k == 0) {
            /* Local wall-clock time: the zone is unknown, so the text is kept as is. */
            if (gt_scratch(g, v, v_n, " (local time)", 13) == 0)
                g->origin_wall = tr_str_intern(g->t, g->scratch.p, g->scratch.len);
        } else if (k == 1) {
            g->captured = tr_str_intern(g->t, v, v_n);
        } else {
            g->limit = tr_str_intern(g->t, v, v_n);
        }
        return;
    }
}

/* The arg set of record R, whose COMMAND is CMD; *DET becomes its details' string. */
static uint32_t gt_rec_args(gt_rd *g, const gt_rec *r, tr_str cmd, tr_str *det_out)
{
    tr_str det = *det_out = gt_cached(g, r->det, r->det_n, 1);
    /* A record's keys are those of its details (kept by id) and whether SEQ and BYTES are there. */
    gt_args a;
    a.n = a.ints = a.has = 0;
    gt_args_opt(&a, 0, g->c[C_SEQ], r->seq);
    gt_args_push(&a, g->c[C_COMMAND], cmd, 0);
    gt_args_opt(&a, 1, g->c[C_BYTES], r->size);
    if (!det) return gt_args_set(g, &a, &g->shape_rec[a.has]);
    gt_args_push(&a, g->c[C_DETAILS], det, 0);
    /* Details met first are parsed; then, as when they come again, the set is added whole. */
    gt_det_slot *sl = &g->dets[det & (GT_DET_SLOTS - 1)];
    if (sl->det != det) gt_detail_args(g, sl, &a, det, r->det, r->det_n);
    if (sl->n > GT_DET_ARGS) return tr_args_end(g->t);
    gt_args_add_det(&a, sl);
    return gt_args_set(g, &a, &sl->shape[a.has]);
}

/* R's head, not known yet, whose fields are EV, CMD and LANE (VIS_LANE). */
static GT_SLOW void gt_head_add(const gt_rec *r, tr_str ev, tr_str cmd, uint32_t lane,
                                uint32_t vis_lane)
{
    gt_head_slot *sl = r->head_set;
    sl[1] = sl[0];
    sl->n = (uint8_t)r->head_n;
    sl->f1e = (uint8_t)r->head_f[0], sl->f2s = (uint8_t)r->head_f[1];
    sl->f2e = (uint8_t)r->head_f[2], sl->f3s = (uint8_t)r->head_f[3];
    sl->ev_at = (uint8_t)(r->ev - r->head), sl->ev_n = (uint8_t)r->ev_n;
    sl->src_at = (uint8_t)(r->src - r->head), sl->src_n = (uint8_t)r->src_n;
    sl->cmd_at = (uint8_t)(r->cmd - r->head), sl->cmd_n = (uint8_t)r->cmd_n;
    sl->ev = ev, sl->cmd = cmd;
    sl->lane = lane, sl->vis_lane = vis_lane;
    memcpy(sl->text, r->head, r->head_n + 3);
}

/* Record R of the N bytes at LINE. */
static int gt_record(gt_rd *g, const gt_rec *r, const char *line, size_t n, tr_error *e)
{
    tr_trace *t = g->t;
    if (!g->seen_record) {
        g->seen_record = 1;
        gt_header_done(g);
    }
    uint32_t lane, vis_lane;
    tr_str ev, cmd;
    if (r->known) {
        lane = r->known->lane, vis_lane = r->known->vis_lane;
        ev = r->known->ev, cmd = r->known->cmd;
    } else {
        if (gt_source(g, r, &lane, &vis_lane) != TR_OK) return tr_error_nomem(e);
        ev = gt_intern(g, r->ev, r->ev_n);
        cmd = gt_intern(g, r->cmd, r->cmd_n);
        if (r->head_n && ev && (cmd || !r->cmd_n)) gt_head_add(r, ev, cmd, lane, vis_lane);
    }
    tr_str det = 0; /* only args hold the details */
    uint32_t args = g->no_args ? 0 : gt_rec_args(g, r, cmd, &det);
    uint32_t row = tr_instant_add(t, gt_lane_track(g, lane), r->ts, ev, g->c[C_CAT_GT],
                                  TR_SCOPE_THREAD, r->size, args);
    /* Flows name it by its row among all the input's instants, dropped ones too (tr_sink.h). */
    if (row != TR_NONE) row += (uint32_t)g->sink->dropped[TR_EV_INSTANT];

    gt_open cur = {1, r->ts, r->seq, r->size, cmd, 0, row};
    /* A batch: its WORKER_RECV, then at once its WORKER_SEND, seq + 1. */
    int batch_send = 0;
    if (g->batch.set) {
        if (ev == g->c[C_WSEND] && lane == g->batch_lane && cmd == g->batch.name && r->seq >= 0 &&
            g->batch.seq >= 0 && r->seq == g->batch.seq + 1) {
            gt_worker_slice(g, lane, g->batch_start, &cur, &g->batch, det, 1);
            gt_flow_out(g, g->batch.row);
            gt_flow_back(g, g->batch.row, row);
            batch_send = 1;
        }
        g->batch.set = 0;
    }
    gt_lane *l = gt_lane_at(g, lane);
    if (ev == g->c[C_RECV]) {
        if (l->req.set) gt_client_slice(g, lane, NULL);
        l->req = cur;
        gt_flow_request(g, lane);
    } else if (ev == g->c[C_SEND]) {
        if (l->req.set) {
            gt_flow_answer(g, lane, row);
            gt_client_slice(g, lane, r);
        }
    } else if (g->visualize) {
        /* worker slices come from visualize's pairing below */
    } else if (ev == g->c[C_WSEND]) {
        if (!batch_send) {
            l->send = cur;
            gt_flow_out(g, row);
        }
    } else if (ev == g->c[C_WRECV]) {
        if (l->send.set && l->send.name == cmd) {
            gt_worker_slice(g, lane, l->send.ts, &l->send, &cur, 0, 0);
            gt_flow_back(g, l->send.row, row);
            l->send.set = 0;
        } else {
            /*
            ** No request of its kind pending: a batch reply, logged before
            ** its SEND.  Both were logged after the round trip, so the batch
            ** went out at the latest when the previous record was logged.
            */
            g->batch = cur;
            g->batch_lane = lane;
            g->batch_start = g->have_prev ? g->prev_ts : r->ts;
        }
    }
    if (g->visualize && r->vis_match && vis_lane != GT_NO_LANE)
        gt_vis_pair(g, vis_lane, r, ev, cmd, line, n);
    g->prev_ts = r->ts;
    g->have_prev = 1;
    return g->oom ? tr_error_nomem(e) : tr_trace_status(t, e);
}

/* ---- the reader ---- */

static int gt_init(gt_rd *g, tr_input *in, tr_trace *t, uint32_t input, const tr_read_opts *o)
{
    g->t = t;
    g->in = in;
    g->input = input;
    g->diag = o ? o->diag : NULL;
    g->visualize = o && o->gt_pairing == TR_GT_PAIR_VISUALIZE;
    g->no_args = o && o->no_args;
    for (int i = 0; i < C_COUNT; i++) g->c[i] = tr_str_internz(t, gt_const_text[i]);
    g->track_base = (uint32_t)tr_track_count(t);
    g->process = tr_process_intern(t, input, -1);
    tr_process *p = tr_process_at(t, g->process);
    if (p) p->name = tr_str_internz(t, "GT dispatcher");
    return tr_trace_status(t, NULL);
}

static int gt_finish(gt_rd *g, tr_error *e)
{
    if (!g->seen_record) gt_header_done(g);
    for (size_t i = 0; i < g->lanes.len; i++)
        if (gt_lane_at(g, (uint32_t)i)->req.set) gt_client_slice(g, (uint32_t)i, NULL);
    tr_input_info *info = tr_input_at(g->t, g->input);
    if (info) {
        info->clock = g->c[C_CLOCK];
        info->lines_skipped += g->skipped;
        info->warnings += g->warnings;
    }
    return g->oom ? tr_error_nomem(e) : tr_trace_status(g->t, e);
}

/* Where later events can start: records come in time order, slices start at pending starts. */
static int64_t gt_low(gt_rd *g)
{
    if (!g->have_prev) return INT64_MIN;
    int64_t low = g->batch.set && g->batch_start < g->prev_ts ? g->batch_start : g->prev_ts;
    for (uint32_t i = 0; i < g->lanes.len; i++) {
        const gt_lane *l = gt_lane_at(g, i);
        const gt_open *pending[3] = {&l->req, &l->send, &l->vis};
        for (int k = 0; k < 3; k++)
            if (pending[k]->set && pending[k]->ts < low) low = pending[k]->ts;
    }
    return low;
}

/*
** One line at P: a record, a header line, or text that is skipped; the *N
** bytes of LN, or, when LN is NULL (read in place), the bytes up to the
** first '\n' of the *N at P, *N then set to their count.  A bad record is
** reported at LN's place; read in place, it is left as it is, and so is a
** line that is not a record or that gt_split finds not whole: then GT_AGAIN
** is returned.
*/
#define GT_AGAIN 2
static inline int gt_line(gt_rd *g, const tr_line *ln, const char *p, size_t *n, tr_error *e)
{
    size_t start, end = 0, col = 0;
    int64_t ns = -1;
    int kind = gt_classify(p, *n, &start, &end, &ns);
    /* In place only records are read (gt_split checks their bytes); other lines go to getline. */
    if (!ln && kind != GT_PIPE) return GT_AGAIN;
    if (kind == GT_TEXT) {
        if (!g->seen_record) gt_header_line(g, p, *n);
        g->skipped++;
        return TR_OK;
    }
    gt_rec r;
    int whole = 1;
    const char *why = kind == GT_PIPE ? gt_parse_pipe(g, p, n, start, end, ns, &r, &col, &whole)
                                      : gt_parse_tape(p, *n, start, &r, &col);
    if (!ln && (why || !whole || p[*n - 1] == '\r')) return GT_AGAIN;
    if (why) {
        tr_loc loc = tr_input_loc(g->in, ln, col);
        g->warnings++;
        return tr_warnf(g->diag, e, &loc, "skipped GT record: %s", why) == TR_FAIL ? TR_FAIL
                                                                                   : TR_OK;
    }
    return gt_record(g, &r, p, *n, e);
}

/*
** Up to MAX lines read in place in the input's window (tr_input_span_raw),
** so that most lines are not handed out one by one; *DONE says how many.  A
** line not whole in the window, one that ends in "\r\n", holds a NUL or a
** byte >= 0x80, is not a record or is a bad one is left to tr_input_getline.
*/
static int gt_span(gt_rd *g, int max, int *done, tr_error *e)
{
    const char *p;
    size_t n = tr_input_span_raw(g->in, &p), s = 0;
    int k = 0, rc = TR_OK;
    while (k < max && s < n) {
        size_t len = n - s;
        rc = gt_line(g, NULL, p + s, &len, e);
        if (rc == GT_AGAIN) {
            rc = TR_OK;
            break;
        }
        s += len + 1;
        k++;
        if (rc != TR_OK) break;
    }
    tr_input_skip(g->in, s, (uint64_t)k);
    *done = k;
    return rc;
}

/*
** Input bytes a record line, slice, arg value, set and flow take: a line is
** 110 to 120 bytes and becomes an instant with 5 or 6 args; about one in
** three makes a slice, two in three a flow (tests/bench/gen_gt.py's mix, as
** a training run logs); one in five stores a string of details, about 30
** bytes of text (room to spare: a second block of text would take a fresh
** 2 MiB page for its first bytes).  It sizes the model up front
** (tr_sink_expect).
*/
static const tr_expect gt_bytes_per = {{280, 110, 0, 0}, 17, 80, 0, 170, 500, 16};
/* Without args (tr_read_opts.no_args) no set is made and no details stored. */
static const tr_expect gt_bytes_per_no_args = {{280, 110, 0, 0}, 0, 0, 0, 170, 0, 0};

static int gt_reader_open(void **rd, const tr_read_ctx *c, tr_error *e)
{
    gt_rd *g = tr_calloc(1, sizeof *g);
    *rd = g;
    if (!g) return tr_error_nomem(e);
    tr_vec_init(&g->lanes, sizeof(gt_lane));
    tr_vec_init(&g->replies, sizeof(gt_reply));
    g->flow_req = GT_NO_LANE;
    tr_buf_init(&g->scratch, 0);
    g->sink = c->sink;
    tr_sink_expect(c->sink, tr_input_size(c->in),
                   c->opts && c->opts->no_args ? &gt_bytes_per_no_args : &gt_bytes_per);
    return gt_init(g, c->in, tr_sink_trace(c->sink), c->input, c->opts) == TR_OK
               ? TR_OK
               : tr_error_nomem(e);
}

static int gt_reader_next(void *rd, tr_error *e)
{
    gt_rd *g = rd;
    tr_line ln;
    for (int k = 0, done; k < TR_READ_BATCH; k++) {
        int rc = gt_span(g, TR_READ_BATCH - k, &done, e);
        if (rc != TR_OK) return rc;
        if ((k += done) == TR_READ_BATCH) break;
        rc = tr_input_getline(g->in, &ln, e);
        if (rc == TR_END) return (rc = gt_finish(g, e)) == TR_OK ? TR_END : rc;
        size_t len = ln.len;
        if (rc == TR_OK) rc = gt_line(g, &ln, ln.p, &len, e);
        if (rc != TR_OK) return rc;
    }
    g->sink->low = gt_low(g);
    return TR_OK;
}

static void gt_reader_close(void *rd)
{
    gt_rd *g = rd;
    if (!g) return;
    tr_vec_fini(&g->lanes);
    tr_vec_fini(&g->replies);
    tr_buf_fini(&g->scratch);
    tr_free(g);
}

/* ---- probing ---- */

/* "^\s*\d+(\.\d+)?s \| #\d+ \| " */
static int gt_probe_event_line(const char *p, size_t n)
{
    size_t start, i;
    int64_t ns;
    if (gt_classify(p, n, &start, &i, &ns) != GT_PIPE) return 0;
    if (n - i < 5 || memcmp(p + i, "s | #", 5) != 0) return 0;
    i += 5;
    size_t d = i;
    while (i < n && gt_digit(p[i])) i++;
    return i > d && n - i >= 3 && memcmp(p + i, " | ", 3) == 0;
}

static int gt_probe(const tr_peek *pk)
{
    if (!pk->head) return 0;
    const char *p = (const char *)pk->head;
    size_t n = pk->head_len, i = 0;
    while (i < n && gt_space(p[i])) i++;
    /* JSON (Chrome traces, py-spy --json) is never ours, whatever it quotes. */
    if (i < n && (p[i] == '{' || (p[i] == '[' && (n - i < 6 || memcmp(p + i, "[TAPE ", 6) != 0))))
        return 0;
    int tape = 0;
    for (size_t b = 0; b < n;) {
        const char *nl = memchr(p + b, '\n', n - b);
        size_t e = nl ? (size_t)(nl - p) : n;
        size_t len = e - b, s, t;
        int64_t ns;
        if (gt_icontains(p + b, len, "gt2 dispatcher instruction stream")) return 90;
        if (gt_probe_event_line(p + b, len)) return 90;
        if (gt_classify(p + b, len, &s, &t, &ns) == GT_TAPE && len - s >= 6 && p[b + s + 5] == ' ')
            tape = 1;
        b = e + 1;
    }
    return tape ? 60 : 0;
}

const tr_reader tr_reader_gt = {
    .abi = TR_READER_ABI,
    .name = "gt",
    .description =
        "GT2 dispatcher instruction log (GT_INSTRUCTION_LOG, trace captures, [TAPE] console)",
    .extensions = "log,txt",
    .probe = gt_probe,
    .open = gt_reader_open,
    .next = gt_reader_next,
    .close = gt_reader_close,
    .streams = 1,
};
