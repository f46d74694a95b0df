/*
** chrome_kineto.c: what the Kineto flavour of the Trace Event JSON writer
** adds (chrome.c): the source's top-level keys, nested again from the dotted
** meta args the reader flattened, and the check that its ids can be kept.
*/
#include "chrome_writer_impl.h"
#include "tr_map.h"

#include <string.h>

/* ---- top-level keys ---- */

/* One meta value as JSON: an array was kept as its compact JSON text, so it goes back as it is. */
static int top_value(chrome_w *w, const tr_arg *a)
{
    size_t n;
    const char *s;
    switch (a->type) {
    case TR_ARG_STR:
        s = tr_str_get(w->t, a->v.s, &n);
        if (n >= 2 && s[0] == '[' && s[n - 1] == ']') return tr_buf_add(&w->b, s, n);
        return tr_buf_add_json_str(&w->b, s, n);
    case TR_ARG_BOOL:
        return a->v.i ? LIT(&w->b, "true") : LIT(&w->b, "false");
    case TR_ARG_UINT:
        return tr_buf_addf(&w->b, "%llu", (unsigned long long)a->v.u);
    case TR_ARG_REAL:
        return a->v.d == a->v.d ? tr_buf_add_real(&w->b, a->v.d) : LIT(&w->b, "null");
    default:
        return tr_buf_add_int(&w->b, a->v.i);
    }
}

/* Keys the writer writes itself: the source's are not repeated. */
static int own_key(const char *k, size_t n)
{
    static const char *const own[] = {"traceEvents", "displayTimeUnit", "otherData",
                                      "samples",     "stackFrames",     "systemTraceEvents"};
    for (size_t i = 0; i < sizeof own / sizeof *own; i++)
        if (strlen(own[i]) == n && memcmp(own[i], k, n) == 0) return 1;
    return 0;
}

int chrome_top_members(chrome_w *w, uint32_t set, size_t from, size_t to, size_t skip, int top)
{
    int rc = TR_OK, first = 1;
    for (size_t i = from; i < to && rc == TR_OK;) {
        tr_arg a;
        tr_args_at(w->t, set, i, &a);
        size_t n;
        const char *k = tr_str_get(w->t, a.key, &n) + skip;
        n -= skip;
        const char *dot = memchr(k, '.', n);
        size_t seg = dot ? (size_t)(dot - k) : n, j = i + 1;
        while (dot && j < to) {
            tr_arg b;
            tr_args_at(w->t, set, j, &b);
            size_t bn;
            const char *bk = tr_str_get(w->t, b.key, &bn) + skip;
            if (bn - skip <= seg || memcmp(bk, k, seg + 1) != 0) break;
            j++;
        }
        if (top && own_key(k, seg)) {
            i = j;
            continue;
        }
        rc |= first ? LIT(&w->b, "\n") : LIT(&w->b, ",\n");
        first = 0;
        rc |= tr_buf_add_json_str(&w->b, k, seg);
        rc |= tr_buf_addc(&w->b, ':');
        if (dot) {
            rc |= tr_buf_addc(&w->b, '{');
            rc |= chrome_top_members(w, set, i, j, skip + seg + 1, 0);
            rc |= tr_buf_addc(&w->b, '}');
        } else {
            rc |= top_value(w, &a);
        }
        i = j;
    }
    return rc | (top && !first ? tr_buf_addc(&w->b, ',') : TR_OK);
}

/* ---- ids ---- */

int chrome_kineto_check(const chrome_w *w, tr_error *e)
{
    const tr_trace *t = w->t;
    if (tr_input_count(t) != 1)
        return tr_errorf(e, TR_E_USAGE, NULL,
                         "kineto output is one input's trace (use --to chrome)");
    tr_map seen = {0};
    int rc = TR_OK;
    for (size_t i = 0; i < tr_track_count(t) && rc == TR_OK; i++) {
        const tr_track *tk = tr_track_get(t, (uint32_t)i);
        const tr_process *p = tr_process_get(t, tk->process);
        if (tk->kind == TR_TRACK_COUNTER || tk->kind == TR_TRACK_ASYNC || p->pid < 0 || tk->tid < 0)
            continue;
        int is_new;
        uint32_t *slot =
            tr_map_slot(&seen, tr_hash_mix((uint64_t)p->pid) ^ (uint64_t)tk->tid, &is_new);
        if (!slot)
            rc = tr_error_nomem(e);
        else if (!is_new)
            rc = tr_errorf(e, TR_E_USAGE, NULL,
                           "kineto output keeps the source's pids and tids, but two lanes share "
                           "pid %lld tid %lld (use --to chrome)",
                           (long long)p->pid, (long long)tk->tid);
        else
            *slot = (uint32_t)i;
    }
    tr_map_fini(&seen);
    return rc;
}
