/*
** chrome_v8.c: the Chrome reader's stacks: samples (P events and the
** top-level "samples" array) whose frames come from "stackFrames", which
** may follow them, so they wait for the end of the input; and V8 CPU
** profiles ("Profile" and "ProfileChunk"), unpacked into samples as they
** come.
*/
#include "chrome_impl.h"

#include <stdio.h>

/* ---- samples ---- */

/* Samples: P events with sf or stack; those without (V8 profiles) are instants. */
int cj_add_pending_sample(cj_rd *r, uint32_t track, int64_t ts, const jtok *sf, const jtok *stack,
                          uint32_t args, uint64_t off, int *bad)
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
        s->sf = cj_tok_intern(r, sf, bad);
    } else if (sf->type == J_NUM) {
        s->sf = cj_intern(r, sf->p, sf->n);
    } else if (stack->type == J_ARR) {
        /* program counters, outermost first: frames named by address */
        const char *p = cj_jws(stack->p + 1);
        while (*p && *p != ']') {
            jtok pc = {NULL, 0, J_NONE, 0, 0}; /* the text is valid: the scan cannot fail */
            if (*p == '{' || *p == '[') {
                p = cj_value_end(p);
            } else {
                cj_scan_scalar(&r->js, &p, &pc);
                size_t n = pc.n;
                const char *txt = pc.type == J_STR ? cj_str_text(&pc, &r->scratch, &n, bad) : pc.p;
                tr_frame f = {cj_intern(r, txt, n), 0, 0, 0, 1};
                uint32_t fr = tr_frame_intern(r->t, &f);
                if (fr != TR_NONE) s->stack = tr_stack_push(r->t, s->stack, fr);
            }
            p = cj_jws(p);
            if (*p == ',') p = cj_jws(p + 1);
        }
        if (s->stack == TR_NONE) s->stack = 0;
    }
    return TR_OK;
}

/* ---- V8 CPU profiles ---- */

/* A cpuProfile node: its stack is its parent's (seen before) plus its call frame. */
static int v8_node(cj_rd *r, uint32_t prof, const jtok *node, uint64_t off, size_t *orphans,
                   int *bad)
{
    int64_t id, parent;
    jtok idt = cj_member(r, node, "id"), pt = cj_member(r, node, "parent");
    if (cj_tok_int(&idt, &id) != 0)
        return cj_warn_at(r, off, "V8 profile node without a valid %s: skipped", "\"id\"");
    if (cj_map_get(&r->node_map, prof, (uint64_t)id) != TR_NONE)
        return cj_warn_at(r, off, "V8 profile node with a %s: the first is used", "repeated id");
    uint32_t up = 0;
    if (pt.type != J_NONE) {
        if (cj_tok_int(&pt, &parent) == 0) up = cj_map_get(&r->node_map, prof, (uint64_t)parent);
        if (pt.type != J_NUM || up == TR_NONE) {
            (*orphans)++;
            up = 0;
        }
    }
    jtok cf = cj_member(r, node, "callFrame");
    jtok fn = cj_member(r, &cf, "functionName"), url = cj_member(r, &cf, "url");
    jtok line = cj_member(r, &cf, "lineNumber");
    uint32_t stack = up;
    if (!cj_tok_eq(&fn, "(root)")) { /* the root is the empty stack */
        int64_t ln;
        tr_frame f = {
            fn.type == J_STR && fn.n ? cj_tok_intern(r, &fn, bad)
                                     : tr_str_internz(r->t, "(anonymous)"),
            url.type == J_STR ? cj_tok_intern(r, &url, bad) : 0, 0,
            cj_tok_int(&line, &ln) == 0 && ln >= 0 && ln < INT32_MAX ? (int32_t)ln + 1 : 0, 0};
        uint32_t fr = tr_frame_intern(r->t, &f);
        if (fr == TR_NONE || (stack = tr_stack_push(r->t, up, fr)) == TR_NONE)
            return tr_error_nomem(r->e);
    }
    if (cj_map_put(&r->node_map, prof, (uint64_t)id, stack) != TR_OK) return tr_error_nomem(r->e);
    return TR_OK;
}

/*
** "Profile" (args.data.startTime) starts a profile on its thread;
** "ProfileChunk" (same pid and id) brings nodes and samples, each sample
** timeDeltas[i] µs after the one before.  A chunk without its Profile starts
** the profile at the chunk's own ts and thread.
*/
int cj_v8_profile(cj_rd *r, const cev *ev, int chunk, int64_t ts, tr_str cat, uint32_t th, int *bad)
{
    if (ev->id.type != J_STR && ev->id.type != J_NUM)
        return cj_warn_at(r, ev->off, "V8 profile event without a valid %s: no samples", "\"id\"");
    tr_str id =
        ev->id.type == J_STR ? cj_tok_intern(r, &ev->id, bad) : cj_intern(r, ev->id.p, ev->id.n);
    uint32_t proc = cj_thread_at(r, th)->process;
    jtok data = cj_member(r, &ev->args, "data");
    uint32_t row = cj_map_get(&r->prof_map, proc, id);
    if (row == TR_NONE) {
        v8_prof *p = tr_vec_push(&r->profs);
        if (!p) return tr_error_nomem(r->e);
        row = (uint32_t)(r->profs.len - 1);
        p->track = cj_track_of(r, th, cat);
        p->ts = ts;
        jtok start = cj_member(r, &data, "startTime");
        if (!chunk && start.type != J_NONE && cj_tok_us(&start, &p->ts) != 0) {
            p->ts = ts;
            int rc = cj_warn_at(r, ev->off, "V8 Profile with an invalid %s: ts used", "startTime");
            if (rc != TR_OK) return rc;
        }
        if (cj_map_put(&r->prof_map, proc, id, row) != TR_OK) return tr_error_nomem(r->e);
    }
    if (!chunk) return TR_OK; /* a Profile only starts one: a repeated one changes nothing */
    jtok cpu = cj_member(r, &data, "cpuProfile");
    jtok nodes = cj_member(r, &cpu, "nodes"), samples = cj_member(r, &cpu, "samples");
    jtok deltas = cj_member(r, &data, "timeDeltas");
    const char *p = cj_elems(&nodes);
    jtok v;
    size_t orphans = 0, unknown = 0, undated = 0;
    while (cj_next_elem(r, &p, &v)) {
        int rc = v.type == J_OBJ
                     ? v8_node(r, row, &v, ev->off, &orphans, bad)
                     : cj_warn_at(r, ev->off, "V8 profile node is not %s: skipped", "an object");
        if (rc != TR_OK) return rc;
    }
    const char *q = cj_elems(&deltas);
    p = cj_elems(&samples);
    while (cj_next_elem(r, &p, &v)) {
        jtok d;
        int64_t delta = 0, node;
        if (!cj_next_elem(r, &q, &d) || cj_tok_us(&d, &delta) != 0) {
            delta = 0;
            undated++;
        }
        v8_prof *pr = &TR_VEC_AT(&r->profs, v8_prof, row);
        pr->ts = tr_time_add(pr->ts, delta);
        uint32_t stack =
            cj_tok_int(&v, &node) == 0 ? cj_map_get(&r->node_map, row, (uint64_t)node) : TR_NONE;
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
        rc = cj_warn_at(r, ev->off, "V8 profile chunk with %s nodes of unknown parent: made roots",
                        num);
    }
    if (rc == TR_OK && unknown) {
        snprintf(num, sizeof num, "%zu", unknown);
        rc = cj_warn_at(r, ev->off,
                        "V8 profile chunk with %s samples of unknown nodes: empty stacks", num);
    }
    if (rc == TR_OK && undated) {
        snprintf(num, sizeof num, "%zu", undated);
        rc = cj_warn_at(r, ev->off,
                        "V8 profile chunk with %s samples without a time delta (timeDeltas short "
                        "or not numbers): each at the time of the sample before it",
                        num);
    }
    return rc;
}

/* ---- the top-level samples and stackFrames ---- */

/* One entry of the top-level "samples" array. */
int cj_handle_sample(cj_rd *r, const jtok *obj)
{
    int bad = 0;
    uint64_t off = cj_off_of(r, obj->p);
    jtok ts = cj_member(r, obj, "ts"), pid = cj_member(r, obj, "pid"),
         tid = cj_member(r, obj, "tid");
    jtok sf = cj_member(r, obj, "sf"), stack = cj_member(r, obj, "stack"),
         args = cj_member(r, obj, "args");
    int64_t ns;
    if (cj_tok_us(&ts, &ns) != 0)
        return cj_warn_at(r, off, "sample without a valid %s: skipped", "\"ts\"");
    uint32_t th = cj_thread_of(r, &pid, &tid, &bad);
    if (th == TR_NONE)
        return cj_warn_at(r, off, "sample with an invalid %s: skipped", "pid or tid");
    tr_args_begin(r->t);
    cj_add_args(r, &args, 0, &bad);
    jtok w = cj_member(r, obj, "weight");
    int64_t wv;
    /* speedscope writes the weight as a string */
    if (w.type == J_STR && tr_parse_int64(w.p, w.n, &wv) == 0)
        tr_args_int(r->t, tr_str_internz(r->t, "weight"), wv);
    else if (w.type == J_NUM)
        cj_arg_num(r, tr_str_internz(r->t, "weight"), &w, &wv);
    uint32_t set = tr_args_end(r->t);
    return cj_add_pending_sample(r, cj_track_of(r, th, 0), cj_rel_ts(r, ns), &sf, &stack, set, off,
                                 &bad);
}

/* One stackFrames entry: id -> {name, category, parent} (plus our writer's file, line, native). */
int cj_handle_frame(cj_rd *r, const jtok *id, const jtok *obj)
{
    int bad = 0;
    sframe *f = tr_vec_push(&r->frames);
    if (!f) return tr_error_nomem(r->e);
    memset(f, 0, sizeof *f);
    f->id = cj_tok_intern(r, id, &bad);
    jtok name = cj_member(r, obj, "name"), cat = cj_member(r, obj, "category");
    jtok parent = cj_member(r, obj, "parent"), file = cj_member(r, obj, "file");
    jtok line = cj_member(r, obj, "line"), native = cj_member(r, obj, "native");
    f->f.function = cj_tok_intern(r, &name, &bad);
    f->f.module = cj_tok_intern(r, &cat, &bad);
    f->f.file = cj_tok_intern(r, &file, &bad);
    int64_t ln;
    if (cj_tok_int(&line, &ln) == 0 && ln > 0 && ln <= INT32_MAX) f->f.line = (int32_t)ln;
    f->f.is_native = native.type == J_TRUE;
    f->parent =
        parent.type == J_NUM ? cj_intern(r, parent.p, parent.n) : cj_tok_intern(r, &parent, &bad);
    f->stack = TR_NONE;
    if (cj_map_put(&r->frame_map, f->id, 0, (uint32_t)(r->frames.len - 1)) != TR_OK)
        return tr_error_nomem(r->e);
    return TR_OK;
}

/* ---- at the end: stacks from stackFrames ---- */

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
        if (!slot) {
            r->oom = 1;
            break;
        }
        *slot = cur;
        cur = f->parent ? cj_map_get(&r->frame_map, f->parent, 0) : TR_NONE;
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
int cj_finish_samples(cj_rd *r, int *budget)
{
    for (; *budget > 0; (*budget)--, r->next_sample++) {
        if (r->next_sample >= r->samples.len) {
            r->state = ST_END;
            return TR_OK;
        }
        pend_sample *s = &TR_VEC_AT(&r->samples, pend_sample, r->next_sample);
        uint32_t stack = s->stack;
        if (s->sf) {
            uint32_t f = cj_map_get(&r->frame_map, s->sf, 0);
            if (f == TR_NONE) {
                int rc = cj_warn_at(r, s->off, "sample's stack frame '%s' is not in stackFrames",
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
