/*
** hangs.c: hang checks from events (tr_hangs.h): silent lanes, GT requests
** and round trips left open, collectives counted per rank, each rank's last
** call and each GPU stream's last kernel.
*/
#include "analysis_impl.h"
#include "tr_analysis.h"
#include "tr_hangs.h"
#include "tr_map.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- what a name is ---- */

static const char *const hg_mpi_collectives[] = {
    "MPI_Barrier",
    "MPI_Ibarrier",
    "MPI_Bcast",
    "MPI_Ibcast",
    "MPI_Reduce",
    "MPI_Ireduce",
    "MPI_Allreduce",
    "MPI_Iallreduce",
    "MPI_Gather",
    "MPI_Gatherv",
    "MPI_Allgather",
    "MPI_Allgatherv",
    "MPI_Scatter",
    "MPI_Scatterv",
    "MPI_Alltoall",
    "MPI_Alltoallv",
    "MPI_Alltoallw",
    "MPI_Reduce_scatter",
    "MPI_Reduce_scatter_block",
    "MPI_Scan",
    "MPI_Exscan",
    "MPI_Comm_split",
    "MPI_Comm_dup",
    "MPI_Comm_create",
    "MPI_File_open",
    "MPI_File_close",
    "MPI_File_set_view",
    "MPI_File_set_size",
    "MPI_File_preallocate",
    "MPI_File_sync",
    "MPI_Finalize",
};

/* NCCL kernels are named ncclKernel_<Op>_... or ncclDevKernel_<Op>_...: the op counts. */
static const char *hg_nccl_kernel(const char *name, char *buf, size_t size)
{
    static const char *const prefixes[] = {"ncclKernel_", "ncclDevKernel_"};
    for (size_t i = 0; i < 2; i++) {
        size_t pn = strlen(prefixes[i]);
        if (strncmp(name, prefixes[i], pn) != 0) continue;
        const char *op = name + pn;
        size_t n = strcspn(op, "_(<");
        if (!n) return NULL;
        snprintf(buf, size, "nccl %.*s", (int)n, op);
        return buf;
    }
    return NULL;
}

const char *tr_hangs_collective(const char *name, char *buf, size_t size)
{
    if (strncmp(name, "MPI_", 4) == 0) {
        for (size_t i = 0; i < sizeof hg_mpi_collectives / sizeof *hg_mpi_collectives; i++)
            if (strcmp(name, hg_mpi_collectives[i]) == 0) return name;
        size_t n = strlen(name);
        /* MPI_File_write_at_all, MPI_File_read_all_begin, ... */
        if (strncmp(name, "MPI_File_", 9) == 0 &&
            (strstr(name, "_all") != NULL || (n > 8 && strcmp(name + n - 8, "_ordered") == 0)))
            return name;
        return NULL;
    }
    const char *k = hg_nccl_kernel(name, buf, size);
    if (k) return k;
    if (strcmp(name, "record_param_comms") == 0 || strncmp(name, "nccl:", 5) == 0 ||
        strncmp(name, "c10d::", 6) == 0)
        return name;
    return NULL;
}

const char *tr_rank_state_name(int state)
{
    static const char *const names[] = {"idle", "in a collective", "in I/O", "computing"};
    return state >= 0 && state <= TR_RANK_OTHER ? names[state] : "?";
}

/* ---- lanes ---- */

static int hg_lane_cmp(const void *pa, const void *pb)
{
    const tr_hang_lane *a = pa, *b = pb;
    if (a->before_end != b->before_end) return a->before_end > b->before_end ? -1 : 1;
    return (a->track > b->track) - (a->track < b->track);
}

/* What a track's events say: its last slice and instant (each the last row with the latest end). */
typedef struct hg_track {
    int64_t slice_last, instant_last; /* INT64_MIN: none */
    tr_str slice_name, instant_name;
    int64_t send_ts; /* its open synchronous WORKER_SEND, TR_TIME_NONE when none */
    uint32_t send_args;
    uint32_t stream; /* index into the streams, TR_NONE before its first GPU slice */
} hg_track;

/* Every lane's last record: a slice's end, or an instant at or after it. */
static void hg_lanes(tr_hangs *h, const hg_track *tracks, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const hg_track *tk = &tracks[i];
        int inst = tk->instant_last != INT64_MIN && tk->instant_last >= tk->slice_last;
        int64_t last = inst ? tk->instant_last : tk->slice_last;
        if (last == INT64_MIN) continue;
        h->lanes[k++] = (tr_hang_lane){(uint32_t)i, last, inst ? tk->instant_name : tk->slice_name,
                                       h->end - last};
    }
    h->n_lanes = k;
    if (k > 1) tr_qsort(h->lanes, k, sizeof *h->lanes, hg_lane_cmp);
}

/* ---- GT: requests never answered, round trips never returned ---- */

static int hg_wait_add(tr_vec *v, uint32_t track, int64_t ts, int64_t seq, tr_str what)
{
    for (size_t i = 0; i < v->len; i++) {
        tr_hang_wait *w = &TR_VEC_AT(v, tr_hang_wait, i);
        if (w->track != track) continue;
        w->count++;
        if (ts < w->first_ts) w->first_ts = ts, w->first_seq = seq, w->what = what;
        return TR_OK;
    }
    tr_hang_wait *w = tr_vec_push(v);
    if (!w) return TR_FATAL;
    *w = (tr_hang_wait){track, 1, ts, seq, what};
    return TR_OK;
}

static int64_t hg_arg_int(const tr_trace *t, uint32_t args, const char *key)
{
    tr_arg a;
    return tr_args_find(t, args, key, &a) && a.type == TR_ARG_INT ? a.v.i : -1;
}

static tr_str hg_arg_str(const tr_trace *t, uint32_t args, const char *key)
{
    tr_arg a;
    return tr_args_find(t, args, key, &a) && a.type == TR_ARG_STR ? a.v.s : 0;
}

/* Synchronous worker commands: their WORKER_SEND waits for a WORKER_RECV. */
static int hg_sync_command(const char *cmd)
{
    return strncmp(cmd, "WorkerGet", 9) == 0 || strncmp(cmd, "WorkerCompile", 13) == 0;
}

/* ---- ranks and collectives ---- */

static int hg_rank_cmp(const void *pa, const void *pb)
{
    const tr_hang_rank *a = pa, *b = pb;
    return (a->rank > b->rank) - (a->rank < b->rank);
}

/* The ranks of the trace, sorted; MAP: rank -> index. */
static int hg_ranks(const tr_trace *t, tr_hangs *h, tr_map *map)
{
    tr_vec v;
    tr_vec_init(&v, sizeof(tr_hang_rank));
    for (size_t p = 0; p < tr_process_count(t); p++) {
        int32_t r = tr_process_get(t, (uint32_t)p)->rank;
        if (r < 0) continue;
        int is_new;
        uint32_t *slot = tr_map_slot(map, (uint64_t)(uint32_t)r, &is_new);
        tr_hang_rank *hr = slot && is_new ? tr_vec_push(&v) : NULL;
        if (!slot || (is_new && !hr)) {
            tr_vec_fini(&v);
            return TR_FATAL;
        }
        if (is_new) {
            *hr = (tr_hang_rank){.rank = r, .last_end = INT64_MIN};
            *slot = (uint32_t)(v.len - 1);
        }
    }
    h->ranks = v.data;
    h->n_ranks = v.len;
    if (h->n_ranks > 1) tr_qsort(h->ranks, h->n_ranks, sizeof *h->ranks, hg_rank_cmp);
    for (size_t i = 0; i < h->n_ranks; i++)
        *tr_map_slot(map, (uint64_t)(uint32_t)h->ranks[i].rank, &(int){0}) = (uint32_t)i;
    return TR_OK;
}

static int hg_state(const tr_trace *t, const tr_hangs *h, const tr_hang_rank *r)
{
    int64_t span = h->end - h->start, slack = span / 100;
    if (!r->last_call || (!r->in_flight && h->end - r->last_end > slack)) return TR_RANK_IDLE;
    char buf[96];
    const char *name = tr_str_get(t, r->last_call, NULL);
    if (tr_hangs_collective(name, buf, sizeof buf)) return TR_RANK_COLLECTIVE;
    return tr_io_kind_of(name) >= 0 ? TR_RANK_IO : TR_RANK_OTHER;
}

/* A collective while adding: its counts by process, whose ranks are known only at the end. */
typedef struct hg_coll {
    const char *name;
    uint32_t *counts; /* by process */
    size_t n;         /* of counts */
} hg_coll;

/* The index of collective NAME in V, added with zero counts when new; UINT32_MAX: no memory. */
static uint32_t hg_collective(tr_hangs *h, tr_vec *v, const char *name)
{
    for (size_t i = 0; i < v->len; i++)
        if (strcmp(TR_VEC_AT(v, hg_coll, i).name, name) == 0) return (uint32_t)i;
    hg_coll *c = tr_vec_push(v);
    if (!c) return UINT32_MAX;
    *c = (hg_coll){tr_arena_strndup(&h->names, name, strlen(name)), NULL, 0};
    if (!c->name) {
        v->len--;
        return UINT32_MAX;
    }
    return (uint32_t)(v->len - 1);
}

static int hg_coll_cmp(const void *pa, const void *pb)
{
    const tr_hang_collective *a = pa, *b = pb;
    if ((a->odd > 0) != (b->odd > 0)) return a->odd > 0 ? -1 : 1;
    return strcmp(a->name, b->name);
}

/* The most common count (the larger on a tie) and how many ranks differ from it. */
static void hg_mode(tr_hang_collective *c, size_t n)
{
    uint32_t best = 0, best_n = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t same = 0;
        for (size_t j = 0; j < n; j++) same += c->counts[j] == c->counts[i];
        if (same > best_n || (same == best_n && c->counts[i] > best))
            best = c->counts[i], best_n = same;
    }
    c->mode = best;
    c->odd = (uint32_t)(n - best_n);
}

/* ---- the accumulator ---- */

/*
** A process's calls, for its rank's: each the latest by its time, later
** slices (POS) winning ties, so the processes of a rank merge as if their
** slices had met one rank's state in order.
*/
typedef struct hg_proc {
    tr_str open_call, done_call; /* its last top-level call never returned; the last one ended */
    int64_t open_ts, done_end;   /* INT64_MIN: none */
    uint64_t open_pos, done_pos, coll_pos;
    uint32_t coll; /* its last collective, UINT32_MAX none */
    int64_t coll_ts;
} hg_proc;

struct tr_hangs_acc {
    const tr_trace *t;
    unsigned reads_mark; /* tr_trace_read_failures(t) at the start: collectives are told by args */
    tr_hangs h;          /* collectives' names and streams as they are made */
    int64_t first, last;
    size_t n_tracks; /* of tracks */
    hg_track *tracks;
    size_t n_streams; /* of h.streams */
    size_t n_procs;   /* of procs */
    hg_proc *procs;
    uint64_t pos;  /* slices met */
    tr_vec colls;  /* hg_coll */
    tr_vec req;    /* tr_hang_wait: GT requests never answered */
    size_t n_seen; /* strings looked at for wsend and wrecv */
    tr_str wsend, wrecv;
};

void tr_hangs_acc_free(tr_hangs_acc *a)
{
    if (!a) return;
    for (size_t i = 0; i < a->colls.len; i++) tr_free(TR_VEC_AT(&a->colls, hg_coll, i).counts);
    tr_vec_fini(&a->colls);
    tr_vec_fini(&a->req);
    tr_free(a->tracks);
    tr_free(a->procs);
    tr_hangs_fini(&a->h);
    tr_free(a);
}

int tr_hangs_acc_new(const tr_trace *t, tr_hangs_acc **out, tr_error *e)
{
    tr_hangs_acc *a = tr_calloc(1, sizeof *a);
    *out = NULL;
    if (!a) return tr_error_nomem(e);
    a->t = t;
    a->reads_mark = tr_trace_read_failures(t);
    a->first = INT64_MAX;
    a->last = INT64_MIN;
    tr_arena_init(&a->h.names);
    tr_vec_init(&a->colls, sizeof(hg_coll));
    tr_vec_init(&a->req, sizeof(tr_hang_wait));
    *out = a;
    return TR_OK;
}

/* Tracks and processes as the trace has them now: it grows while a stream hands events out. */
static int hg_grow(tr_hangs_acc *a, uint32_t track, uint32_t process)
{
    size_t nt = a->n_tracks, np = a->n_procs;
    if (tr_an_grow(&a->tracks, &a->n_tracks, (size_t)track + 1, sizeof *a->tracks, 0) != TR_OK ||
        tr_an_grow(&a->procs, &a->n_procs, (size_t)process + 1, sizeof *a->procs, 0) != TR_OK)
        return TR_FATAL;
    for (size_t i = nt; i < a->n_tracks; i++)
        a->tracks[i] = (hg_track){INT64_MIN, INT64_MIN, 0, 0, TR_TIME_NONE, 0, TR_NONE};
    for (size_t i = np; i < a->n_procs; i++)
        a->procs[i] = (hg_proc){.open_ts = INT64_MIN, .done_end = INT64_MIN, .coll = UINT32_MAX};
    return TR_OK;
}

/* A process's last call and its collectives, a slice at a time. */
static int hg_rank_slice(tr_hangs_acc *a, const tr_row_event *x, int64_t end)
{
    const tr_event_rec *ev = &x->rec;
    uint32_t p = tr_track_get(a->t, ev->track)->process;
    hg_proc *pr = &a->procs[p];
    uint64_t pos = ++a->pos;
    /* A call that never returned is where the rank is, whatever ended later. */
    int open = x->depth == 0 && hg_arg_int(a->t, ev->args, "unfinished") == 1;
    if (open)
        pr->open_call = ev->u.s.name, pr->open_ts = ev->ts, pr->open_pos = pos;
    else if (x->depth == 0 && end >= pr->done_end)
        pr->done_call = ev->u.s.name, pr->done_end = end, pr->done_pos = pos;
    char buf[128];
    const char *coll = tr_hangs_collective(tr_str_get(a->t, ev->u.s.name, NULL), buf, sizeof buf);
    if (!coll) return TR_OK;
    uint32_t k = hg_collective(&a->h, &a->colls, coll);
    hg_coll *c = k == UINT32_MAX ? NULL : &TR_VEC_AT(&a->colls, hg_coll, k);
    if (!c || tr_an_grow(&c->counts, &c->n, (size_t)p + 1, sizeof *c->counts, 0) != TR_OK)
        return TR_FATAL;
    c->counts[p]++;
    if (pr->coll == UINT32_MAX || ev->ts >= pr->coll_ts)
        pr->coll = k, pr->coll_ts = ev->ts, pr->coll_pos = pos;
    return TR_OK;
}

/* Process P's calls into rank HR's: the latest of each, the later slice on a tie. */
static void hg_rank_merge(const tr_hangs_acc *a, tr_hang_rank *hr, uint64_t *pos, const hg_proc *p)
{
    /* pos[0]: the rank's open call, pos[1]: its ended one, pos[2]: its collective */
    if (p->open_ts != INT64_MIN && p->open_pos > pos[0]) {
        hr->last_call = p->open_call, hr->last_end = p->open_ts, hr->in_flight = 1;
        pos[0] = p->open_pos;
    }
    if (!pos[0] && p->done_end != INT64_MIN &&
        (p->done_end > hr->last_end || (p->done_end == hr->last_end && p->done_pos > pos[1]))) {
        hr->last_call = p->done_call, hr->last_end = p->done_end;
        pos[1] = p->done_pos;
    }
    if (p->coll != UINT32_MAX && (!hr->last_collective || p->coll_ts > hr->last_collective_ts ||
                                  (p->coll_ts == hr->last_collective_ts && p->coll_pos > pos[2]))) {
        hr->last_collective = TR_VEC_AT(&a->colls, hg_coll, p->coll).name;
        hr->last_collective_ts = p->coll_ts;
        pos[2] = p->coll_pos;
    }
}

static int hg_slice(tr_hangs_acc *a, const tr_row_event *x)
{
    const tr_event_rec *ev = &x->rec;
    hg_track *tk = &a->tracks[ev->track];
    const tr_track *track = tr_track_get(a->t, ev->track);
    int64_t end = tr_time_add(ev->ts, ev->dur > 0 ? ev->dur : 0);
    if (end >= tk->slice_last) tk->slice_last = end, tk->slice_name = ev->u.s.name;
    if (track->kind == TR_TRACK_CLIENT && hg_arg_int(a->t, ev->args, "unfinished") == 1 &&
        hg_wait_add(&a->req, ev->track, ev->ts, hg_arg_int(a->t, ev->args, "seq"), ev->u.s.name) !=
            TR_OK)
        return TR_FATAL;
    if (track->kind == TR_TRACK_GPU) {
        tr_hangs *h = &a->h;
        if (tk->stream == TR_NONE) {
            if (tr_an_grow(&h->streams, &a->n_streams, h->n_streams + 1, sizeof *h->streams, 0) !=
                TR_OK)
                return TR_FATAL;
            tk->stream = (uint32_t)h->n_streams++;
            h->streams[tk->stream] = (tr_hang_stream){ev->track, 0, INT64_MIN};
        }
        tr_hang_stream *st = &h->streams[tk->stream];
        if (end >= st->end) st->end = end, st->kernel = ev->u.s.name;
    }
    return hg_rank_slice(a, x, end);
}

static void hg_instant(tr_hangs_acc *a, const tr_event_rec *ev)
{
    hg_track *tk = &a->tracks[ev->track];
    /* Instants come in time order: each is at or after the one before. */
    tk->instant_last = ev->ts;
    tk->instant_name = ev->u.s.name;
    if (tr_track_get(a->t, ev->track)->kind != TR_TRACK_WORKER) return;
    /* The names as the strings come: the trace's grow while a stream hands events out. */
    for (; a->n_seen < tr_str_count(a->t) && (!a->wsend || !a->wrecv); a->n_seen++) {
        const char *s = tr_str_get(a->t, (tr_str)a->n_seen, NULL);
        if (strcmp(s, "WORKER_SEND") == 0) a->wsend = (tr_str)a->n_seen;
        if (strcmp(s, "WORKER_RECV") == 0) a->wrecv = (tr_str)a->n_seen;
    }
    if (!a->wsend) return;
    if (ev->u.s.name == a->wrecv) tk->send_ts = TR_TIME_NONE;
    if (ev->u.s.name != a->wsend) return;
    tr_str cmd = hg_arg_str(a->t, ev->args, "command");
    if (hg_sync_command(tr_str_get(a->t, cmd, NULL)))
        tk->send_ts = ev->ts, tk->send_args = ev->args;
}

int tr_hangs_acc_add(tr_hangs_acc *a, const tr_row_event *x, tr_error *e)
{
    const tr_event_rec *ev = &x->rec;
    tr_stat_span_add(&a->first, &a->last, ev);
    if (ev->track >= tr_track_count(a->t)) return TR_OK;
    if (hg_grow(a, ev->track, tr_track_get(a->t, ev->track)->process) != TR_OK)
        return tr_error_nomem(e);
    if (ev->kind == TR_EV_SLICE && hg_slice(a, x) != TR_OK) return tr_error_nomem(e);
    if (ev->kind == TR_EV_INSTANT) hg_instant(a, ev);
    return TR_OK;
}

/*
** The ranks known now, each from its processes' calls, and the collectives
** counted by rank: those a process with a rank made.
*/
static int hg_ranks_end(tr_hangs_acc *a)
{
    tr_hangs *h = &a->h;
    tr_map map;
    if (tr_map_init(&map, 16) != TR_OK) return TR_FATAL;
    int rc = hg_ranks(a->t, h, &map);
    size_t np = a->n_procs < tr_process_count(a->t) ? a->n_procs : tr_process_count(a->t);
    uint32_t *rank_of = rc == TR_OK ? tr_malloc((np ? np : 1) * sizeof *rank_of) : NULL;
    uint64_t *pos = rank_of ? tr_calloc(h->n_ranks ? h->n_ranks * 3 : 1, sizeof *pos) : NULL;
    tr_vec v;
    tr_vec_init(&v, sizeof(tr_hang_collective));
    if (!pos) rc = TR_FATAL;
    for (size_t p = 0; rc == TR_OK && p < np; p++) {
        int32_t r = tr_process_get(a->t, (uint32_t)p)->rank;
        rank_of[p] = r >= 0 ? tr_map_find(&map, (uint64_t)(uint32_t)r) : UINT32_MAX;
        if (rank_of[p] != UINT32_MAX)
            hg_rank_merge(a, &h->ranks[rank_of[p]], pos + 3 * rank_of[p], &a->procs[p]);
    }
    for (size_t i = 0; rc == TR_OK && i < a->colls.len; i++) {
        const hg_coll *c = &TR_VEC_AT(&a->colls, hg_coll, i);
        uint32_t *counts = tr_calloc(h->n_ranks ? h->n_ranks : 1, sizeof *counts);
        int any = 0;
        for (size_t p = 0; counts && p < np && p < c->n; p++)
            if (rank_of[p] != UINT32_MAX && c->counts[p])
                counts[rank_of[p]] += c->counts[p], any = 1;
        tr_hang_collective *hc = counts && any ? tr_vec_push(&v) : NULL;
        if (hc)
            *hc = (tr_hang_collective){.name = c->name, .counts = counts};
        else
            tr_free(counts);
        if (!counts || (any && !hc)) rc = TR_FATAL;
    }
    h->collectives = v.data;
    h->n_collectives = v.len;
    tr_free(rank_of);
    tr_free(pos);
    tr_map_fini(&map);
    return rc;
}

/* The round trips still open on each worker, in track order. */
static int hg_round_trips(tr_hangs_acc *a, tr_vec *out)
{
    for (size_t k = 0; k < a->n_tracks; k++) {
        const hg_track *tk = &a->tracks[k];
        if (tk->send_ts == TR_TIME_NONE) continue;
        if (hg_wait_add(out, (uint32_t)k, tk->send_ts, hg_arg_int(a->t, tk->send_args, "seq"),
                        hg_arg_str(a->t, tk->send_args, "command")) != TR_OK)
            return TR_FATAL;
    }
    return TR_OK;
}

int tr_hangs_acc_end(tr_hangs_acc *a, tr_hangs *out, tr_error *e)
{
    memset(out, 0, sizeof *out);
    tr_arena_init(&out->names);
    if (a->first > a->last) return TR_OK;
    tr_hangs *h = &a->h;
    h->start = a->first;
    h->end = a->last;
    if (hg_ranks_end(a) != TR_OK ||
        !(h->lanes = tr_calloc(a->n_tracks ? a->n_tracks : 1, sizeof *h->lanes))) {
        tr_hangs_fini(h);
        tr_arena_init(&h->names);
        return tr_error_nomem(e);
    }
    hg_lanes(h, a->tracks, a->n_tracks);
    h->requests = a->req.data, h->n_requests = a->req.len;
    tr_vec_init(&a->req, sizeof(tr_hang_wait));
    tr_vec rt;
    tr_vec_init(&rt, sizeof(tr_hang_wait));
    int rc = hg_round_trips(a, &rt);
    h->round_trips = rt.data, h->n_round_trips = rt.len;
    for (size_t i = 0; rc == TR_OK && i < h->n_collectives; i++)
        hg_mode(&h->collectives[i], h->n_ranks);
    if (h->n_collectives > 1)
        tr_qsort(h->collectives, h->n_collectives, sizeof *h->collectives, hg_coll_cmp);
    for (size_t i = 0; rc == TR_OK && i < h->n_ranks; i++)
        h->ranks[i].state = hg_state(a->t, h, &h->ranks[i]);
    if (rc == TR_OK) rc = tr_trace_reads_ok(a->t, a->reads_mark, NULL);
    tr_arena_fini(&out->names);
    *out = *h;
    memset(h, 0, sizeof *h);
    tr_arena_init(&h->names);
    if (rc != TR_OK) {
        tr_hangs_fini(out);
        return tr_error_nomem(e);
    }
    return TR_OK;
}

static int feed_hangs(void *user, const tr_row_event *x, tr_error *e)
{
    return tr_hangs_acc_add(user, x, e);
}

int tr_hangs_compute(const tr_trace *t, tr_hangs *out, tr_error *e)
{
    memset(out, 0, sizeof *out);
    tr_arena_init(&out->names);
    tr_hangs_acc *a;
    int rc = tr_hangs_acc_new(t, &a, e);
    if (rc == TR_OK) rc = tr_stat_feed_model(t, feed_hangs, a, e);
    if (rc == TR_OK) rc = tr_hangs_acc_end(a, out, e);
    tr_hangs_acc_free(a);
    return rc;
}

void tr_hangs_fini(tr_hangs *h)
{
    for (size_t i = 0; i < h->n_collectives; i++) tr_free(h->collectives[i].counts);
    tr_free(h->collectives);
    tr_free(h->lanes);
    tr_free(h->requests);
    tr_free(h->round_trips);
    tr_free(h->ranks);
    tr_free(h->streams);
    tr_arena_fini(&h->names);
    memset(h, 0, sizeof *h);
}
