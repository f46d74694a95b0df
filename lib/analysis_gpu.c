/*
** analysis_gpu.c: GPU streams and devices of Kineto/PyTorch traces.
**
** Per stream (a track): busy and idle time, and time in kernels, memcpy and
** memset.  Per device (a process, as Kineto gives each GPU its own pid):
** the same sums, communication kernels (NCCL/RCCL) apart, and how long they
** overlapped other kernels: the intersection of the union of communication
** kernels with the union of compute kernels, as HTA's comm/compute overlap.
** Slices come in start order (tr_iter's, a stream's), so every union grows
** at its end: a closed length and one open interval (tr_gpu_acc), and the
** overlap is compute + communication - the union of both.
*/
#include "analysis_impl.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/*
** A union of intervals met in start order, growing: its closed length and
** the interval still open.  ^Zeroed, it is empty.
*/
typedef struct gpu_union {
    int64_t total, cur_s, cur_e;
    int started;
} gpu_union;

static void union_add(gpu_union *u, int64_t s, int64_t e)
{
    if (!u->started || s > u->cur_e) {
        if (u->started) u->total += u->cur_e - u->cur_s;
        u->started = 1;
        u->cur_s = s;
        u->cur_e = e;
    } else if (e > u->cur_e) {
        u->cur_e = e;
    }
}

static int64_t union_length(const gpu_union *u)
{
    return u->total + (u->started ? u->cur_e - u->cur_s : 0);
}

static int gpu_class_of_cat(const char *cat)
{
    if (strcmp(cat, "kernel") == 0) return TR_GPU_KERNEL;
    if (strcmp(cat, "gpu_memcpy") == 0) return TR_GPU_MEMCPY;
    if (strcmp(cat, "gpu_memset") == 0) return TR_GPU_MEMSET;
    return -1;
}

static int gpu_class_of_name(const char *name)
{
    if (strncasecmp(name, "memcpy", 6) == 0) return TR_GPU_MEMCPY;
    if (strncasecmp(name, "memset", 6) == 0) return TR_GPU_MEMSET;
    return TR_GPU_KERNEL;
}

void tr_gpu_stats_fini(tr_gpu_stats *s)
{
    tr_free(s->streams);
    tr_free(s->devices);
    memset(s, 0, sizeof *s);
}

/* A device's unions of kernels: compute, communication, and both (for their overlap). */
typedef struct gpu_walls {
    gpu_union compute, comm, all;
} gpu_walls;

struct tr_gpu_acc {
    const tr_trace *t;
    int64_t first, last;                              /* the span so far */
    size_t n_cat, n_comm, n_name, n_stream, n_device; /* of the arrays below */
    int8_t *cat_class;   /* by string id: class, -1 none, -2 not looked up */
    int8_t *name_comm;   /* by string id: 1 communication kernel, 0 not, -1 not looked up */
    int8_t *name_class;  /* by string id, for slices classed by their GPU track */
    uint32_t *stream_of; /* by track */
    uint32_t *device_of; /* by process */
    tr_vec streams;      /* tr_gpu_stream, in the order of their first GPU slices */
    tr_vec busy;         /* gpu_union per stream */
    tr_vec devices;      /* tr_gpu_device, the same */
    tr_vec walls;        /* gpu_walls per device */
};

static int gpu_class(tr_gpu_acc *c, const tr_event_rec *ev)
{
    int8_t *k = &c->cat_class[ev->u.s.cat];
    if (*k == -2) *k = (int8_t)gpu_class_of_cat(tr_str_get(c->t, ev->u.s.cat, NULL));
    if (*k >= 0) return *k;
    if (tr_track_get(c->t, ev->track)->kind != TR_TRACK_GPU) return -1;
    int8_t *n = &c->name_class[ev->u.s.name];
    if (*n == -2) *n = (int8_t)gpu_class_of_name(tr_str_get(c->t, ev->u.s.name, NULL));
    return *n;
}

static int gpu_is_comm(tr_gpu_acc *c, tr_str name)
{
    int8_t *k = &c->name_comm[name];
    if (*k < 0) {
        const char *s = tr_str_get(c->t, name, NULL);
        *k = strncasecmp(s, "nccl", 4) == 0 || strncasecmp(s, "rccl", 4) == 0;
    }
    return *k;
}

/* KEY's row in V and its unions in STATE (zeroed: empty), pushed when new; UINT32_MAX: no memory.
 */
static uint32_t gpu_index(uint32_t *of, uint32_t key, tr_vec *v, tr_vec *state)
{
    if (of[key] == UINT32_MAX) {
        if (!tr_vec_push(v) || !tr_vec_push(state)) return UINT32_MAX;
        of[key] = (uint32_t)(v->len - 1);
    }
    return of[key];
}

int tr_gpu_acc_new(const tr_trace *t, tr_gpu_acc **out, tr_error *e)
{
    tr_gpu_acc *c = tr_calloc(1, sizeof *c);
    *out = NULL;
    if (!c) return tr_error_nomem(e);
    c->t = t;
    c->first = INT64_MAX;
    c->last = INT64_MIN;
    tr_vec_init(&c->streams, sizeof(tr_gpu_stream));
    tr_vec_init(&c->busy, sizeof(gpu_union));
    tr_vec_init(&c->devices, sizeof(tr_gpu_device));
    tr_vec_init(&c->walls, sizeof(gpu_walls));
    *out = c;
    return TR_OK;
}

int tr_gpu_acc_add(tr_gpu_acc *c, const tr_row_event *x, tr_error *e)
{
    const tr_event_rec *ev = &x->rec;
    tr_stat_span_add(&c->first, &c->last, ev);
    size_t n_str = tr_str_count(c->t);
    if (ev->kind != TR_EV_SLICE || ev->u.s.name >= n_str || ev->u.s.cat >= n_str ||
        ev->track >= tr_track_count(c->t))
        return TR_OK;
    size_t name = (size_t)ev->u.s.name + 1, cat = (size_t)ev->u.s.cat + 1;
    uint32_t tk = ev->track, pr = tr_track_get(c->t, tk)->process;
    if (tr_an_grow(&c->cat_class, &c->n_cat, cat, 1, -2) != TR_OK ||
        tr_an_grow(&c->name_comm, &c->n_comm, name, 1, -1) != TR_OK ||
        tr_an_grow(&c->name_class, &c->n_name, name, 1, -2) != TR_OK ||
        tr_an_grow(&c->stream_of, &c->n_stream, (size_t)tk + 1, sizeof *c->stream_of, 0xff) !=
            TR_OK ||
        tr_an_grow(&c->device_of, &c->n_device, (size_t)pr + 1, sizeof *c->device_of, 0xff) !=
            TR_OK)
        return tr_error_nomem(e);
    int cl = gpu_class(c, ev);
    if (cl < 0) return TR_OK;
    uint32_t si = gpu_index(c->stream_of, tk, &c->streams, &c->busy);
    uint32_t di = gpu_index(c->device_of, pr, &c->devices, &c->walls);
    if (si == UINT32_MAX || di == UINT32_MAX) return tr_error_nomem(e);
    tr_gpu_stream *st = &TR_VEC_AT(&c->streams, tr_gpu_stream, si);
    tr_gpu_device *dv = &TR_VEC_AT(&c->devices, tr_gpu_device, di);
    int64_t d = ev->dur > 0 ? ev->dur : 0, end = ev->ts + d;
    st->track = tk;
    union_add(&TR_VEC_AT(&c->busy, gpu_union, si), ev->ts, end);
    dv->process = pr;
    st->count[cl]++;
    st->time[cl] += d;
    dv->time[cl] += d;
    if (cl != TR_GPU_KERNEL) return TR_OK;
    int comm = gpu_is_comm(c, ev->u.s.name);
    if (comm) st->comm += d, dv->comm += d;
    gpu_walls *w = &TR_VEC_AT(&c->walls, gpu_walls, di);
    union_add(comm ? &w->comm : &w->compute, ev->ts, end);
    union_add(&w->all, ev->ts, end);
    return TR_OK;
}

int tr_gpu_acc_end(tr_gpu_acc *c, tr_gpu_stats *out, tr_error *e)
{
    (void)e;
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < c->streams.len; i++) {
        tr_gpu_stream *st = &TR_VEC_AT(&c->streams, tr_gpu_stream, i);
        st->busy = union_length(&TR_VEC_AT(&c->busy, gpu_union, i));
        st->idle = (c->last - c->first) - st->busy;
    }
    /* Overlap = compute + communication - their union: the intersection of the two unions. */
    for (size_t i = 0; i < c->devices.len; i++) {
        tr_gpu_device *dv = &TR_VEC_AT(&c->devices, tr_gpu_device, i);
        const gpu_walls *w = &TR_VEC_AT(&c->walls, gpu_walls, i);
        dv->compute_wall = union_length(&w->compute);
        dv->comm_wall = union_length(&w->comm);
        dv->overlap = dv->compute_wall + dv->comm_wall - union_length(&w->all);
    }
    out->streams = c->streams.data;
    out->n_streams = c->streams.len;
    out->devices = c->devices.data;
    out->n_devices = c->devices.len;
    tr_vec_init(&c->streams, sizeof(tr_gpu_stream));
    tr_vec_init(&c->devices, sizeof(tr_gpu_device));
    return TR_OK;
}

void tr_gpu_acc_free(tr_gpu_acc *c)
{
    if (!c) return;
    tr_free(c->cat_class);
    tr_free(c->name_comm);
    tr_free(c->name_class);
    tr_free(c->stream_of);
    tr_free(c->device_of);
    tr_vec_fini(&c->streams);
    tr_vec_fini(&c->busy);
    tr_vec_fini(&c->devices);
    tr_vec_fini(&c->walls);
    tr_free(c);
}

static int feed_gpu(void *user, const tr_row_event *x, tr_error *e)
{
    return tr_gpu_acc_add(user, x, e);
}

int tr_gpu_stats_compute(const tr_trace *t, tr_gpu_stats *out, tr_error *e)
{
    memset(out, 0, sizeof *out);
    tr_gpu_acc *c;
    int rc = tr_gpu_acc_new(t, &c, e);
    if (rc == TR_OK) rc = tr_stat_feed_model(t, feed_gpu, c, e);
    if (rc == TR_OK) rc = tr_gpu_acc_end(c, out, e);
    tr_gpu_acc_free(c);
    return rc;
}
