/* align.c: every input's clock, and one timeline for the inputs of a job. */
#include "model_impl.h"
#include "tr_mem.h"
#include "tr_align.h"
#include "tr_text.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define NS_PER_S 1000000000LL

const char *tr_align_how_name(int how)
{
    static const char *const names[TR_PLACED_COUNT] = {"as stated", "wall clock",   "by hand",
                                                       "on event",  "guessed zone", "guess"};
    return how >= 0 && how < TR_PLACED_COUNT ? names[how] : "?";
}

int tr_align_is_guess(int how)
{
    return how == TR_PLACED_GUESS || how == TR_PLACED_GUESS_ZONE;
}

static int64_t add_sat(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r)) return b > 0 ? INT64_MAX : INT64_MIN;
    return r;
}

/* ---- time zones ---- */

/* "+05:30", "-0800", "+09": seconds east of UTC. */
static int parse_fixed_zone(const char *z, int64_t *east)
{
    if ((z[0] != '+' && z[0] != '-') || !isdigit((unsigned char)z[1]) ||
        !isdigit((unsigned char)z[2]))
        return -1;
    int h = (z[1] - '0') * 10 + (z[2] - '0'), m = 0;
    const char *p = z + 3;
    if (*p == ':') p++;
    if (*p) {
        if (!isdigit((unsigned char)p[0]) || !isdigit((unsigned char)p[1]) || p[2]) return -1;
        m = (p[0] - '0') * 10 + (p[1] - '0');
    }
    if (h > 23 || m > 59) return -1;
    *east = (z[0] == '-' ? -1 : 1) * (int64_t)(h * 3600 + m * 60);
    return 0;
}

/* ---- zoneinfo files (TZif, RFC 8536) ---- */

/*
** A named zone is read from its zoneinfo file, not by setting TZ for the C
** library: the library must not touch the process's environment.  The file
** lists the zone's transitions (UTC) and the offset after each; its footer,
** a POSIX TZ string ("CET-1CEST,M3.5.0,M10.5.0/3"), gives the offset after
** the last transition.
*/

/* A day of a POSIX TZ rule: Mm.w.d, Jn (Feb 29 not counted) or n (counted), and its time. */
typedef struct tz_day {
    char kind; /* 'M', 'J' or 'n' */
    int m, w, d;
    int64_t secs; /* local time of day of the change, default 02:00 */
} tz_day;

typedef struct tz_rule {
    int64_t std_off, dst_off; /* seconds east of UTC */
    int has_dst;
    tz_day start, end;
} tz_rule;

typedef struct tz_zone {
    int64_t *times; /* transitions, UTC seconds, ascending */
    unsigned char *type;
    size_t n;
    int32_t offs[256]; /* offset of each local time type */
    size_t n_types;
    tz_rule rule;
    int has_rule;
} tz_zone;

static int64_t floor_div(int64_t a, int64_t b)
{
    return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

static int is_leap(int64_t y)
{
    return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
}

/* The day (since 1970) of rule day D in year Y. */
static int64_t tz_rule_day(const tz_day *d, int64_t y)
{
    int64_t jan1 = tr_days_from_civil(y, 1, 1);
    if (d->kind == 'J') return jan1 + d->d - 1 + (is_leap(y) && d->d >= 60);
    if (d->kind == 'n') return jan1 + d->d;
    int64_t first = tr_days_from_civil(y, d->m, 1);
    int64_t next =
        d->m == 12 ? tr_days_from_civil(y + 1, 1, 1) : tr_days_from_civil(y, d->m + 1, 1);
    int64_t weekday = ((first + 4) % 7 + 7) % 7; /* 1970-01-01 was a Thursday */
    int64_t day = first + (d->d - weekday + 7) % 7 + (d->w - 1) * 7;
    while (day >= next) day -= 7; /* week 5: the last such day of the month */
    return day;
}

static int64_t tz_rule_offset(const tz_rule *r, int64_t utc)
{
    if (!r->has_dst) return r->std_off;
    int64_t days = floor_div(utc + r->std_off, 86400);
    int64_t y = 1970 + floor_div(days, 366);
    while (tr_days_from_civil(y + 1, 1, 1) <= days) y++;
    int64_t start = tz_rule_day(&r->start, y) * 86400 + r->start.secs - r->std_off;
    int64_t end = tz_rule_day(&r->end, y) * 86400 + r->end.secs - r->dst_off;
    int dst = start < end ? utc >= start && utc < end : !(utc >= end && utc < start);
    return dst ? r->dst_off : r->std_off;
}

/* [+-]hh[:mm[:ss]] of a POSIX TZ string into *SECS; the rest of P, or NULL. */
static const char *tz_hms(const char *p, int64_t *secs)
{
    int sign = *p == '-' ? -1 : 1;
    if (*p == '+' || *p == '-') p++;
    int64_t v[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++) {
        if (!isdigit((unsigned char)*p)) return NULL;
        while (isdigit((unsigned char)*p) && v[i] < 1000) v[i] = v[i] * 10 + (*p++ - '0');
        if (*p != ':' || i == 2) break;
        p++;
    }
    *secs = sign * (v[0] * 3600 + v[1] * 60 + v[2]);
    return p;
}

/* A zone abbreviation: letters, or anything between '<' and '>'. */
static const char *tz_abbr(const char *p)
{
    if (*p == '<') {
        const char *q = strchr(p, '>');
        return q ? q + 1 : NULL;
    }
    const char *q = p;
    while (isalpha((unsigned char)*q)) q++;
    return q - p >= 3 ? q : NULL;
}

static const char *tz_rule_date(const char *p, tz_day *d)
{
    memset(d, 0, sizeof *d);
    d->secs = 7200;
    d->kind = *p == 'M' || *p == 'J' ? *p++ : 'n';
    long v[3] = {0, 0, 0};
    for (int i = 0; i < (d->kind == 'M' ? 3 : 1); i++) {
        if (i && *p++ != '.') return NULL;
        if (!isdigit((unsigned char)*p)) return NULL;
        char *end;
        v[i] = strtol(p, &end, 10);
        p = end;
    }
    if (d->kind == 'M' && (v[0] < 1 || v[0] > 12 || v[1] < 1 || v[1] > 5 || v[2] > 6)) return NULL;
    if (v[0] > 365) return NULL;
    d->m = (int)v[0];
    d->w = (int)v[1];
    d->d = (int)(d->kind == 'M' ? v[2] : v[0]);
    return *p == '/' ? tz_hms(p + 1, &d->secs) : p;
}

/* A POSIX TZ string: STD offset [DST [offset] [,start[/time],end[/time]]]. */
static int tz_parse_rule(const char *p, tz_rule *r)
{
    int64_t off;
    if (!(p = tz_abbr(p)) || !(p = tz_hms(p, &off))) return -1;
    r->std_off = -off;
    r->dst_off = r->std_off + 3600;
    r->has_dst = *p != '\0';
    if (!r->has_dst) return 0;
    if (!(p = tz_abbr(p))) return -1;
    if (*p && *p != ',') {
        if (!(p = tz_hms(p, &off))) return -1;
        r->dst_off = -off;
    }
    if (*p != ',' || !(p = tz_rule_date(p + 1, &r->start)) || *p != ',' ||
        !(p = tz_rule_date(p + 1, &r->end)))
        return -1;
    return *p ? -1 : 0;
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The counts of a TZif header at P: isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt. */
static int tzif_header(const unsigned char *p, size_t n, uint32_t *c)
{
    if (n < 44 || memcmp(p, "TZif", 4) != 0) return -1;
    for (int i = 0; i < 6; i++) c[i] = be32(p + 20 + 4 * i);
    return c[4] >= 1 && c[4] <= 256 ? 0 : -1;
}

/* The data block after the header at P: transitions of TSIZE bytes, types, the footer. */
static int tzif_block(tz_zone *z, const unsigned char *p, size_t n, int tsize)
{
    uint32_t c[6];
    if (tzif_header(p, n, c) < 0) return -1;
    uint64_t need = 44 + (uint64_t)c[3] * (tsize + 1) + (uint64_t)c[4] * 6 + c[5] +
                    (uint64_t)c[2] * (tsize + 4) + c[1] + c[0];
    if (need > n) return -1;
    const unsigned char *t = p + 44, *idx = t + (size_t)c[3] * tsize, *ty = idx + c[3];
    z->times = tr_malloc((c[3] ? c[3] : 1) * sizeof *z->times);
    z->type = tr_malloc(c[3] ? c[3] : 1);
    if (!z->times || !z->type) return -1;
    for (size_t i = 0; i < c[3]; i++, t += tsize) {
        int64_t v =
            tsize == 8 ? (int64_t)((uint64_t)be32(t) << 32 | be32(t + 4)) : (int32_t)be32(t);
        if (idx[i] >= c[4] || (i && v <= z->times[i - 1])) return -1;
        z->times[i] = v;
        z->type[i] = idx[i];
    }
    z->n = c[3];
    z->n_types = c[4];
    for (size_t i = 0; i < c[4]; i++) z->offs[i] = (int32_t)be32(ty + 6 * i);
    const char *foot = (const char *)p + need, *stop = (const char *)p + n;
    if (tsize == 8 && foot + 2 < stop && *foot == '\n') {
        char rule[128];
        const char *nl = memchr(foot + 1, '\n', (size_t)(stop - foot - 1));
        if (nl && nl - foot - 1 < (ptrdiff_t)sizeof rule && nl > foot + 1) {
            memcpy(rule, foot + 1, (size_t)(nl - foot - 1));
            rule[nl - foot - 1] = '\0';
            z->has_rule = tz_parse_rule(rule, &z->rule) == 0;
        }
    }
    return 0;
}

/* Parses the TZif file of N bytes at P: its 64-bit part when version 2 or later. */
static int tzif_parse(tz_zone *z, const unsigned char *p, size_t n)
{
    uint32_t c[6];
    if (tzif_header(p, n, c) < 0) return -1;
    if (p[4] < '2') return tzif_block(z, p, n, 4);
    uint64_t v1 =
        44 + (uint64_t)c[3] * 5 + (uint64_t)c[4] * 6 + c[5] + (uint64_t)c[2] * 8 + c[1] + c[0];
    return v1 < n ? tzif_block(z, p + v1, n - (size_t)v1, 8) : -1;
}

/* The offset east of UTC in Z at UTC time UTC. */
static int64_t tz_offset_at(const tz_zone *z, int64_t utc)
{
    if (z->has_rule && (!z->n || utc >= z->times[z->n - 1])) return tz_rule_offset(&z->rule, utc);
    if (!z->n || utc < z->times[0]) return z->offs[0];
    size_t lo = 0, hi = z->n; /* the last transition at or before UTC */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (z->times[mid] <= utc)
            lo = mid;
        else
            hi = mid;
    }
    return z->offs[z->type[lo]];
}

/* Reads zone ZONE's file from DIR; 0, or -1 when there is none or it is no zoneinfo file. */
static int tz_load(tz_zone *z, const char *zone, const char *dir)
{
    if (zone[0] == '/' || strstr(zone, "..")) return -1;
    for (const char *c = zone; *c; c++)
        if (!isalnum((unsigned char)*c) && !strchr("_+-/", *c)) return -1;
    char path[4096];
    int n = snprintf(path, sizeof path, "%s/%s", dir ? dir : "/usr/share/zoneinfo", zone);
    if (n <= 0 || (size_t)n >= sizeof path) return -1;
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    enum { MAX_TZIF = 1 << 20 };
    unsigned char *buf = tr_malloc(MAX_TZIF);
    size_t len = buf ? fread(buf, 1, MAX_TZIF, f) : 0;
    fclose(f);
    int rc = buf && len < MAX_TZIF ? tzif_parse(z, buf, len) : -1;
    tr_free(buf);
    return rc;
}

/*
** The offset of a local time: the one that, taken off, gives a UTC time
** with that offset (mktime's answer).  A local time that a change skips
** gets the offset after the change; one it repeats, the later offset.
*/
static int64_t tz_local_offset(const tz_zone *z, int64_t local)
{
    int64_t guess = tz_offset_at(z, local);
    int64_t o = tz_offset_at(z, local - guess);
    if (o == guess) return o;
    return tz_offset_at(z, local - o) == o ? o : guess;
}

/* The offset of this machine's zone at LOCAL_SECS, by mktime (the process's own TZ). */
static int local_offset(int64_t local_secs, int64_t *east)
{
    time_t secs = (time_t)local_secs;
    struct tm tm;
    if (!gmtime_r(&secs, &tm)) return -1;
    tm.tm_isdst = -1;
    time_t utc = mktime(&tm);
    if (utc == (time_t)-1) return -1;
    *east = local_secs - (int64_t)utc;
    return 0;
}

int tr_tz_offset_in(const char *zone, const char *zone_dir, int64_t local_secs, int64_t *east_secs)
{
    if (!zone || strcmp(zone, "local") == 0) return local_offset(local_secs, east_secs);
    if (strcmp(zone, "UTC") == 0 || strcmp(zone, "Z") == 0 || strcmp(zone, "GMT") == 0 ||
        strcmp(zone, "utc") == 0) {
        *east_secs = 0;
        return 0;
    }
    if (parse_fixed_zone(zone, east_secs) == 0) return 0;
    tz_zone z;
    memset(&z, 0, sizeof z);
    int rc = tz_load(&z, zone, zone_dir);
    if (rc == 0) *east_secs = tz_local_offset(&z, local_secs);
    tr_free(z.times);
    tr_free(z.type);
    return rc;
}

int tr_tz_offset(const char *zone, int64_t local_secs, int64_t *east_secs)
{
    return tr_tz_offset_in(zone, NULL, local_secs, east_secs);
}

/* "YYYY-MM-DD HH:MM:SS[.fff]" at the start of S, as seconds since 1970 read as UTC. */
static int parse_local_time(const char *s, int64_t *secs, int64_t *frac_ns, int *digits)
{
    int y, mo, d, h, mi, sec, used = 0;
    if (sscanf(s, "%4d-%2d-%2d%*1[ T]%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &sec, &used) != 6 ||
        used == 0)
        return -1;
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60) return -1;
    *secs = tr_days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec;
    *frac_ns = 0;
    *digits = 0;
    if (s[used] == '.') {
        int64_t scale = NS_PER_S;
        for (const char *p = s + used + 1; isdigit((unsigned char)*p); p++, (*digits)++)
            if (scale > 1) *frac_ns += (*p - '0') * (scale /= 10);
    }
    return 0;
}

/* ---- what each input's clock is ---- */

/* Digits after the decimal point of the seconds in TEXT: the precision the source states. */
static int64_t stated_precision(const char *text)
{
    const char *dot = strchr(text, '.');
    while (dot &&
           !(dot > text && isdigit((unsigned char)dot[-1]) && isdigit((unsigned char)dot[1])))
        dot = strchr(dot + 1, '.');
    if (!dot) return NS_PER_S;
    int64_t p = NS_PER_S;
    for (const char *c = dot + 1; isdigit((unsigned char)*c) && p > 1; c++) p /= 10;
    return p;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

#define LOCAL_SUFFIX " (local time)"

/* A wall-clock origin the source states without a zone (GT's "Started:"). */
static int is_local_origin(const tr_trace *t, const tr_input_info *in)
{
    return in->origin_unix_ns == INT64_MIN && in->origin_wall &&
           ends_with(tr_str_get(t, in->origin_wall, NULL), LOCAL_SUFFIX);
}

/* Precision and provenance of the origins readers state, by what each format means by it. */
static void describe(tr_trace *t, tr_input_info *in)
{
    const char *fmt = tr_str_get(t, in->format, NULL);
    const char *wall = tr_str_get(t, in->origin_wall, NULL);
    const char *from = NULL;
    int64_t prec = 0;
    if (in->origin_unix_ns != INT64_MIN) {
        if (strcmp(fmt, "chrome") == 0 && in->origin_unix_ns == 0) {
            from = "Trace Event ts: microseconds since 1970";
            prec = 1000;
        } else if (strcmp(fmt, "chrome") == 0) {
            from = "Kineto baseTimeNanoseconds";
            prec = 1;
        } else if (strcmp(fmt, "recorder") == 0) {
            from = "Recorder start_ts (rank 0's start, microseconds)";
            prec = 1000;
        } else if (strcmp(fmt, "pyspy") == 0) {
            from = "the first dump's timestamp";
            prec = in->origin_wall ? stated_precision(wall) : 0;
        } else {
            from = "the origin the reader states";
            prec = in->origin_wall ? stated_precision(wall) : 0;
        }
    } else if (is_local_origin(t, in)) {
        from = strcmp(fmt, "gt") == 0 ? "GT header 'Started:' (local time, whole seconds)"
                                      : "a local time without a zone";
        prec = stated_precision(wall);
    }
    if (!in->origin_from && from) in->origin_from = tr_str_internz(t, from);
    if (!in->origin_precision_ns) in->origin_precision_ns = prec;
}

/* Reads a zone-less local origin in O's zone (none: this machine's zone, a guess). */
static int resolve_local(tr_trace *t, tr_input_info *in, const tr_align_opts *o, tr_error *e)
{
    const char *zone = o->tz;
    int64_t secs, frac;
    int digits;
    if (parse_local_time(tr_str_get(t, in->origin_wall, NULL), &secs, &frac, &digits) < 0)
        return TR_OK; /* not a time we can read: the input stays without a clock */
    int64_t east;
    if (tr_tz_offset_in(zone, o->zone_dir, secs, &east) < 0)
        return tr_errorf(e, TR_E_USAGE, NULL,
                         "unknown time zone '%s' (try UTC, +02:00, local or a zoneinfo name)",
                         zone ? zone : "local");
    in->origin_unix_ns = (secs - east) * NS_PER_S + frac;
    tr_buf b;
    tr_buf_init(&b, 0);
    int rc = tr_buf_addf(&b, "%s, zone %s", tr_str_get(t, in->origin_from, NULL),
                         zone ? zone : "of this machine (no --tz: a guess)");
    if (rc == TR_OK) in->origin_from = tr_str_intern(t, b.p, b.len);
    tr_buf_fini(&b);
    return rc == TR_OK ? tr_trace_status(t, e) : tr_error_nomem(e);
}

/* ---- ranks from file names ---- */

int32_t tr_rank_from_path(const char *path)
{
    int32_t rank = -1;
    for (size_t i = 0; path[i]; i++) {
        if (strncasecmp(path + i, "rank", 4) != 0) continue;
        if (i > 0 && isalpha((unsigned char)path[i - 1])) continue;
        const char *d = path + i + 4;
        if (*d && strchr("_-.=", *d)) d++;
        if (!isdigit((unsigned char)*d)) continue;
        int64_t v = 0;
        int n = 0;
        for (; isdigit((unsigned char)*d) && n < 10; d++, n++) v = v * 10 + (*d - '0');
        if (n < 10 && v <= INT32_MAX) rank = (int32_t)v;
    }
    return rank;
}

/* ---- the timeline ---- */

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static int path_matches(const char *want, const char *name)
{
    return strcmp(want, name) == 0 || strcmp(base_name(want), base_name(name)) == 0;
}

/* One rank of one input: what --align-on moves as a whole. */
typedef struct unit {
    uint32_t input;
    int32_t rank;
    int64_t first; /* the first NAME event on the timeline so far, INT64_MAX = none */
} unit;

typedef struct aligner {
    tr_trace *t;
    size_t n_in, n_proc, n_tracks;
    uint32_t *track_proc;   /* by track */
    int64_t *first_ts;      /* by input: earliest event, INT64_MAX = none */
    int64_t *proc_off;      /* by process */
    uint32_t *proc_unit;    /* by process */
    unsigned char *is_name; /* by string: equals the --align-on name */
    tr_vec units;           /* unit */
} aligner;

static void aligner_fini(aligner *a)
{
    tr_free(a->track_proc);
    tr_free(a->first_ts);
    tr_free(a->proc_off);
    tr_free(a->proc_unit);
    tr_free(a->is_name);
    tr_vec_fini(&a->units);
}

static uint32_t track_input(const aligner *a, uint32_t track)
{
    if (track >= a->n_tracks) return TR_NONE;
    return TR_VEC_AT(&a->t->processes, tr_process, a->track_proc[track]).input;
}

static void first_of(aligner *a, const int64_t *ts, tr_col track, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t in = track_input(a, (uint32_t)tr_col_at(&track, i));
        if (in < a->n_in && ts[i] < a->first_ts[in]) a->first_ts[in] = ts[i];
    }
}

/* Ranks from file names for inputs that carry none. */
static void ranks_from_paths(aligner *a)
{
    tr_trace *t = a->t;
    for (size_t i = 0; i < a->n_in; i++) {
        const tr_input_info *in = &TR_VEC_AT(&t->inputs, tr_input_info, i);
        int ranked = in->rank >= 0;
        for (size_t p = 0; p < a->n_proc && !ranked; p++) {
            const tr_process *pr = &TR_VEC_AT(&t->processes, tr_process, p);
            ranked = pr->input == i && pr->rank >= 0;
        }
        int32_t rank = ranked ? -1 : tr_rank_from_path(tr_str_get(t, in->path, NULL));
        for (size_t p = 0; p < a->n_proc && rank >= 0; p++) {
            tr_process *pr = &TR_VEC_AT(&t->processes, tr_process, p);
            if (pr->input == i) pr->rank = rank;
        }
    }
}

/*
** Wall-clock placement: the zero is the earliest event of the inputs with a
** clock (those placed by hand aside).
*/
static void place_by_wall(aligner *a, const unsigned char *zone_guess)
{
    tr_trace *t = a->t;
    int all_same = 1;
    int64_t zero = INT64_MAX, min_origin = INT64_MAX;
    for (size_t i = 0; i < a->n_in; i++) {
        const tr_input_info *in = &TR_VEC_AT(&t->inputs, tr_input_info, i);
        const tr_input_info *in0 = &TR_VEC_AT(&t->inputs, tr_input_info, 0);
        if (in->origin_unix_ns != in0->origin_unix_ns || in->origin_unix_ns == INT64_MIN ||
            in->placed == TR_PLACED_MANUAL)
            all_same = 0;
        if (in->origin_unix_ns == INT64_MIN || in->placed == TR_PLACED_MANUAL) continue;
        if (in->origin_unix_ns < min_origin) min_origin = in->origin_unix_ns;
        if (a->first_ts[i] != INT64_MAX) {
            int64_t w = add_sat(in->origin_unix_ns, a->first_ts[i]);
            if (w < zero) zero = w;
        }
    }
    if (zero == INT64_MAX) zero = min_origin;
    for (size_t i = 0; i < a->n_in; i++) {
        tr_input_info *in = &TR_VEC_AT(&t->inputs, tr_input_info, i);
        if (in->placed == TR_PLACED_MANUAL) continue;
        if (all_same) {
            in->placed = TR_PLACED_AS_IS;
            in->offset_ns = 0;
        } else if (in->origin_unix_ns == INT64_MIN) {
            in->placed = TR_PLACED_GUESS;
            in->offset_ns = 0;
        } else {
            in->placed = zone_guess[i] ? TR_PLACED_GUESS_ZONE : TR_PLACED_WALL;
            in->offset_ns = add_sat(in->origin_unix_ns, -zero);
        }
    }
}

#define ALIGN_DAY_NS (86400LL * 1000000000LL)

/*
** Inputs whose first events land more than a day apart once placed (a GT
** log's local time beside a Kineto trace's epoch microseconds) make a
** picture with everything crushed to its edges: each is warned with the
** gap and the --align that puts its first event at the earliest input's.
** Inputs placed by hand or by --align-on are the user's choice.
*/
static int warn_far_apart(aligner *a, const tr_align_opts *o, tr_error *e)
{
    tr_trace *t = a->t;
    size_t ref = a->n_in;
    for (size_t i = 0; i < a->n_in; i++) {
        const tr_input_info *in = &TR_VEC_AT(&t->inputs, tr_input_info, i);
        if (a->first_ts[i] == INT64_MAX) continue;
        int64_t at = add_sat(a->first_ts[i], in->offset_ns);
        if (ref == a->n_in ||
            at < add_sat(a->first_ts[ref], TR_VEC_AT(&t->inputs, tr_input_info, ref).offset_ns))
            ref = i;
    }
    if (ref == a->n_in || o->align_on) return TR_OK;
    const tr_input_info *r = &TR_VEC_AT(&t->inputs, tr_input_info, ref);
    int64_t start = add_sat(a->first_ts[ref], r->offset_ns);
    for (size_t i = 0; i < a->n_in; i++) {
        const tr_input_info *in = &TR_VEC_AT(&t->inputs, tr_input_info, i);
        if (a->first_ts[i] == INT64_MAX || in->placed == TR_PLACED_MANUAL) continue;
        int64_t gap = add_sat(add_sat(a->first_ts[i], in->offset_ns), -start);
        if (gap <= ALIGN_DAY_NS) continue;
        /* the offset that puts this input's first event at the reference's */
        int64_t fix = add_sat(start, -a->first_ts[i]);
        uint64_t mag = fix < 0 ? 0 - (uint64_t)fix : (uint64_t)fix;
        const char *name = tr_str_get(t, in->path, NULL);
        tr_loc loc = {name, 0, 0, 0};
        if (tr_warnf(o->diag, e, &loc,
                     "its first event is %.1f days after %s's: inputs that ran together are "
                     "misplaced (--align %s=%s%llu.%09llus puts them side by side)",
                     (double)gap / (double)ALIGN_DAY_NS, tr_str_get(t, r->path, NULL), name,
                     fix < 0 ? "-" : "", (unsigned long long)(mag / 1000000000u),
                     (unsigned long long)(mag % 1000000000u)) == TR_FAIL)
            return TR_FAIL;
    }
    return TR_OK;
}

static int place_by_hand(aligner *a, const tr_align_opts *o, tr_error *e)
{
    tr_trace *t = a->t;
    for (size_t k = 0; k < o->n_offsets; k++) {
        int found = 0;
        for (size_t i = 0; i < a->n_in; i++) {
            tr_input_info *in = &TR_VEC_AT(&t->inputs, tr_input_info, i);
            if (!path_matches(o->offsets[k].path, tr_str_get(t, in->path, NULL))) continue;
            in->placed = TR_PLACED_MANUAL;
            in->offset_ns = o->offsets[k].offset_ns;
            found = 1;
        }
        if (!found)
            return tr_errorf(e, TR_E_USAGE, NULL, "--align %s: no input of that name",
                             o->offsets[k].path);
    }
    return TR_OK;
}

/* A table's 32-bit tracks or names as a tr_col (the instants' are one already). */
static tr_col track_col(const uint32_t *track)
{
    return (tr_col){track, 0, 0, 4};
}

static void scan_named(aligner *a, const int64_t *ts, tr_col track, tr_col name, size_t n,
                       size_t n_strs)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t nm = (uint64_t)tr_col_at(&name, i), k = (uint64_t)tr_col_at(&track, i);
        if (nm >= n_strs || !a->is_name[nm] || k >= a->n_tracks) continue;
        uint32_t p = a->track_proc[k];
        if (a->proc_unit[p] == TR_NONE) continue;
        unit *u = &TR_VEC_AT(&a->units, unit, a->proc_unit[p]);
        int64_t at = add_sat(ts[i], a->proc_off[p]);
        if (at < u->first) u->first = at;
    }
}

/* --align-on NAME: each (input, rank) with a NAME event moves to the latest first one. */
static int place_on_event(aligner *a, const tr_align_opts *o, tr_error *e)
{
    tr_trace *t = a->t;
    size_t n_strs = t->strs.len, len = strlen(o->align_on);
    a->is_name = tr_calloc(n_strs ? n_strs : 1, 1);
    a->proc_unit = tr_malloc((a->n_proc ? a->n_proc : 1) * sizeof *a->proc_unit);
    if (!a->is_name || !a->proc_unit) return tr_error_nomem(e);
    for (size_t s = 1; s < n_strs; s++) {
        const str_entry *se = model_str_entry(t, (tr_str)s);
        a->is_name[s] = se->len == len && memcmp(se->p, o->align_on, len) == 0;
    }
    for (size_t p = 0; p < a->n_proc; p++) {
        const tr_process *pr = &TR_VEC_AT(&t->processes, tr_process, p);
        a->proc_unit[p] = TR_NONE;
        if (TR_VEC_AT(&t->inputs, tr_input_info, pr->input).placed == TR_PLACED_MANUAL) continue;
        /* units are few per input; the last one found is nearly always the one */
        for (size_t u = a->units.len; u-- > 0;) {
            const unit *un = &TR_VEC_AT(&a->units, unit, u);
            if (un->input == pr->input && un->rank == pr->rank) {
                a->proc_unit[p] = (uint32_t)u;
                break;
            }
        }
        if (a->proc_unit[p] != TR_NONE) continue;
        unit *un = tr_vec_push(&a->units);
        if (!un) return tr_error_nomem(e);
        *un = (unit){.input = pr->input, .rank = pr->rank, .first = INT64_MAX};
        a->proc_unit[p] = (uint32_t)(a->units.len - 1);
    }
    const slice_table *sl = &t->slices;
    const instant_table *it = &t->instants;
    scan_named(a, sl->ts, track_col(sl->track), track_col(sl->name), sl->n, n_strs);
    scan_named(a, it->ts, model_col_view(&it->track), model_col_view(&it->name), it->n, n_strs);
    int64_t target = INT64_MIN;
    for (size_t u = 0; u < a->units.len; u++) {
        const unit *un = &TR_VEC_AT(&a->units, unit, u);
        if (un->first != INT64_MAX && un->first > target) target = un->first;
    }
    if (target == INT64_MIN) {
        tr_loc loc = {0};
        return tr_warnf(o->diag, e, &loc, "--align-on: no slice or instant is named '%s'",
                        o->align_on) == TR_FAIL
                   ? TR_FAIL
                   : TR_OK;
    }
    for (size_t p = 0; p < a->n_proc; p++) {
        if (a->proc_unit[p] == TR_NONE) continue;
        const unit *un = &TR_VEC_AT(&a->units, unit, a->proc_unit[p]);
        if (un->first == INT64_MAX) continue;
        a->proc_off[p] = add_sat(a->proc_off[p], target - un->first);
        TR_VEC_AT(&t->inputs, tr_input_info, un->input).placed = TR_PLACED_EVENT;
    }
    return TR_OK;
}

static void shift(const aligner *a, int64_t *ts, tr_col track, size_t n, const int64_t *track_off)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t k = (uint64_t)tr_col_at(&track, i);
        if (k < a->n_tracks && track_off[k]) ts[i] = add_sat(ts[i], track_off[k]);
    }
}

static int apply_shifts(aligner *a, tr_error *e)
{
    tr_trace *t = a->t;
    int any = 0;
    for (size_t p = 0; p < a->n_proc; p++) {
        tr_process *pr = &TR_VEC_AT(&t->processes, tr_process, p);
        pr->offset_ns = a->proc_off[p];
        any |= pr->offset_ns != 0;
    }
    if (!any) return TR_OK;
    int64_t *off = tr_malloc((a->n_tracks ? a->n_tracks : 1) * sizeof *off);
    if (!off) return tr_error_nomem(e);
    for (size_t k = 0; k < a->n_tracks; k++) off[k] = a->proc_off[a->track_proc[k]];
    shift(a, t->slices.ts, track_col(t->slices.track), t->slices.n, off);
    shift(a, t->instants.ts, model_col_view(&t->instants.track), t->instants.n, off);
    t->instants.ordered = 0; /* the shifts may have put them out of order */
    shift(a, t->counters.ts, track_col(t->counters.track), t->counters.n, off);
    shift(a, t->samples.ts, track_col(t->samples.track), t->samples.n, off);
    tr_free(off);
    return TR_OK;
}

int tr_align(tr_trace *t, const tr_align_opts *o, tr_error *e)
{
    static const tr_align_opts none = {0};
    if (!o) o = &none;
    if (t->frozen) return tr_errorf(e, TR_E_USAGE, NULL, "tr_align after tr_trace_freeze");
    aligner a = {
        .t = t, .n_in = t->inputs.len, .n_proc = t->processes.len, .n_tracks = t->tracks.len};
    tr_vec_init(&a.units, sizeof(unit));
    int merging = a.n_in > 1 || o->n_offsets || o->align_on;
    unsigned char *zone_guess = tr_calloc(a.n_in ? a.n_in : 1, 1);
    if (!zone_guess) return tr_error_nomem(e);
    int rc = TR_OK;
    for (size_t i = 0; i < a.n_in && rc == TR_OK; i++) {
        tr_input_info *in = &TR_VEC_AT(&t->inputs, tr_input_info, i);
        describe(t, in);
        if (is_local_origin(t, in) && (o->tz || merging)) {
            zone_guess[i] = !o->tz;
            rc = resolve_local(t, in, o, e);
        }
    }
    if (rc == TR_OK) rc = tr_trace_status(t, e);
    if (rc != TR_OK || !merging) {
        tr_free(zone_guess);
        return rc;
    }
    ranks_from_paths(&a);
    a.track_proc = tr_malloc((a.n_tracks ? a.n_tracks : 1) * sizeof *a.track_proc);
    a.first_ts = tr_malloc((a.n_in ? a.n_in : 1) * sizeof *a.first_ts);
    a.proc_off = tr_malloc((a.n_proc ? a.n_proc : 1) * sizeof *a.proc_off);
    if (!a.track_proc || !a.first_ts || !a.proc_off) rc = tr_error_nomem(e);
    if (rc == TR_OK) {
        for (size_t k = 0; k < a.n_tracks; k++)
            a.track_proc[k] = tr_track_get(t, (uint32_t)k)->process;
        for (size_t i = 0; i < a.n_in; i++) a.first_ts[i] = INT64_MAX;
        first_of(&a, t->slices.ts, track_col(t->slices.track), t->slices.n);
        first_of(&a, t->instants.ts, model_col_view(&t->instants.track), t->instants.n);
        first_of(&a, t->counters.ts, track_col(t->counters.track), t->counters.n);
        first_of(&a, t->samples.ts, track_col(t->samples.track), t->samples.n);
        for (size_t i = 0; i < a.n_in; i++) {
            int64_t dropped = TR_VEC_AT(&t->inputs, tr_input_info, i).dropped_first_ts;
            if (dropped < a.first_ts[i]) a.first_ts[i] = dropped;
            TR_VEC_AT(&t->inputs, tr_input_info, i).placed = TR_PLACED_AS_IS;
            TR_VEC_AT(&t->inputs, tr_input_info, i).offset_ns = 0;
        }
        rc = place_by_hand(&a, o, e);
    }
    if (rc == TR_OK) place_by_wall(&a, zone_guess);
    if (rc == TR_OK) rc = warn_far_apart(&a, o, e);
    if (rc == TR_OK) {
        for (size_t p = 0; p < a.n_proc; p++) {
            const tr_process *pr = &TR_VEC_AT(&t->processes, tr_process, p);
            a.proc_off[p] = TR_VEC_AT(&t->inputs, tr_input_info, pr->input).offset_ns;
        }
        if (o->align_on) rc = place_on_event(&a, o, e);
    }
    if (rc == TR_OK) rc = apply_shifts(&a, e);
    aligner_fini(&a);
    tr_free(zone_guess);
    return rc;
}

int64_t tr_timeline_origin(const tr_trace *t)
{
    int64_t guess = INT64_MIN;
    for (size_t i = 0; i < tr_input_count(t); i++) {
        const tr_input_info *in = tr_input_get(t, (uint32_t)i);
        if (in->origin_unix_ns == INT64_MIN) continue;
        int64_t zero = add_sat(in->origin_unix_ns, -in->offset_ns);
        if (!tr_align_is_guess(in->placed) && in->placed != TR_PLACED_MANUAL) return zero;
        if (guess == INT64_MIN) guess = zero;
    }
    return guess;
}

/* ---- process groups ---- */

typedef struct ranked {
    int32_t rank;
    uint32_t id;
} ranked;

static int by_rank(const void *pa, const void *pb)
{
    const ranked *a = pa, *b = pb;
    if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
}

/* A process that names its OS process (host and pid), and when it was seen. */
typedef struct seen {
    tr_str host;
    int64_t pid, first, last;
    uint32_t id;
} seen;

static int by_os_process(const void *pa, const void *pb)
{
    const seen *a = pa, *b = pb;
    if (a->host != b->host) return a->host < b->host ? -1 : 1;
    if (a->pid != b->pid) return a->pid < b->pid ? -1 : 1;
    if (a->first != b->first) return a->first < b->first ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
}

/* The root of P in GROUP, a forest whose roots are their trees' lowest ids. */
static uint32_t group_root(uint32_t *group, uint32_t p)
{
    while (group[p] != p) p = group[p] = group[group[p]];
    return p;
}

static void group_join(uint32_t *group, uint32_t a, uint32_t b)
{
    a = group_root(group, a), b = group_root(group, b);
    if (a < b) group[b] = a;
    if (b < a) group[a] = b;
}

/* Processes of one rank from two or more inputs. */
static void join_ranks(const tr_trace *t, uint32_t *group, ranked *r)
{
    size_t n = tr_process_count(t), k = 0;
    for (size_t p = 0; p < n; p++) {
        const tr_process *pr = tr_process_get(t, (uint32_t)p);
        if (pr->rank >= 0) r[k++] = (ranked){pr->rank, (uint32_t)p};
    }
    tr_qsort(r, k, sizeof *r, by_rank);
    for (size_t i = 0; i < k;) {
        size_t j = i + 1;
        int mixed = 0;
        uint32_t input = tr_process_get(t, r[i].id)->input;
        for (; j < k && r[j].rank == r[i].rank; j++)
            mixed |= tr_process_get(t, r[j].id)->input != input;
        for (size_t m = i; m < j && mixed; m++) group_join(group, r[m].id, r[i].id);
        i = j;
    }
}

/* Each process's first and last event (ns), INT64_MAX / INT64_MIN when it has none. */
static void process_spans(const tr_trace *t, int64_t *first, int64_t *last)
{
    tr_slices s;
    tr_instants in;
    tr_counters co;
    tr_samples sa;
    tr_trace_slices(t, &s);
    tr_trace_instants(t, &in);
    tr_trace_counters(t, &co);
    tr_trace_samples(t, &sa);
    tr_col track[TR_EV_KIND_COUNT] = {track_col(s.track), in.track, track_col(co.track),
                                      track_col(sa.track)};
    tr_iter it;
    tr_event ev;
    tr_iter_init(&it, t);
    while (tr_iter_next(&it, &ev)) {
        uint32_t p = tr_track_get(t, (uint32_t)tr_col_at(&track[ev.kind], ev.row))->process;
        int64_t dur = ev.kind == TR_EV_SLICE ? tr_slice_dur(&s, ev.row) : 0;
        if (ev.ts < first[p]) first[p] = ev.ts;
        if (add_sat(ev.ts, dur > 0 ? dur : 0) > last[p])
            last[p] = add_sat(ev.ts, dur > 0 ? dur : 0);
    }
}

/*
** One OS process seen by two inputs (tracerecord's <r>.proc and
** tracesniff's dump markers name host and pid): the same host and pid,
** from different inputs, seen at overlapping times (within a second: a
** sampler's first dump can come before the first traced call).  Two
** processes apart in time are a reused pid.
*/
static void join_os_processes(const tr_trace *t, uint32_t *group, seen *v)
{
    size_t n = tr_process_count(t), k = 0;
    int64_t *first = tr_malloc((n ? n : 1) * 2 * sizeof *first);
    if (!first) return;
    int64_t *last = first + n;
    for (size_t p = 0; p < n; p++) first[p] = INT64_MAX, last[p] = INT64_MIN;
    process_spans(t, first, last);
    for (size_t p = 0; p < n; p++) {
        const tr_process *pr = tr_process_get(t, (uint32_t)p);
        if (pr->host && pr->pid > 0 && first[p] <= last[p])
            v[k++] = (seen){pr->host, pr->pid, first[p], last[p], (uint32_t)p};
    }
    tr_free(first);
    tr_qsort(v, k, sizeof *v, by_os_process);
    const int64_t slack = 1000000000;
    for (size_t i = 0; i + 1 < k; i++) {
        /* Sorted by start: each joins the next of the same host and pid it overlaps. */
        for (size_t j = i + 1; j < k && v[j].host == v[i].host && v[j].pid == v[i].pid; j++) {
            if (v[j].first > add_sat(v[i].last, slack)) break;
            if (tr_process_get(t, v[i].id)->input != tr_process_get(t, v[j].id)->input)
                group_join(group, v[i].id, v[j].id);
        }
    }
}

void tr_process_groups(const tr_trace *t, uint32_t *group)
{
    size_t n = tr_process_count(t);
    for (size_t p = 0; p < n; p++) group[p] = (uint32_t)p;
    size_t each = sizeof(ranked) > sizeof(seen) ? sizeof(ranked) : sizeof(seen);
    void *scratch = tr_malloc((n ? n : 1) * each);
    if (!scratch) return; /* no groups is a correct, if plainer, answer */
    join_ranks(t, group, scratch);
    join_os_processes(t, group, scratch);
    tr_free(scratch);
    for (size_t p = 0; p < n; p++) group[p] = group_root(group, (uint32_t)p);
}
