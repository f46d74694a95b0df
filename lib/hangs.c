/*
** hangs.c: hang checks from events (tr_hangs.h): silent lanes, GT requests
** and round trips left open, collectives counted per rank, each rank's last
** call and each GPU stream's last kernel.
*/
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

static int hg_lanes(const tr_trace *t, tr_hangs *h)
{
    size_t n = tr_track_count(t);
    h->lanes = tr_calloc(n ? n : 1, sizeof *h->lanes);
    if (!h->lanes) return TR_FATAL;
    for (size_t i = 0; i < n; i++) h->lanes[i] = (tr_hang_lane){(uint32_t)i, INT64_MIN, 0, 0};
    tr_slices s;
    tr_instants in;
    tr_trace_slices(t, &s);
    tr_trace_instants(t, &in);
    for (size_t i = 0; i < s.n; i++) {
        tr_hang_lane *l = &h->lanes[s.track[i]];
        int64_t end = tr_time_add(s.ts[i], tr_slice_dur(&s, i) > 0 ? tr_slice_dur(&s, i) : 0);
        if (end >= l->last) l->last = end, l->name = s.name[i];
    }
    for (size_t i = 0; i < in.n; i++) {
        tr_hang_lane *l = &h->lanes[in.track[i]];
        if (in.ts[i] >= l->last) l->last = in.ts[i], l->name = in.name[i];
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (h->lanes[i].last == INT64_MIN) continue;
        h->lanes[i].before_end = h->end - h->lanes[i].last;
        h->lanes[k++] = h->lanes[i];
    }
    h->n_lanes = k;
    if (k > 1) tr_qsort(h->lanes, k, sizeof *h->lanes, hg_lane_cmp);
    return TR_OK;
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

static int hg_requests(const tr_trace *t, tr_vec *out)
{
    tr_slices s;
    tr_trace_slices(t, &s);
    for (size_t i = 0; i < s.n; i++) {
        if (tr_track_get(t, s.track[i])->kind != TR_TRACK_CLIENT) continue;
        if (hg_arg_int(t, s.args[i], "unfinished") != 1) continue;
        if (hg_wait_add(out, s.track[i], s.ts[i], hg_arg_int(t, s.args[i], "seq"), s.name[i]) !=
            TR_OK)
            return TR_FATAL;
    }
    return TR_OK;
}

/* Synchronous worker commands: their WORKER_SEND waits for a WORKER_RECV. */
static int hg_sync_command(const char *cmd)
{
    return strncmp(cmd, "WorkerGet", 9) == 0 || strncmp(cmd, "WorkerCompile", 13) == 0;
}

static int hg_round_trips(const tr_trace *t, tr_vec *out)
{
    size_t n = tr_track_count(t);
    uint32_t *open = tr_malloc((n ? n : 1) * sizeof *open); /* per worker: its open send */
    if (!open) return TR_FATAL;
    for (size_t i = 0; i < n; i++) open[i] = TR_NONE;
    tr_instants in;
    tr_trace_instants(t, &in);
    tr_str wsend = 0, wrecv = 0;
    for (size_t i = 0; i < tr_str_count(t) && (!wsend || !wrecv); i++) {
        const char *s = tr_str_get(t, (tr_str)i, NULL);
        if (strcmp(s, "WORKER_SEND") == 0) wsend = (tr_str)i;
        if (strcmp(s, "WORKER_RECV") == 0) wrecv = (tr_str)i;
    }
    for (size_t i = 0; wsend && i < in.n; i++) {
        if (tr_track_get(t, in.track[i])->kind != TR_TRACK_WORKER) continue;
        if (in.name[i] == wrecv) open[in.track[i]] = TR_NONE;
        if (in.name[i] != wsend) continue;
        tr_str cmd = hg_arg_str(t, in.args[i], "command");
        if (hg_sync_command(tr_str_get(t, cmd, NULL))) open[in.track[i]] = (uint32_t)i;
    }
    int rc = TR_OK;
    for (size_t k = 0; k < n && rc == TR_OK; k++) {
        uint32_t i = open[k];
        if (i == TR_NONE) continue;
        rc = hg_wait_add(out, (uint32_t)k, in.ts[i], hg_arg_int(t, in.args[i], "seq"),
                         hg_arg_str(t, in.args[i], "command"));
    }
    tr_free(open);
    return rc;
}

/* ---- ranks and collectives ---- */

/* The rank of a process: the source's rank, else -1 (no rank analysis). */
static int32_t hg_rank_of(const tr_trace *t, uint32_t track)
{
    const tr_process *p = tr_process_get(t, tr_track_get(t, track)->process);
    return p ? p->rank : -1;
}

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

/* The collective slot of NAME in V, added with zero counts when new. */
static tr_hang_collective *hg_collective(tr_hangs *h, tr_vec *v, const char *name)
{
    for (size_t i = 0; i < v->len; i++)
        if (strcmp(TR_VEC_AT(v, tr_hang_collective, i).name, name) == 0)
            return &TR_VEC_AT(v, tr_hang_collective, i);
    size_t n_ranks = h->n_ranks;
    tr_hang_collective *c = tr_vec_push(v);
    if (!c) return NULL;
    c->name = tr_arena_strndup(&h->names, name, strlen(name));
    c->counts = tr_calloc(n_ranks ? n_ranks : 1, sizeof *c->counts);
    if (!c->counts || !c->name) {
        v->len--;
        return NULL;
    }
    return c;
}

/* Counts collectives and finds every rank's last call; NAMES maps a slice name to its collective.
 */
static int hg_walk_ranks(const tr_trace *t, tr_hangs *h, const tr_map *ranks, tr_vec *colls)
{
    tr_slices s;
    tr_trace_slices(t, &s);
    char buf[128];
    for (size_t i = 0; i < s.n; i++) {
        int32_t r = hg_rank_of(t, s.track[i]);
        uint32_t k = r >= 0 ? tr_map_find(ranks, (uint64_t)(uint32_t)r) : UINT32_MAX;
        if (k == UINT32_MAX) continue;
        tr_hang_rank *hr = &h->ranks[k];
        int64_t end = tr_time_add(s.ts[i], tr_slice_dur(&s, i) > 0 ? tr_slice_dur(&s, i) : 0);
        /* A call that never returned is where the rank is, whatever ended later. */
        int open = s.depth[i] == 0 && hg_arg_int(t, s.args[i], "unfinished") == 1;
        if (s.depth[i] == 0 && (open || (!hr->in_flight && end >= hr->last_end))) {
            hr->last_end = open ? s.ts[i] : end;
            hr->last_call = s.name[i];
            hr->in_flight = open;
        }
        const char *coll = tr_hangs_collective(tr_str_get(t, s.name[i], NULL), buf, sizeof buf);
        if (!coll) continue;
        tr_hang_collective *c = hg_collective(h, colls, coll);
        if (!c) return TR_FATAL;
        c->counts[k]++;
        if (!hr->last_collective || s.ts[i] >= hr->last_collective_ts)
            hr->last_collective = c->name, hr->last_collective_ts = s.ts[i];
    }
    return TR_OK;
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

static int hg_collectives(const tr_trace *t, tr_hangs *h)
{
    tr_map ranks = {0};
    tr_vec colls;
    tr_vec_init(&colls, sizeof(tr_hang_collective));
    int rc = hg_ranks(t, h, &ranks);
    if (rc == TR_OK) rc = hg_walk_ranks(t, h, &ranks, &colls);
    tr_map_fini(&ranks);
    h->collectives = colls.data;
    h->n_collectives = colls.len;
    for (size_t i = 0; rc == TR_OK && i < h->n_collectives; i++)
        hg_mode(&h->collectives[i], h->n_ranks);
    if (h->n_collectives > 1)
        tr_qsort(h->collectives, h->n_collectives, sizeof *h->collectives, hg_coll_cmp);
    for (size_t i = 0; rc == TR_OK && i < h->n_ranks; i++)
        h->ranks[i].state = hg_state(t, h, &h->ranks[i]);
    return rc;
}

/* ---- GPU streams ---- */

static int hg_streams(const tr_trace *t, tr_hangs *h)
{
    size_t n = tr_track_count(t);
    h->streams = tr_calloc(n ? n : 1, sizeof *h->streams);
    if (!h->streams) return TR_FATAL;
    uint32_t *at = tr_malloc((n ? n : 1) * sizeof *at);
    if (!at) return TR_FATAL;
    for (size_t i = 0; i < n; i++) at[i] = TR_NONE;
    tr_slices s;
    tr_trace_slices(t, &s);
    for (size_t i = 0; i < s.n; i++) {
        if (tr_track_get(t, s.track[i])->kind != TR_TRACK_GPU) continue;
        uint32_t k = at[s.track[i]];
        if (k == TR_NONE) {
            k = at[s.track[i]] = (uint32_t)h->n_streams++;
            h->streams[k] = (tr_hang_stream){s.track[i], 0, INT64_MIN};
        }
        int64_t end = tr_time_add(s.ts[i], tr_slice_dur(&s, i) > 0 ? tr_slice_dur(&s, i) : 0);
        if (end >= h->streams[k].end) h->streams[k].end = end, h->streams[k].kernel = s.name[i];
    }
    tr_free(at);
    return TR_OK;
}

int tr_hangs_compute(const tr_trace *t, tr_hangs *out, tr_error *e)
{
    memset(out, 0, sizeof *out);
    tr_arena_init(&out->names);
    if (!tr_stat_span(t, &out->start, &out->end)) return TR_OK;
    tr_vec req, rt;
    tr_vec_init(&req, sizeof(tr_hang_wait));
    tr_vec_init(&rt, sizeof(tr_hang_wait));
    int rc = hg_lanes(t, out);
    if (rc == TR_OK) rc = hg_requests(t, &req);
    if (rc == TR_OK) rc = hg_round_trips(t, &rt);
    out->requests = req.data, out->n_requests = req.len;
    out->round_trips = rt.data, out->n_round_trips = rt.len;
    if (rc == TR_OK) rc = hg_collectives(t, out);
    if (rc == TR_OK) rc = hg_streams(t, out);
    if (rc != TR_OK) {
        tr_hangs_fini(out);
        return tr_error_nomem(e);
    }
    return TR_OK;
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
