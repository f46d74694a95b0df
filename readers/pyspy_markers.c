/*
** pyspy_markers.c: the lines a tool writes between py-spy dumps to time
** them (shared/formats/pyspy.md): "#tracecat-dump ts=... [pid=] [rank=]
** [host=]" starts a moment at its wall-clock time, "#tracecat-counter ts=T
** pid=P NAME=VALUE..." gives counter samples of the process.  Times are RFC
** 3339 or Unix seconds, kept relative to the first one the file states.
*/
#include "pyspy_impl.h"

#include "tr_text.h"

#include <stdlib.h>
#include <string.h>

/* ---- markers and counters ---- */

/* N digits at P as a number, or -1. */
static int64_t ps_num(const char *p, size_t n)
{
    int64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (!ps_digit(p[i])) return -1;
        v = v * 10 + (p[i] - '0');
    }
    return v;
}

/* RFC 3339 "YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM)" or Unix seconds, as Unix ns. */
static int ps_parse_time(const char *p, size_t n, int64_t *ns)
{
    if (n >= 19 && p[4] == '-' && p[7] == '-' && (p[10] == 'T' || p[10] == 't' || p[10] == ' ') &&
        p[13] == ':' && p[16] == ':') {
        int64_t y = ps_num(p, 4), mo = ps_num(p + 5, 2), d = ps_num(p + 8, 2);
        int64_t h = ps_num(p + 11, 2), mi = ps_num(p + 14, 2), s = ps_num(p + 17, 2);
        if (y < 0 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 ||
            s < 0 || s > 60)
            return -1;
        size_t i = 19;
        int64_t frac = 0, scale = PS_NS_PER_S;
        if (i < n && p[i] == '.') {
            size_t f0 = ++i;
            for (; i < n && ps_digit(p[i]); i++)
                if (scale > 1) frac = frac * 10 + (p[i] - '0'), scale /= 10;
            if (i == f0) return -1;
            frac *= scale;
        }
        int64_t off = 0;
        if (i < n && (p[i] == 'Z' || p[i] == 'z')) {
            i++;
        } else if (i + 6 == n && (p[i] == '+' || p[i] == '-') && p[i + 3] == ':') {
            int64_t oh = ps_num(p + i + 1, 2), om = ps_num(p + i + 4, 2);
            if (oh < 0 || om < 0) return -1;
            off = (oh * 60 + om) * 60 * (p[i] == '-' ? -1 : 1);
            i = n;
        } else {
            return -1;
        }
        if (i != n) return -1;
        int64_t secs = tr_days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s - off;
        /* int64 nanoseconds reach the year 2262 */
        if (secs >= INT64_MAX / PS_NS_PER_S || secs <= INT64_MIN / PS_NS_PER_S) return -1;
        *ns = secs * PS_NS_PER_S + frac;
        return 0;
    }
    return tr_parse_decimal_ns(p, n, PS_NS_PER_S, ns);
}

/* The time TS states, from the origin (the first time the file states). */
static int64_t ps_rel(ps_rd *r, int64_t unix_ns, const char *text, size_t n)
{
    if (!r->have_origin) {
        r->have_origin = 1;
        r->origin_unix = unix_ns;
        tr_input_info *info = tr_input_at(r->t, r->input);
        if (info) {
            info->origin_unix_ns = unix_ns;
            info->origin_wall = tr_str_intern(r->t, text, n);
        }
    }
    int64_t rel;
    if (__builtin_sub_overflow(unix_ns, r->origin_unix, &rel))
        return unix_ns < 0 ? INT64_MIN : INT64_MAX;
    return rel;
}

/* Splits "key=value" fields; LABEL runs to the end of the line. */
typedef struct ps_field {
    const char *k, *v;
    size_t k_n, v_n;
} ps_field;

static int ps_next_field(const char **p, const char *end, ps_field *f)
{
    const char *s = *p;
    while (s < end && *s == ' ') s++;
    if (s == end) return 0;
    const char *eq = s;
    while (eq < end && *eq != '=' && *eq != ' ') eq++;
    f->k = s;
    f->k_n = (size_t)(eq - s);
    if (eq == end || *eq == ' ') {
        f->v = eq;
        f->v_n = 0;
        *p = eq;
        return 1;
    }
    const char *v = eq + 1, *ve = v;
    if (f->k_n == 5 && memcmp(s, "label", 5) == 0)
        ve = end;
    else
        while (ve < end && *ve != ' ') ve++;
    f->v = v;
    f->v_n = (size_t)(ve - v);
    *p = ve;
    return 1;
}

static int ps_key(const ps_field *f, const char *k)
{
    return strlen(k) == f->k_n && memcmp(f->k, k, f->k_n) == 0;
}

int ps_on_marker(ps_rd *r, const tr_line *ln, tr_error *e)
{
    const char *p = ln->p + (ln->len > 15 ? 15 : ln->len), *end = ln->p + ln->len;
    ps_field f;
    int have_ts = 0, rc;
    int64_t ts = r->ts, pid = -1, rank = -1;
    tr_str host = 0;
    while (ps_next_field(&p, end, &f)) {
        if (ps_key(&f, "ts")) {
            int64_t unix_ns;
            if (ps_parse_time(f.v, f.v_n, &unix_ns) == 0) {
                ts = ps_rel(r, unix_ns, f.v, f.v_n);
                have_ts = 1;
            } else if ((rc = ps_warn_e(r, ln, (uint64_t)(f.v - ln->p) + 1,
                                       "bad ts in #tracecat-dump (want RFC 3339 or Unix seconds)",
                                       e)) != TR_OK) {
                return rc;
            }
        } else if (ps_key(&f, "pid")) {
            if (ps_pid(f.v, f.v_n, &pid) != f.v_n) pid = -1;
        } else if (ps_key(&f, "rank")) {
            int64_t v = 0;
            if (ps_pid(f.v, f.v_n, &v) == f.v_n && v <= INT32_MAX) rank = v;
        } else if (ps_key(&f, "host")) {
            host = tr_str_intern(r->t, f.v, f.v_n);
        }
    }
    if (!have_ts && !r->markers && !r->have_origin) ts = 0;
    r->markers = 1;
    if ((rc = ps_moment_start(r, 1, ts, e)) != TR_OK) return rc;
    r->pending_pid = pid;
    /* A marker that names no host keeps the last one named: one node's sequence. */
    if (host) r->marker_host = host;
    r->pending_host = r->marker_host;
    r->pending_rank = (int32_t)rank;
    return TR_OK;
}

/* "#tracecat-counter ts=T pid=P NAME=VALUE...": counter samples of the process. */
int ps_on_counter(ps_rd *r, const tr_line *ln, tr_error *e)
{
    const char *p = ln->p + 18, *end = ln->p + ln->len;
    ps_field f;
    int64_t ts = r->ts, pid = -1;
    tr_str host = 0;
    int rc;
    /* ts and pid come first by convention, but are looked for everywhere. */
    for (const char *q = p; ps_next_field(&q, end, &f);) {
        int64_t unix_ns;
        if (ps_key(&f, "ts")) {
            if (ps_parse_time(f.v, f.v_n, &unix_ns) == 0)
                ts = ps_rel(r, unix_ns, f.v, f.v_n);
            else if ((rc = ps_warn_e(r, ln, (uint64_t)(f.v - ln->p) + 1,
                                     "bad ts in #tracecat-counter", e)) != TR_OK)
                return rc;
        } else if (ps_key(&f, "pid") && ps_pid(f.v, f.v_n, &pid) != f.v_n) {
            pid = -1;
        } else if (ps_key(&f, "host")) {
            host = tr_str_intern(r->t, f.v, f.v_n);
        }
    }
    uint32_t proc = tr_process_intern_on(r->t, r->input, host ? host : r->marker_host, pid);
    if (proc == TR_NONE) return tr_error_nomem(e);
    while (ps_next_field(&p, end, &f)) {
        if (ps_key(&f, "ts") || ps_key(&f, "pid") || ps_key(&f, "host") || ps_key(&f, "rank") ||
            f.k_n == 0)
            continue;
        char num[64];
        char *stop;
        double v = 0;
        int ok = f.v_n > 0 && f.v_n < sizeof num;
        if (ok) {
            memcpy(num, f.v, f.v_n);
            num[f.v_n] = '\0';
            v = strtod(num, &stop);
            ok = *stop == '\0';
        }
        if (!ok) {
            if ((rc = ps_warn_e(r, ln, (uint64_t)(f.k - ln->p) + 1, "counter value is not a number",
                                e)) != TR_OK)
                return rc;
            continue;
        }
        uint32_t track =
            tr_track_intern(r->t, proc, TR_TRACK_COUNTER, -1, tr_str_intern(r->t, f.k, f.k_n));
        tr_counter_add(r->t, track, ts, v);
    }
    return tr_trace_status(r->t, e);
}
