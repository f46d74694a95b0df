/*
** opkeys.c: what a timeline colours and counts a slice as (its colour keys).
**
** A slice is its name, except a GT worker round trip, which is coloured as
** the client operations it carries: a WorkerBatch by the commands its
** WORKER_SEND listed ("[2 cmds: WorkerCreateTensor, WorkerBinaryOp]" is
** drawn as two equal stripes, CreateTensor's and BinaryOp's colour, since GT
** logs no time per command), a synchronous one (WorkerGetData) by its
** command, each without the "Worker" prefix, so a worker's UnaryOp shares
** the legend entry and colour of the client's UnaryOp; with
** --gt-pairing=visualize by the op type GT's visualize gives it (its "op"
** arg).  Keys are string ids: a trace's own, or counting down from
** KEY_MADE for text made here (a command family: a stream's trace interns
** strings while it is read, so the trace's ids may not be passed); the
** legend merges keys by text.
*/
#include "timeline_impl.h"

#include <string.h>

#define GT_WORKER_CAT "gt.worker"
#define WORKER_PREFIX "Worker"
#define KEY_MADE      (TR_NONE - 1) /* the first text made here; the next is one less */

void tl_keys_init(tl_keys *k)
{
    memset(k, 0, sizeof *k);
    tr_vec_init(&k->spans, sizeof(tl_key_span));
    tr_buf_init(&k->text, 0);
}

void tl_keys_fini(tl_keys *k)
{
    tr_map_fini(&k->cats);
    tr_map_fini(&k->by_text);
    tr_map_fini(&k->by_name);
    tr_vec_fini(&k->spans);
    tr_buf_fini(&k->text);
}

const char *tl_key_text(const tr_timeline_layout *l, uint32_t key, size_t *len)
{
    if (key > KEY_MADE || KEY_MADE - key >= l->keys.spans.len) return tr_str_get(l->t, key, len);
    const tl_key_span *sp = &TR_VEC_AT(&l->keys.spans, tl_key_span, KEY_MADE - key);
    if (len) *len = sp->len;
    return l->keys.text.p + sp->off;
}

/* The key of the N bytes at S made here, added if absent; TR_NONE when out of memory. */
static uint32_t key_intern(tr_timeline_layout *l, const char *s, size_t n)
{
    tl_keys *k = &l->keys;
    uint64_t h = tr_hash_bytes(s, n);
    for (;; h++) {
        int is_new;
        uint32_t *slot = tr_map_slot(&k->by_text, h, &is_new);
        if (!slot) return TR_NONE;
        if (!is_new) {
            const tl_key_span *sp = &TR_VEC_AT(&k->spans, tl_key_span, *slot);
            if (sp->len == n && memcmp(k->text.p + sp->off, s, n) == 0) return KEY_MADE - *slot;
            continue; /* another text with this hash: probe on */
        }
        tl_key_span *sp = tr_vec_push(&k->spans);
        if (!sp) return TR_NONE;
        *sp = (tl_key_span){k->text.len, n};
        *slot = (uint32_t)(k->spans.len - 1);
        if (tr_buf_add(&k->text, s, n) < 0 || tr_buf_addc(&k->text, '\0') < 0) return TR_NONE;
        return KEY_MADE - *slot;
    }
}

/* A command's family: "WorkerUnaryOp" is "UnaryOp". */
static uint32_t family(tr_timeline_layout *l, const char *s, size_t n)
{
    size_t p = strlen(WORKER_PREFIX);
    if (n > p && memcmp(s, WORKER_PREFIX, p) == 0) s += p, n -= p;
    return key_intern(l, s, n);
}

/* 1 when category CAT is GT's worker round trips (cached per category). */
static int is_gt_worker(tr_timeline_layout *l, tr_str cat, int *oom)
{
    int is_new;
    uint32_t *slot = tr_map_slot(&l->keys.cats, cat, &is_new);
    if (!slot) return *oom = 1, 0;
    if (is_new) *slot = strcmp(tr_str_get(l->t, cat, NULL), GT_WORKER_CAT) == 0;
    return (int)*slot;
}

/* The families of a batch's "[n cmds: A, B, ... (+k more)]" into KEYS; returns how many. */
static size_t batch_keys(tr_timeline_layout *l, const char *s, uint32_t *keys)
{
    const char *p = strchr(s, ':');
    size_t n = 0;
    if (!p || s[0] != '[') return 0;
    p++;
    while (n < TL_KEYS_MAX) {
        while (*p == ' ') p++;
        size_t w = strcspn(p, ",]");
        if (w == 0 || memcmp(p, "...", w < 3 ? w : 3) == 0) break;
        if ((keys[n] = family(l, p, w)) == TR_NONE) return SIZE_MAX;
        n++;
        if (p[w] != ',') break;
        p += w + 1;
    }
    return n;
}

int tl_slice_keys(tr_timeline_layout *l, tr_str name, tr_str cat, uint32_t args, uint32_t *keys)
{
    int oom = 0;
    keys[0] = name;
    if (!is_gt_worker(l, cat, &oom)) return oom ? -1 : 1;
    /* Most are batches: "commands" first (tr_args_find rules keys out by length and first byte). */
    tr_arg a;
    if (tr_args_find(l->t, args, "commands", &a) && a.type == TR_ARG_STR) {
        size_t n = batch_keys(l, tr_str_get(l->t, a.v.s, NULL), keys);
        if (n == SIZE_MAX) return -1;
        if (n > 0) return (int)n;
    } else if (tr_args_find(l->t, args, "op", &a) && a.type == TR_ARG_STR) {
        keys[0] = a.v.s;
        return 1;
    }
    /* A synchronous round trip: its command's family, cached by name. */
    int is_new;
    uint32_t *slot = tr_map_slot(&l->keys.by_name, name, &is_new);
    if (!slot) return -1;
    if (is_new) {
        size_t n;
        const char *text = tr_str_get(l->t, name, &n);
        if ((*slot = family(l, text, n)) == TR_NONE) return -1;
    }
    keys[0] = *slot;
    return 1;
}
