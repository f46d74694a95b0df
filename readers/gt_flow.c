/*
** gt_flow.c: the GT reader's flows (gt_impl.h lists the reader's files).
*/
#include "gt_impl.h"

/* ---- flows: request -> worker -> reply ----
**
** The dispatcher serves one client command at a time: what it sends to
** workers between a client's RECV and its SEND is for that command (a
** message that arrives during a worker wait is logged RECV..SEND inside it,
** so the latest open request is the one served).  Each worker round trip
** gets three flows, all with the request's seq as id: RECV -> WORKER_SEND
** -> WORKER_RECV -> the request's SEND.  A batch's two lines are written
** together after its round trip, reply first: its flows follow the log,
** RECV -> WORKER_RECV -> WORKER_SEND -> SEND, so none points back in time.
*/

static void gt_flow(gt_rd *g, uint32_t from, uint32_t to, const gt_open *req)
{
    tr_flow f = {TR_REF(TR_EV_INSTANT, from), TR_REF(TR_EV_INSTANT, to), req->name,
                 g->c[C_CAT_FLOW], req->seq >= 0 ? (uint64_t)req->seq : 0};
    if (from != TR_NONE && to != TR_NONE) tr_flow_add(g->t, &f);
}

/* The open request worker traffic serves now, or NULL. */
static const gt_open *gt_flow_served(gt_rd *g)
{
    if (g->flow_req == GT_NO_LANE) return NULL;
    const gt_open *q = &gt_lane_at(g, g->flow_req)->req;
    return q->set ? q : NULL;
}

/* Forgets the replies waiting for LANE's request; with SEND != TR_NONE, links them to it first. */
static void gt_flow_replies(gt_rd *g, uint32_t lane, uint32_t send)
{
    const gt_open *q = &gt_lane_at(g, lane)->req;
    size_t keep = 0;
    for (size_t i = 0; i < g->replies.len; i++) {
        gt_reply *r = &TR_VEC_AT(&g->replies, gt_reply, i);
        if (r->lane != lane)
            TR_VEC_AT(&g->replies, gt_reply, keep++) = *r;
        else if (send != TR_NONE)
            gt_flow(g, r->row, send, q);
    }
    g->replies.len = keep;
}

/* A client's RECV on LANE: its request is served from now on. */
void gt_flow_request(gt_rd *g, uint32_t lane)
{
    gt_flow_replies(g, lane, TR_NONE);
    g->flow_req = lane;
}

/* A worker's first line of a round trip: the served request caused it. */
void gt_flow_out(gt_rd *g, uint32_t row)
{
    const gt_open *q = gt_flow_served(g);
    if (q) gt_flow(g, q->row, row, q);
}

/* FROM -> TO on a worker's lane; TO goes back with the served request's SEND. */
void gt_flow_back(gt_rd *g, uint32_t from, uint32_t to)
{
    const gt_open *q = gt_flow_served(g);
    if (!q || to == TR_NONE) return;
    gt_flow(g, from, to, q);
    gt_reply *r = tr_vec_push(&g->replies);
    if (!r) {
        g->oom = 1;
        return;
    }
    *r = (gt_reply){g->flow_req, to};
}

/* The SEND answering LANE's request: replies go to it; the latest request still open is served. */
void gt_flow_answer(gt_rd *g, uint32_t lane, uint32_t send)
{
    gt_flow_replies(g, lane, send);
    if (g->flow_req != lane) return;
    g->flow_req = GT_NO_LANE;
    int64_t latest = INT64_MIN;
    for (size_t i = 0; i < g->lanes.len; i++) {
        const gt_open *q = &gt_lane_at(g, (uint32_t)i)->req;
        if (i != lane && q->set && q->seq > latest) latest = q->seq, g->flow_req = (uint32_t)i;
    }
}
