/*
** analysis_gpu.c: GPU streams and devices of Kineto/PyTorch traces.
**
** Per stream (a track): busy and idle time, and time in kernels, memcpy and
** memset.  Per device (a process, as Kineto gives each GPU its own pid):
** the same sums, communication kernels (NCCL/RCCL) apart, and how long they
** overlapped other kernels: the intersection of the union of communication
** kernels with the union of compute kernels, as HTA's comm/compute overlap.
*/
#include "analysis_impl.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct kern_iv {
    uint32_t dev;
    uint32_t comm;
    int64_t s, e;
} kern_iv;

static int kern_cmp(const void *pa, const void *pb)
{
    const kern_iv *a = pa, *b = pb;
    if (a->dev != b->dev) return a->dev < b->dev ? -1 : 1;
    if (a->comm != b->comm) return a->comm < b->comm ? -1 : 1;
    return (a->s > b->s) - (a->s < b->s);
}

/* Merges the sorted intervals V[0..N) in place; returns how many remain. */
static size_t kern_merge(kern_iv *v, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (k && v[i].s <= v[k - 1].e) {
            if (v[i].e > v[k - 1].e) v[k - 1].e = v[i].e;
        } else {
            v[k++] = v[i];
        }
    }
    return k;
}

static int64_t kern_total(const kern_iv *v, size_t n)
{
    int64_t sum = 0;
    for (size_t i = 0; i < n; i++) sum += v[i].e - v[i].s;
    return sum;
}

/* The length of the intersection of two merged interval lists. */
static int64_t kern_overlap(const kern_iv *a, size_t na, const kern_iv *b, size_t nb)
{
    int64_t sum = 0;
    size_t i = 0, j = 0;
    while (i < na && j < nb) {
        int64_t s = a[i].s > b[j].s ? a[i].s : b[j].s, e = a[i].e < b[j].e ? a[i].e : b[j].e;
        if (e > s) sum += e - s;
        if (a[i].e < b[j].e)
            i++;
        else
            j++;
    }
    return sum;
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

typedef struct gpu_ctx {
    const tr_trace *t;
    tr_gpu_stats *out;
    int8_t *cat_class;      /* by string id: class, -1 none, -2 not looked up */
    int8_t *name_comm;      /* by string id: 1 communication kernel, 0 not, -1 not looked up */
    int8_t *name_class;     /* by string id, for slices classed by their GPU track */
    uint32_t *stream_of;    /* by track */
    uint32_t *device_of;    /* by process */
    int64_t *cur_s, *cur_e; /* per stream: the busy interval being built */
    tr_vec kern;            /* kern_iv */
} gpu_ctx;

static int gpu_class(gpu_ctx *c, const tr_slices *s, size_t i)
{
    int8_t *k = &c->cat_class[tr_slice_cat(s, i)];
    if (*k == -2) *k = (int8_t)gpu_class_of_cat(tr_str_get(c->t, tr_slice_cat(s, i), NULL));
    if (*k >= 0) return *k;
    if (tr_track_get(c->t, s->track[i])->kind != TR_TRACK_GPU) return -1;
    int8_t *n = &c->name_class[s->name[i]];
    if (*n == -2) *n = (int8_t)gpu_class_of_name(tr_str_get(c->t, s->name[i], NULL));
    return *n;
}

static int gpu_is_comm(gpu_ctx *c, tr_str name)
{
    int8_t *k = &c->name_comm[name];
    if (*k < 0) {
        const char *s = tr_str_get(c->t, name, NULL);
        *k = strncasecmp(s, "nccl", 4) == 0 || strncasecmp(s, "rccl", 4) == 0;
    }
    return *k;
}

static uint32_t gpu_index(uint32_t *of, uint32_t key, tr_vec *v)
{
    if (of[key] == UINT32_MAX) {
        if (!tr_vec_push(v)) return UINT32_MAX;
        of[key] = (uint32_t)(v->len - 1);
    }
    return of[key];
}

static int gpu_pass(gpu_ctx *c, int64_t first, int64_t last)
{
    tr_slices s;
    tr_trace_slices(c->t, &s);
    tr_vec streams, devices;
    tr_vec_init(&streams, sizeof(tr_gpu_stream));
    tr_vec_init(&devices, sizeof(tr_gpu_device));
    int rc = TR_FATAL;
    for (size_t i = 0; i < s.n; i++) {
        int cl = gpu_class(c, &s, i);
        if (cl < 0) continue;
        uint32_t tk = s.track[i], pr = tr_track_get(c->t, tk)->process;
        uint32_t si = gpu_index(c->stream_of, tk, &streams);
        uint32_t di = gpu_index(c->device_of, pr, &devices);
        if (si == UINT32_MAX || di == UINT32_MAX) goto done;
        tr_gpu_stream *st = &TR_VEC_AT(&streams, tr_gpu_stream, si);
        tr_gpu_device *dv = &TR_VEC_AT(&devices, tr_gpu_device, di);
        int64_t d = tr_slice_dur(&s, i) > 0 ? tr_slice_dur(&s, i) : 0, end = s.ts[i] + d;
        if (st->count[0] + st->count[1] + st->count[2] == 0) {
            st->track = tk;
            c->cur_s[si] = s.ts[i];
            c->cur_e[si] = end;
        } else if (s.ts[i] > c->cur_e[si]) {
            st->busy += c->cur_e[si] - c->cur_s[si];
            c->cur_s[si] = s.ts[i];
            c->cur_e[si] = end;
        } else if (end > c->cur_e[si]) {
            c->cur_e[si] = end;
        }
        dv->process = pr;
        st->count[cl]++;
        st->time[cl] += d;
        dv->time[cl] += d;
        if (cl != TR_GPU_KERNEL) continue;
        int comm = gpu_is_comm(c, s.name[i]);
        if (comm) st->comm += d, dv->comm += d;
        kern_iv *k = tr_vec_push(&c->kern);
        if (!k) goto done;
        *k = (kern_iv){.dev = di, .comm = (uint32_t)comm, .s = s.ts[i], .e = end};
    }
    for (size_t i = 0; i < streams.len; i++) {
        tr_gpu_stream *st = &TR_VEC_AT(&streams, tr_gpu_stream, i);
        st->busy += c->cur_e[i] - c->cur_s[i];
        st->idle = (last - first) - st->busy;
    }
    rc = TR_OK;
done:
    c->out->streams = streams.data;
    c->out->n_streams = streams.len;
    c->out->devices = devices.data;
    c->out->n_devices = devices.len;
    return rc;
}

/* Unions and overlap per device. */
static void gpu_overlap(gpu_ctx *c)
{
    kern_iv *v = c->kern.data;
    size_t n = c->kern.len;
    tr_qsort(v, n, sizeof *v, kern_cmp);
    for (size_t i = 0; i < n;) {
        size_t j = i, k;
        while (j < n && v[j].dev == v[i].dev && v[j].comm == 0) j++;
        k = j;
        while (k < n && v[k].dev == v[i].dev) k++;
        size_t nc = kern_merge(v + i, j - i), nm = kern_merge(v + j, k - j);
        tr_gpu_device *dv = &c->out->devices[v[i].dev];
        dv->compute_wall = kern_total(v + i, nc);
        dv->comm_wall = kern_total(v + j, nm);
        dv->overlap = kern_overlap(v + i, nc, v + j, nm);
        i = k;
    }
}

int tr_gpu_stats_compute(const tr_trace *t, tr_gpu_stats *out, tr_error *e)
{
    memset(out, 0, sizeof *out);
    int64_t first, last;
    if (!tr_stat_span(t, &first, &last)) return TR_OK;
    size_t n_str = tr_str_count(t), n_tracks = tr_track_count(t), np = tr_process_count(t);
    gpu_ctx c = {.t = t, .out = out};
    tr_vec_init(&c.kern, sizeof(kern_iv));
    c.cat_class = tr_malloc(n_str);
    c.name_comm = tr_malloc(n_str);
    c.name_class = tr_malloc(n_str);
    c.stream_of = tr_malloc(n_tracks * sizeof *c.stream_of);
    c.device_of = tr_malloc((np ? np : 1) * sizeof *c.device_of);
    c.cur_s = tr_malloc(n_tracks * sizeof *c.cur_s);
    c.cur_e = tr_malloc(n_tracks * sizeof *c.cur_e);
    int rc = TR_FATAL;
    if (c.cat_class && c.name_comm && c.name_class && c.stream_of && c.device_of && c.cur_s &&
        c.cur_e) {
        memset(c.cat_class, -2, n_str);
        memset(c.name_comm, -1, n_str);
        memset(c.name_class, -2, n_str);
        memset(c.stream_of, 0xff, n_tracks * sizeof *c.stream_of);
        memset(c.device_of, 0xff, (np ? np : 1) * sizeof *c.device_of);
        rc = gpu_pass(&c, first, last);
        if (rc == TR_OK) gpu_overlap(&c);
    }
    tr_free(c.cat_class);
    tr_free(c.name_comm);
    tr_free(c.name_class);
    tr_free(c.stream_of);
    tr_free(c.device_of);
    tr_free(c.cur_s);
    tr_free(c.cur_e);
    tr_vec_fini(&c.kern);
    if (rc != TR_OK) {
        tr_gpu_stats_fini(out);
        return tr_error_nomem(e);
    }
    return TR_OK;
}
