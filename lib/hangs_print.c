/* hangs_print.c: the event hang checks (tr_hangs.h) as text and JSON. */
#include "tr_hangs.h"
#include "tr_text.h"

#include <string.h>

/* "rank 3", or the process and track names of a lane. */
static int hp_lane(const tr_trace *t, uint32_t track, tr_buf *b)
{
    const tr_track *tk = tr_track_get(t, track);
    const tr_process *p = tr_process_get(t, tk->process);
    const char *pn = p ? tr_str_get(t, p->name, NULL) : "";
    const char *tn = tr_str_get(t, tk->name, NULL);
    if (*pn && strcmp(pn, tn) != 0) return tr_buf_addf(b, "%s / %s", pn, tn);
    return tr_buf_adds(b, tn);
}

/* Seconds with microseconds: "12.345678 s". */
static int hp_time(tr_buf *b, int64_t ns)
{
    int rc = tr_buf_add_fixed(b, ns / 1000, 6, 6);
    return rc == TR_OK ? tr_buf_adds(b, " s") : rc;
}

static int hp_waits(const tr_trace *t, const tr_hang_wait *w, size_t n, const char *title,
                    const char *unit, tr_buf *b)
{
    int rc = n ? tr_buf_addf(b, "%s:\n", title) : TR_OK;
    for (size_t i = 0; i < n && rc == TR_OK; i++) {
        rc = tr_buf_addf(b, "    %u %s%s  ", w[i].count, unit, w[i].count == 1 ? "" : "s");
        if (rc == TR_OK) rc = hp_lane(t, w[i].track, b);
        if (rc == TR_OK) rc = tr_buf_addf(b, "; the oldest: %s", tr_str_get(t, w[i].what, NULL));
        if (rc == TR_OK && w[i].first_seq >= 0)
            rc = tr_buf_addf(b, " #%lld", (long long)w[i].first_seq);
        if (rc == TR_OK) rc = tr_buf_adds(b, " at ");
        if (rc == TR_OK) rc = hp_time(b, w[i].first_ts);
        if (rc == TR_OK) rc = tr_buf_adds(b, "\n");
    }
    return rc;
}

static int hp_lanes(const tr_trace *t, const tr_hangs *h, size_t limit, tr_buf *b)
{
    size_t n = limit && h->n_lanes > limit ? limit : h->n_lanes;
    int rc = n ? tr_buf_adds(b, "last record of each lane (silent longest first):\n") : TR_OK;
    for (size_t i = 0; i < n && rc == TR_OK; i++) {
        const tr_hang_lane *l = &h->lanes[i];
        rc = tr_buf_adds(b, "    ");
        if (rc == TR_OK) rc = hp_time(b, l->before_end);
        if (rc == TR_OK) rc = tr_buf_adds(b, " before the end  ");
        if (rc == TR_OK) rc = hp_lane(t, l->track, b);
        if (rc == TR_OK) rc = tr_buf_addf(b, ": %s\n", tr_str_get(t, l->name, NULL));
    }
    if (rc == TR_OK && n < h->n_lanes)
        rc = tr_buf_addf(b, "    ... %zu lanes more\n", h->n_lanes - n);
    return rc;
}

/* Ranks of collective C whose count is not the mode: "rank 2 3 (its last: MPI_Barrier)". */
static int hp_collective(const tr_hangs *h, const tr_hang_collective *c, tr_buf *b)
{
    int rc = tr_buf_addf(b, "    %s: %u on most ranks", c->name, c->mode);
    for (size_t k = 0; k < h->n_ranks && rc == TR_OK; k++) {
        const tr_hang_rank *r = &h->ranks[k];
        if (c->counts[k] == c->mode) continue;
        rc = tr_buf_addf(b, "; rank %d %u", (int)r->rank, c->counts[k]);
        if (rc == TR_OK)
            rc = r->last_collective ? tr_buf_addf(b, " (its last: %s)", r->last_collective)
                                    : tr_buf_adds(b, " (no collective at all)");
    }
    return rc == TR_OK ? tr_buf_adds(b, "\n") : rc;
}

/* The ranks inside a call that never returned, grouped by the call: "MPI_Barrier: ranks 0 2 3". */
static int hp_in_flight(const tr_trace *t, const tr_hangs *h, tr_buf *b)
{
    int rc = TR_OK, any = 0;
    for (size_t i = 0; i < h->n_ranks && rc == TR_OK; i++) {
        const tr_hang_rank *r = &h->ranks[i];
        int first = 1;
        for (size_t k = 0; k < i && first; k++)
            first = !(h->ranks[k].in_flight && h->ranks[k].last_call == r->last_call);
        if (!r->in_flight || !first) continue;
        if (!any++) rc = tr_buf_adds(b, "ranks inside a call that never returned:\n");
        if (rc == TR_OK) rc = tr_buf_addf(b, "    %s:", tr_str_get(t, r->last_call, NULL));
        for (size_t k = i; k < h->n_ranks && rc == TR_OK; k++)
            if (h->ranks[k].in_flight && h->ranks[k].last_call == r->last_call)
                rc = tr_buf_addf(b, " %s%d", k == i ? "rank " : "", (int)h->ranks[k].rank);
        if (rc == TR_OK) rc = tr_buf_adds(b, "\n");
    }
    if (rc == TR_OK && any) {
        int first = 1;
        for (size_t i = 0; i < h->n_ranks && rc == TR_OK; i++) {
            if (h->ranks[i].in_flight) continue;
            rc = tr_buf_addf(b, "%s%d", first ? "    not in one: rank " : " ",
                             (int)h->ranks[i].rank);
            first = 0;
        }
        if (rc == TR_OK && !first) rc = tr_buf_adds(b, "\n");
    }
    return rc;
}

static int hp_ranks(const tr_trace *t, const tr_hangs *h, size_t limit, int all, tr_buf *b)
{
    int rc = hp_in_flight(t, h, b), any = 0;
    for (size_t i = 0; i < h->n_collectives && rc == TR_OK; i++) {
        if (!h->collectives[i].odd) continue;
        if (!any++) rc = tr_buf_adds(b, "collectives whose count differs between ranks:\n");
        if (rc == TR_OK) rc = hp_collective(h, &h->collectives[i], b);
    }
    if (!all) return rc;
    if (rc == TR_OK && h->n_collectives && !any)
        rc = tr_buf_addf(
            b, "collectives: every rank made the same %zu kinds the same number of times\n",
            h->n_collectives);
    size_t n = limit && h->n_ranks > limit ? limit : h->n_ranks;
    if (rc == TR_OK && n) rc = tr_buf_adds(b, "each rank at the end of the trace:\n");
    for (size_t i = 0; i < n && rc == TR_OK; i++) {
        const tr_hang_rank *r = &h->ranks[i];
        rc = tr_buf_addf(b, "    rank %d %s", (int)r->rank, tr_rank_state_name(r->state));
        if (rc == TR_OK && r->last_call) {
            rc = tr_buf_addf(b, "; last call %s %s ", tr_str_get(t, r->last_call, NULL),
                             r->in_flight ? "entered" : "ended");
            if (rc == TR_OK) rc = hp_time(b, h->end - r->last_end);
            if (rc == TR_OK)
                rc = tr_buf_adds(b, r->in_flight ? " before the end, never returned"
                                                 : " before the end");
        }
        if (rc == TR_OK && r->last_collective)
            rc = tr_buf_addf(b, "; last collective %s", r->last_collective);
        if (rc == TR_OK) rc = tr_buf_adds(b, "\n");
    }
    if (rc == TR_OK && n < h->n_ranks)
        rc = tr_buf_addf(b, "    ... %zu ranks more\n", h->n_ranks - n);
    return rc;
}

static int hp_streams(const tr_trace *t, const tr_hangs *h, tr_buf *b)
{
    int rc = h->n_streams ? tr_buf_adds(b, "last kernel of each GPU stream:\n") : TR_OK;
    for (size_t i = 0; i < h->n_streams && rc == TR_OK; i++) {
        rc = tr_buf_adds(b, "    ");
        if (rc == TR_OK) rc = hp_lane(t, h->streams[i].track, b);
        if (rc == TR_OK)
            rc = tr_buf_addf(b, ": %s, ended ", tr_str_get(t, h->streams[i].kernel, NULL));
        if (rc == TR_OK) rc = hp_time(b, h->end - h->streams[i].end);
        if (rc == TR_OK) rc = tr_buf_adds(b, " before the end\n");
    }
    return rc;
}

int tr_hangs_found(const tr_hangs *h)
{
    int odd = 0;
    for (size_t i = 0; i < h->n_collectives; i++) odd |= h->collectives[i].odd > 0;
    for (size_t i = 0; i < h->n_ranks; i++) odd |= h->ranks[i].in_flight;
    return h->n_requests || h->n_round_trips || odd;
}

int tr_hangs_text(const tr_trace *t, const tr_hangs *h, size_t limit, int all, tr_buf *b)
{
    int rc =
        hp_waits(t, h->requests, h->n_requests, "client requests never answered", "request", b);
    if (rc == TR_OK)
        rc = hp_waits(t, h->round_trips, h->n_round_trips, "worker round trips never returned",
                      "round trip", b);
    if (rc == TR_OK) rc = hp_ranks(t, h, limit, all, b);
    if (rc == TR_OK && all) rc = hp_streams(t, h, b);
    if (rc == TR_OK && all) rc = hp_lanes(t, h, limit, b);
    return rc;
}

/* ---- JSON ---- */

static int hp_json_waits(const tr_trace *t, const char *key, const tr_hang_wait *w, size_t n,
                         tr_buf *b)
{
    int rc = tr_buf_addf(b, "\"%s\":[", key);
    for (size_t i = 0; i < n && rc == TR_OK; i++) {
        rc = tr_buf_addf(b, "%s{\"track\":%u,\"lane\":", i ? "," : "", w[i].track);
        tr_buf lane;
        tr_buf_init(&lane, 0);
        if (rc == TR_OK) rc = hp_lane(t, w[i].track, &lane);
        if (rc == TR_OK) rc = tr_buf_add_json_str(b, lane.p, lane.len);
        tr_buf_fini(&lane);
        if (rc == TR_OK)
            rc = tr_buf_addf(b, ",\"count\":%u,\"first_ts_ns\":%lld,\"first_seq\":%lld,\"what\":",
                             w[i].count, (long long)w[i].first_ts, (long long)w[i].first_seq);
        if (rc == TR_OK) rc = tr_buf_add_json_id(b, t, w[i].what);
        if (rc == TR_OK) rc = tr_buf_adds(b, "}");
    }
    return rc == TR_OK ? tr_buf_adds(b, "]") : rc;
}

static int hp_json_ranks(const tr_trace *t, const tr_hangs *h, tr_buf *b)
{
    int rc = tr_buf_adds(b, ",\"ranks\":[");
    for (size_t i = 0; i < h->n_ranks && rc == TR_OK; i++) {
        const tr_hang_rank *r = &h->ranks[i];
        rc = tr_buf_addf(b, "%s{\"rank\":%d,\"state\":\"%s\",\"last_call\":", i ? "," : "",
                         (int)r->rank, tr_rank_state_name(r->state));
        if (rc == TR_OK) rc = tr_buf_add_json_id(b, t, r->last_call);
        if (rc == TR_OK)
            rc = tr_buf_addf(b, ",\"last_end_ns\":%lld,\"returned\":%s,\"last_collective\":",
                             (long long)(r->last_call ? r->last_end : 0),
                             r->in_flight ? "false" : "true");
        if (rc == TR_OK)
            rc = r->last_collective
                     ? tr_buf_add_json_str(b, r->last_collective, strlen(r->last_collective))
                     : tr_buf_adds(b, "null");
        if (rc == TR_OK) rc = tr_buf_adds(b, "}");
    }
    if (rc == TR_OK) rc = tr_buf_adds(b, "],\"collectives\":[");
    for (size_t i = 0; i < h->n_collectives && rc == TR_OK; i++) {
        const tr_hang_collective *c = &h->collectives[i];
        rc = tr_buf_addf(b, "%s{\"name\":", i ? "," : "");
        if (rc == TR_OK) rc = tr_buf_add_json_str(b, c->name, strlen(c->name));
        if (rc == TR_OK) rc = tr_buf_addf(b, ",\"mode\":%u,\"odd_ranks\":[", c->mode);
        for (size_t k = 0, first = 1; k < h->n_ranks && rc == TR_OK; k++) {
            if (c->counts[k] == c->mode) continue;
            rc = tr_buf_addf(b, "%s{\"rank\":%d,\"count\":%u}", first ? "" : ",",
                             (int)h->ranks[k].rank, c->counts[k]);
            first = 0;
        }
        if (rc == TR_OK) rc = tr_buf_adds(b, "]}");
    }
    return rc == TR_OK ? tr_buf_adds(b, "]") : rc;
}

int tr_hangs_json(const tr_trace *t, const tr_hangs *h, tr_buf *b)
{
    int rc = tr_buf_addf(b, "{\"end_ns\":%lld,", (long long)h->end);
    if (rc == TR_OK) rc = hp_json_waits(t, "requests_unanswered", h->requests, h->n_requests, b);
    if (rc == TR_OK) rc = tr_buf_adds(b, ",");
    if (rc == TR_OK)
        rc = hp_json_waits(t, "round_trips_unreturned", h->round_trips, h->n_round_trips, b);
    if (rc == TR_OK) rc = hp_json_ranks(t, h, b);
    if (rc == TR_OK) rc = tr_buf_adds(b, ",\"streams\":[");
    for (size_t i = 0; i < h->n_streams && rc == TR_OK; i++) {
        rc = tr_buf_addf(b, "%s{\"track\":%u,\"kernel\":", i ? "," : "", h->streams[i].track);
        if (rc == TR_OK) rc = tr_buf_add_json_id(b, t, h->streams[i].kernel);
        if (rc == TR_OK) rc = tr_buf_addf(b, ",\"end_ns\":%lld}", (long long)h->streams[i].end);
    }
    if (rc == TR_OK) rc = tr_buf_adds(b, "],\"lanes\":[");
    for (size_t i = 0; i < h->n_lanes && rc == TR_OK; i++) {
        const tr_hang_lane *l = &h->lanes[i];
        rc = tr_buf_addf(b, "%s{\"track\":%u,\"last_ns\":%lld,\"before_end_ns\":%lld,\"name\":",
                         i ? "," : "", l->track, (long long)l->last, (long long)l->before_end);
        if (rc == TR_OK) rc = tr_buf_add_json_id(b, t, l->name);
        if (rc == TR_OK) rc = tr_buf_adds(b, "}");
    }
    return rc == TR_OK ? tr_buf_adds(b, "]}") : rc;
}
