/*
** sqlite.c: a SQLite database tracecat wrote (tracecat convert X -o x.db),
** read back into the model (README "SQL schema"; writers/schema.c).
**
** The database is recognised by its meta table (tool 'tracecat' and a
** schema_version this reader knows: 2, 3 with the slices' thread times, 4
** without the GT args other columns hold, or 5 with a GT input's arg sets
** packed a row each); any other database is refused naming tracesql.  What becomes what:
**   trace_input  an input each (the first is the one the loader added), with
**                its path, format, origin, clock, rank, counts and metadata
**   process      a process of its input (pid, host, name, rank, labels, order)
**   track        a track of its process, kind and name as stored; every track
**                nests as stored (TR_NEST_GIVEN): slice.parent_id is the truth
**   args         the arg sets, every value type (a uint above INT64_MAX was
**                stored as a real and comes back rounded to a double)
**   slice, instant, counter, stack_sample, stack_profile_frame,
**   stack_profile_callsite, flow  the events, frames, stacks and arrows
** Derived columns (depth, utid, weight, the views) are not read: the model
** derives them again.  The image is read whole through the input (so a
** compressed or archived database reads too) and opened read-only; every
** value is checked, and bad content is "table T row N: what is wrong".
*/
#include "tr_map.h"
#include "tr_mem.h"
#include "tr_reader.h"
#include "tr_writer.h"

#include <math.h>
#include <stdarg.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

/* Maps from the database's ids to the model's. */
enum sq_map { M_INPUT, M_PROCESS, M_TRACK, M_SET, M_FRAME, M_CALLSITE, M_SLICE, M_INSTANT, M_N };

typedef struct sq_rd {
    const char *name; /* the database as the user named it */
    tr_trace *t;
    uint32_t input; /* the loader's input: the database's first */
    tr_buf image;
    sqlite3 *db;
    sqlite3_stmt *st; /* the current table's rows */
    int phase;        /* index into sq_phases */
    uint64_t row;     /* 1-based row of the current table */
    tr_map map[M_N];
    int in_set; /* an arg set is being built */
    int64_t set_id;
    int version; /* the database's schema_version */
    tr_error *e;
} sq_rd;

/* ---- errors and values ---- */

static const char *sq_table(const sq_rd *r);

static int sq_bad(sq_rd *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int sq_bad(sq_rd *r, const char *fmt, ...)
{
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tr_loc loc = {r->name, 0, 0, 0};
    return tr_errorf(r->e, TR_E_FORMAT, &loc, "table %s row %llu: %s", sq_table(r),
                     (unsigned long long)r->row, msg);
}

static int sq_sqlite_error(sq_rd *r)
{
    tr_loc loc = {r->name, 0, 0, 0};
    return tr_errorf(r->e, TR_E_FORMAT, &loc, "table %s: %s", sq_table(r), sqlite3_errmsg(r->db));
}

/* Column COL as an integer into *V; NULL gives NONE when NULLABLE, else an error. */
static int sq_int(sq_rd *r, int col, int nullable, int64_t none, int64_t *v)
{
    int type = sqlite3_column_type(r->st, col);
    const char *what = sqlite3_column_name(r->st, col);
    *v = none; /* set on every path, so an optimizer sees no use before set */
    if (type == SQLITE_NULL && nullable) return TR_OK;
    if (type != SQLITE_INTEGER) return sq_bad(r, "%s is not an integer", what);
    *v = sqlite3_column_int64(r->st, col);
    return TR_OK;
}

/* An integer in [LO, HI], or NONE for NULL when NULLABLE. */
static int sq_range(sq_rd *r, int col, int nullable, int64_t none, int64_t lo, int64_t hi,
                    int64_t *v)
{
    int rc = sq_int(r, col, nullable, none, v);
    if (rc || (*v == none && sqlite3_column_type(r->st, col) == SQLITE_NULL)) return rc;
    if (*v < lo || *v > hi)
        return sq_bad(r, "%s %lld is out of range", sqlite3_column_name(r->st, col), (long long)*v);
    return TR_OK;
}

/* Text column COL interned into *S; NULL is "" (id 0). */
static int sq_text(sq_rd *r, int col, tr_str *s)
{
    int type = sqlite3_column_type(r->st, col);
    *s = 0;
    if (type == SQLITE_NULL) return TR_OK;
    if (type != SQLITE_TEXT) return sq_bad(r, "%s is not text", sqlite3_column_name(r->st, col));
    const unsigned char *p = sqlite3_column_text(r->st, col);
    int n = sqlite3_column_bytes(r->st, col);
    if (!p) return tr_error_nomem(r->e);
    *s = tr_str_intern(r->t, (const char *)p, (size_t)n);
    return TR_OK;
}

/* The model id of the database id in column COL through map M; NULL gives NONE when NULLABLE. */
static int sq_ref(sq_rd *r, int col, enum sq_map m, int nullable, uint32_t none, uint32_t *id)
{
    int64_t v;
    int rc = sq_int(r, col, nullable, INT64_MIN, &v);
    if (rc) return rc;
    if (v == INT64_MIN && sqlite3_column_type(r->st, col) == SQLITE_NULL) {
        *id = none;
        return TR_OK;
    }
    *id = tr_map_find(&r->map[m], (uint64_t)v);
    if (*id == UINT32_MAX)
        return sq_bad(r, "%s %lld names no row", sqlite3_column_name(r->st, col), (long long)v);
    return TR_OK;
}

/* Records that database id in column 0 is model id ID in map M; ids are unique. */
static int sq_keep(sq_rd *r, enum sq_map m, int col, uint32_t id)
{
    if (id == TR_NONE) return tr_trace_status(r->t, r->e) ? TR_FATAL : tr_error_nomem(r->e);
    int64_t key;
    int rc = sq_int(r, col, 0, 0, &key), is_new;
    if (rc) return rc;
    uint32_t *slot = tr_map_slot(&r->map[m], (uint64_t)key, &is_new);
    if (!slot) return tr_error_nomem(r->e);
    if (!is_new)
        return sq_bad(r, "%s %lld is not unique", sqlite3_column_name(r->st, col), (long long)key);
    *slot = id;
    return TR_OK;
}

/* ---- inputs, processes, tracks ---- */

static int sq_input_row(sq_rd *r)
{
    tr_str path, format, origin, clock;
    int64_t unix_ns, rank, skipped, warnings;
    uint32_t meta;
    int rc = sq_text(r, 1, &path);
    if (!rc) rc = sq_text(r, 2, &format);
    if (!rc) rc = sq_text(r, 3, &origin);
    if (!rc) rc = sq_int(r, 4, 1, INT64_MIN, &unix_ns);
    if (!rc) rc = sq_text(r, 5, &clock);
    if (!rc) rc = sq_range(r, 6, 1, -1, 0, INT32_MAX, &rank);
    if (!rc) rc = sq_range(r, 7, 0, 0, 0, INT64_MAX, &skipped);
    if (!rc) rc = sq_range(r, 8, 0, 0, 0, INT64_MAX, &warnings);
    if (!rc) rc = sq_ref(r, 9, M_SET, 1, 0, &meta);
    if (rc) return rc;
    uint32_t id = r->input;
    if (r->row > 1)
        id = tr_input_add(r->t, tr_str_get(r->t, path, NULL), tr_str_get(r->t, format, NULL));
    if ((rc = sq_keep(r, M_INPUT, 0, id))) return rc;
    tr_input_info *in = tr_input_at(r->t, id);
    in->path = path;
    in->format = format;
    in->origin_wall = origin;
    in->origin_unix_ns = unix_ns;
    in->clock = clock;
    if (in->rank < 0) in->rank = (int32_t)rank; /* --rank on the database wins */
    in->lines_skipped = (uint64_t)skipped;
    in->warnings = (uint64_t)warnings;
    in->meta = meta;
    return TR_OK;
}

static int sq_process_row(sq_rd *r)
{
    int64_t pid, rank, sort;
    tr_str name, host, labels;
    uint32_t input;
    int rc = sq_int(r, 1, 1, -1, &pid);
    if (!rc) rc = sq_text(r, 2, &name);
    if (!rc) rc = sq_range(r, 3, 1, -1, 0, INT32_MAX, &rank);
    if (!rc) rc = sq_text(r, 4, &host);
    if (!rc) rc = sq_text(r, 5, &labels);
    if (!rc) rc = sq_range(r, 6, 1, 0, INT32_MIN, INT32_MAX, &sort);
    if (!rc) rc = sq_ref(r, 7, M_INPUT, 0, 0, &input);
    if (rc) return rc;
    size_t before = tr_process_count(r->t);
    uint32_t id = tr_process_intern_on(r->t, input, host, pid);
    if (id != TR_NONE && tr_process_count(r->t) == before)
        return sq_bad(r, "%s %lld is a second process of that pid and host", "pid", (long long)pid);
    if ((rc = sq_keep(r, M_PROCESS, 0, id))) return rc;
    tr_process *p = tr_process_at(r->t, id);
    p->name = name;
    p->rank = (int32_t)rank;
    p->labels = labels;
    p->sort_index = (int32_t)sort;
    return TR_OK;
}

static int sq_kind(sq_rd *r, int col, int *kind)
{
    const unsigned char *s = sqlite3_column_text(r->st, col);
    for (int k = 0; s && k < TR_TRACK_KIND_COUNT; k++)
        if (strcmp((const char *)s, tr_track_kind_name(k)) == 0) {
            *kind = k;
            return TR_OK;
        }
    return sq_bad(r, "%s is not a track kind", "kind");
}

static int sq_track_row(sq_rd *r)
{
    tr_str name;
    int kind = 0;
    uint32_t process;
    int64_t tid, sort;
    int rc = sq_text(r, 1, &name);
    if (!rc) rc = sq_kind(r, 2, &kind);
    if (!rc) rc = sq_ref(r, 3, M_PROCESS, 0, 0, &process);
    if (!rc) rc = sq_int(r, 4, 1, -1, &tid);
    if (!rc) rc = sq_range(r, 5, 1, 0, INT32_MIN, INT32_MAX, &sort);
    if (rc) return rc;
    size_t before = tr_track_count(r->t);
    uint32_t id = tr_track_intern(r->t, process, kind, tid, name);
    if (id != TR_NONE && tr_track_count(r->t) == before) {
        /* Two lanes of one name (a key renamed by its reader): this one's id tells it apart. */
        char key[48];
        snprintf(key, sizeof key, "\x01track %lld", (long long)sqlite3_column_int64(r->st, 0));
        id = tr_track_intern(r->t, process, kind, tid, tr_str_internz(r->t, key));
    }
    if ((rc = sq_keep(r, M_TRACK, 0, id))) return rc;
    tr_track *k = tr_track_at(r->t, id);
    k->name = name;
    k->sort_index = (int32_t)sort;
    k->nesting = TR_NEST_GIVEN; /* slice.parent_id states the nesting */
    return TR_OK;
}

/* ---- args ---- */

static int sq_set_end(sq_rd *r)
{
    if (!r->in_set) return TR_OK;
    r->in_set = 0;
    uint32_t id = tr_args_end(r->t);
    int is_new;
    uint32_t *slot = tr_map_slot(&r->map[M_SET], (uint64_t)r->set_id, &is_new);
    if (!slot) return tr_error_nomem(r->e);
    *slot = id;
    return TR_OK;
}

/*
** A uint: int_value up to INT64_MAX, real_value above (as SQLite holds it):
** 2^64 there is a value the double rounded up (UINT64_MAX does), read as
** UINT64_MAX.
*/
static int sq_uint(sq_rd *r, uint64_t *u)
{
    if (sqlite3_column_type(r->st, 3) == SQLITE_INTEGER) {
        int64_t v = sqlite3_column_int64(r->st, 3);
        if (v < 0) return sq_bad(r, "%s %lld of a uint is negative", "int_value", (long long)v);
        *u = (uint64_t)v;
        return TR_OK;
    }
    double d = sqlite3_column_double(r->st, 5);
    if (sqlite3_column_type(r->st, 5) != SQLITE_FLOAT || !(d >= 0x1p63 && d <= 0x1p64))
        return sq_bad(r, "%s of a uint is missing", "int_value");
    *u = d < 0x1p64 ? (uint64_t)d : UINT64_MAX;
    return TR_OK;
}

static int sq_arg_value(sq_rd *r, tr_str key, const char *type)
{
    int64_t i;
    tr_str s;
    uint64_t u = 0;
    int rc;
    if (strcmp(type, "int") == 0 || strcmp(type, "bool") == 0) {
        if ((rc = sq_int(r, 3, 0, 0, &i))) return rc;
        if (type[0] == 'i')
            tr_args_int(r->t, key, i);
        else
            tr_args_bool(r->t, key, i != 0);
    } else if (strcmp(type, "uint") == 0) {
        if ((rc = sq_uint(r, &u))) return rc;
        tr_args_uint(r->t, key, u);
    } else if (strcmp(type, "string") == 0) {
        if ((rc = sq_text(r, 4, &s))) return rc;
        tr_args_str(r->t, key, s);
    } else if (strcmp(type, "real") == 0) {
        int t = sqlite3_column_type(r->st, 5);
        if (t != SQLITE_NULL && t != SQLITE_FLOAT && t != SQLITE_INTEGER)
            return sq_bad(r, "%s is not a number", "real_value");
        /* NaN is stored as NULL */
        tr_args_real(r->t, key, t == SQLITE_NULL ? NAN : sqlite3_column_double(r->st, 5));
    } else {
        return sq_bad(r, "%s is not a value type", "value_type");
    }
    return TR_OK;
}

static int sq_arg_row(sq_rd *r)
{
    int64_t set;
    tr_str key;
    int rc = sq_range(r, 0, 0, 0, 1, INT64_MAX, &set);
    if (!rc) rc = sq_text(r, 1, &key);
    if (rc) return rc;
    if (!r->in_set || set != r->set_id) {
        if ((rc = sq_set_end(r))) return rc;
        tr_args_begin(r->t);
        r->in_set = 1;
        r->set_id = set;
    }
    const unsigned char *type = sqlite3_column_text(r->st, 2);
    return sq_arg_value(r, key, type ? (const char *)type : "");
}

/* ---- stacks ---- */

static int sq_frame_row(sq_rd *r)
{
    tr_frame f = {0, 0, 0, 0, 0};
    int64_t line, native;
    int rc = sq_text(r, 1, &f.function);
    if (!rc) rc = sq_text(r, 2, &f.file);
    if (!rc) rc = sq_range(r, 3, 1, 0, INT32_MIN, INT32_MAX, &line);
    if (!rc) rc = sq_text(r, 4, &f.module);
    if (!rc) rc = sq_range(r, 5, 0, 0, 0, 1, &native);
    if (rc) return rc;
    f.line = (int32_t)line;
    f.is_native = (int)native;
    return sq_keep(r, M_FRAME, 0, tr_frame_intern(r->t, &f));
}

/* A callsite's parent comes before it: the rows are read by id, and a parent is made first. */
static int sq_callsite_row(sq_rd *r)
{
    uint32_t parent, frame;
    int rc = sq_ref(r, 1, M_CALLSITE, 1, 0, &parent);
    if (!rc) rc = sq_ref(r, 2, M_FRAME, 0, 0, &frame);
    if (rc) return rc;
    return sq_keep(r, M_CALLSITE, 0, tr_stack_push(r->t, parent, frame));
}

/* ---- events ---- */

static int sq_slice_row(sq_rd *r)
{
    int64_t ts, dur, bytes;
    uint32_t track, parent, args;
    tr_str cat, name;
    int rc = sq_int(r, 1, 0, 0, &ts);
    if (!rc) rc = sq_range(r, 2, 0, 0, -1, INT64_MAX, &dur);
    if (!rc) rc = sq_ref(r, 3, M_TRACK, 0, 0, &track);
    if (!rc) rc = sq_text(r, 4, &cat);
    if (!rc) rc = sq_text(r, 5, &name);
    if (!rc) rc = sq_ref(r, 6, M_SLICE, 1, TR_NONE, &parent);
    if (!rc) rc = sq_ref(r, 7, M_SET, 1, 0, &args);
    if (!rc) rc = sq_range(r, 8, 1, -1, 0, INT64_MAX, &bytes);
    int64_t tts, tdur;
    if (!rc) rc = sq_range(r, 9, 1, TR_TIME_NONE, INT64_MIN + 1, INT64_MAX, &tts);
    if (!rc) rc = sq_range(r, 10, 1, TR_TIME_NONE, INT64_MIN + 1, INT64_MAX, &tdur);
    if (rc) return rc;
    uint32_t row = tr_slice_add(r->t, track, ts, dur, name, cat, bytes, args);
    if ((rc = sq_keep(r, M_SLICE, 0, row))) return rc;
    tr_slice_set_parent(r->t, row, parent);
    tr_slice_set_thread_time(r->t, row, tts, tdur);
    return TR_OK;
}

static int sq_instant_row(sq_rd *r)
{
    static const char *const scopes[] = {"thread", "process", "global"};
    int64_t ts, bytes;
    uint32_t track, args;
    tr_str cat, name;
    int rc = sq_int(r, 1, 0, 0, &ts);
    if (!rc) rc = sq_ref(r, 2, M_TRACK, 0, 0, &track);
    if (!rc) rc = sq_text(r, 3, &cat);
    if (!rc) rc = sq_text(r, 4, &name);
    if (!rc) rc = sq_ref(r, 6, M_SET, 1, 0, &args);
    if (!rc) rc = sq_range(r, 7, 1, -1, 0, INT64_MAX, &bytes);
    if (rc) return rc;
    const unsigned char *s = sqlite3_column_text(r->st, 5);
    int scope = 0;
    while (scope < 3 && !(s && strcmp((const char *)s, scopes[scope]) == 0)) scope++;
    if (scope == 3) return sq_bad(r, "%s is not a scope", "scope");
    return sq_keep(r, M_INSTANT, 0, tr_instant_add(r->t, track, ts, name, cat, scope, bytes, args));
}

static int sq_counter_row(sq_rd *r)
{
    int64_t ts;
    uint32_t track;
    int rc = sq_int(r, 0, 0, 0, &ts);
    if (!rc) rc = sq_ref(r, 1, M_TRACK, 0, 0, &track);
    if (rc) return rc;
    int t = sqlite3_column_type(r->st, 2);
    if (t != SQLITE_NULL && t != SQLITE_FLOAT && t != SQLITE_INTEGER)
        return sq_bad(r, "%s is not a number", "value");
    double v = t == SQLITE_NULL ? NAN : sqlite3_column_double(r->st, 2); /* NaN is stored as NULL */
    if (tr_counter_add(r->t, track, ts, v) == TR_NONE) return tr_trace_status(r->t, r->e);
    return TR_OK;
}

static int sq_sample_row(sq_rd *r)
{
    int64_t ts;
    uint32_t track, stack, args;
    int rc = sq_int(r, 0, 0, 0, &ts);
    if (!rc) rc = sq_ref(r, 1, M_TRACK, 0, 0, &track);
    if (!rc) rc = sq_ref(r, 2, M_CALLSITE, 1, 0, &stack);
    if (!rc) rc = sq_ref(r, 3, M_SET, 1, 0, &args);
    if (rc) return rc;
    if (tr_sample_add(r->t, track, ts, stack, args) == TR_NONE) return tr_trace_status(r->t, r->e);
    return TR_OK;
}

/* One end of a flow: the slice in column SCOL or the instant in column ICOL, exactly one. */
static int sq_flow_end(sq_rd *r, int scol, int icol, tr_ref *ref)
{
    uint32_t slice, instant;
    int rc = sq_ref(r, scol, M_SLICE, 1, TR_NONE, &slice);
    if (!rc) rc = sq_ref(r, icol, M_INSTANT, 1, TR_NONE, &instant);
    if (rc) return rc;
    if ((slice == TR_NONE) == (instant == TR_NONE))
        return sq_bad(r, "not exactly one of %s and %s is set", sqlite3_column_name(r->st, scol),
                      sqlite3_column_name(r->st, icol));
    *ref = slice != TR_NONE ? TR_REF(TR_EV_SLICE, slice) : TR_REF(TR_EV_INSTANT, instant);
    return TR_OK;
}

static int sq_flow_row(sq_rd *r)
{
    tr_flow f;
    int64_t id;
    int rc = sq_flow_end(r, 0, 2, &f.from);
    if (!rc) rc = sq_flow_end(r, 1, 3, &f.to);
    if (!rc) rc = sq_text(r, 4, &f.name);
    if (!rc) rc = sq_text(r, 5, &f.cat);
    if (!rc) rc = sq_int(r, 6, 0, 0, &id);
    if (rc) return rc;
    f.id = (uint64_t)id;
    if (tr_flow_add(r->t, &f) == TR_NONE) return tr_trace_status(r->t, r->e);
    return TR_OK;
}

/* ---- the tables, in the order their references need ---- */

typedef struct sq_phase {
    const char *table;
    const char *sql;
    int (*row)(sq_rd *r);
} sq_phase;

/* Schema 4 leaves out GT args that other columns hold: they come back in their places. */
static const char sq_args_v4_sql[] =
    "SELECT arg_set_id, key, value_type, int_value, string_value, real_value, id"
    " FROM __intrinsic_args UNION ALL SELECT arg_set_id, key, value_type, int_value,"
    " string_value, real_value, id FROM (" TR_SQLITE_GT_DROPPED_ARGS ") ORDER BY 1, 7";

/* Schema 5 packs a GT input's arg sets a row each: their args come back as rows. */
static const char sq_args_v5_sql[] =
    "SELECT arg_set_id, key, value_type, int_value, string_value, real_value, id"
    " FROM __intrinsic_args UNION ALL SELECT arg_set_id, key, value_type, int_value,"
    " string_value, real_value, id FROM (" TR_SQLITE_ARG_PACK_ROWS ") ORDER BY 1, 7";

/* Schema 2's slices had no thread times. */
static const char sq_slice_v2_sql[] =
    "SELECT id, ts, dur, track_id, category, name, parent_id, arg_set_id, bytes, NULL, NULL"
    " FROM slice ORDER BY id";

static const sq_phase sq_phases[] = {
    {"args",
     "SELECT arg_set_id, key, value_type, int_value, string_value, real_value"
     " FROM __intrinsic_args ORDER BY arg_set_id, id",
     sq_arg_row},
    {"trace_input",
     "SELECT id, path, format, origin, origin_unix_ns, clock, rank, lines_skipped, warnings,"
     " arg_set_id FROM trace_input ORDER BY id",
     sq_input_row},
    {"process",
     "SELECT upid, pid, name, rank, host, labels, sort_index, input_id FROM process ORDER BY upid",
     sq_process_row},
    {"track", "SELECT id, name, kind, upid, tid, sort_index FROM track ORDER BY id", sq_track_row},
    {"stack_profile_frame",
     "SELECT id, name, file, line, module, is_native FROM stack_profile_frame ORDER BY id",
     sq_frame_row},
    {"stack_profile_callsite",
     "SELECT id, parent_id, frame_id FROM stack_profile_callsite ORDER BY id", sq_callsite_row},
    {"slice",
     "SELECT id, ts, dur, track_id, category, name, parent_id, arg_set_id, bytes, thread_ts,"
     " thread_dur FROM slice ORDER BY id",
     sq_slice_row},
    {"instant",
     "SELECT id, ts, track_id, category, name, scope, arg_set_id, bytes FROM instant ORDER BY id",
     sq_instant_row},
    {"counter", "SELECT ts, track_id, value FROM counter ORDER BY id", sq_counter_row},
    {"stack_sample", "SELECT ts, track_id, callsite_id, arg_set_id FROM stack_sample ORDER BY id",
     sq_sample_row},
    {"flow",
     "SELECT slice_out, slice_in, instant_out, instant_in, name, category, flow_id FROM flow"
     " ORDER BY id",
     sq_flow_row},
};
#define SQ_NPHASES (int)(sizeof sq_phases / sizeof *sq_phases)

static const char *sq_table(const sq_rd *r)
{
    return r->phase < SQ_NPHASES ? sq_phases[r->phase].table : "meta";
}

/* ---- probe and open ---- */

static int sq_probe(const tr_peek *pk)
{
    return pk->head && pk->head_len >= 16 && memcmp(pk->head, "SQLite format 3", 16) == 0 ? 100 : 0;
}

/* The whole image into memory: SQLite reads it there, so a compressed database reads too. */
static int sq_slurp(sq_rd *r, tr_input *in)
{
    for (;;) {
        int rc = tr_buf_grow(&r->image, 1 << 20);
        if (rc) return tr_error_nomem(r->e);
        size_t got = 0;
        rc = tr_input_read(in, r->image.p + r->image.len, 1 << 20, &got, r->e);
        if (rc < 0) return rc;
        r->image.len += got;
        if (got == 0 || rc == TR_END) return TR_OK;
    }
}

static int sq_refuse(sq_rd *r, const char *why)
{
    tr_loc loc = {r->name, 0, 0, 0};
    return tr_errorf(r->e, TR_E_FORMAT, &loc,
                     "a SQLite database tracecat did not write (%s): read it with tracesql "
                     "or sqlite3",
                     why);
}

/* Ours: a meta table saying tool 'tracecat' and a schema this reader knows, and real tables. */
static int sq_check(sq_rd *r)
{
    sqlite3_stmt *st;
    tr_loc loc = {r->name, 0, 0, 0};
    if (sqlite3_prepare_v2(
            r->db, "SELECT count(*) FROM sqlite_schema WHERE name = 'meta' AND type = 'table'", -1,
            &st, NULL) != SQLITE_OK)
        return tr_errorf(r->e, TR_E_FORMAT, &loc, "%s", sqlite3_errmsg(r->db));
    int step = sqlite3_step(st), has_meta = step == SQLITE_ROW && sqlite3_column_int(st, 0) > 0;
    sqlite3_finalize(st);
    if (step != SQLITE_ROW) return tr_errorf(r->e, TR_E_FORMAT, &loc, "%s", sqlite3_errmsg(r->db));
    if (!has_meta) return sq_refuse(r, "no meta table");
    if (sqlite3_prepare_v2(r->db,
                           "SELECT (SELECT count(*) FROM meta WHERE key = 'tool' AND value ="
                           " 'tracecat'), (SELECT max(value) FROM meta WHERE key ="
                           " 'schema_version')",
                           -1, &st, NULL) != SQLITE_OK)
        return tr_errorf(r->e, TR_E_FORMAT, &loc, "meta: %s", sqlite3_errmsg(r->db));
    step = sqlite3_step(st);
    int ours = step == SQLITE_ROW && sqlite3_column_int(st, 0) > 0;
    int version = step == SQLITE_ROW ? sqlite3_column_int(st, 1) : 0;
    sqlite3_finalize(st);
    if (!ours) return sq_refuse(r, "its meta table names another tool");
    if (version < 2 || version > TR_SQLITE_SCHEMA_VERSION)
        return tr_errorf(r->e, TR_E_FORMAT, &loc,
                         "schema_version %d: this tracecat reads 2 to %d (tracesql may still read"
                         " it)",
                         version, TR_SQLITE_SCHEMA_VERSION);
    r->version = version;
    /* A view in a table's place could be any query: only stored tables are read. */
    if (sqlite3_prepare_v2(r->db, "SELECT type FROM sqlite_schema WHERE name = ?", -1, &st, NULL) !=
        SQLITE_OK)
        return sq_sqlite_error(r);
    int rc = TR_OK;
    static const char *const packs[] = {"__intrinsic_arg_pack", "__intrinsic_arg_key"};
    int n = SQ_NPHASES + (version >= 5 ? 2 : 0);
    for (int i = 0; i < n && !rc; i++) {
        const char *table = i == 0           ? "__intrinsic_args"
                            : i < SQ_NPHASES ? sq_phases[i].table
                                             : packs[i - SQ_NPHASES];
        sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
        const unsigned char *type = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_text(st, 0) : 0;
        if (!type || strcmp((const char *)type, "table") != 0)
            rc = tr_errorf(r->e, TR_E_FORMAT, &loc, "no table %s", table);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return rc;
}

static int sq_open(void **rdp, const tr_read_ctx *c, tr_error *e)
{
    sq_rd *r = tr_calloc(1, sizeof *r);
    *rdp = r;
    if (!r) return tr_error_nomem(e);
    r->e = e;
    r->name = tr_input_name(c->in);
    r->t = tr_sink_trace(c->sink);
    r->input = c->input;
    tr_buf_init(&r->image, 0);
    int rc = TR_OK;
    for (int m = 0; m < M_N && !rc; m++) rc = tr_map_init(&r->map[m], 16);
    if (rc) return tr_error_nomem(e);
    if ((rc = sq_slurp(r, c->in))) return rc;
    r->phase = SQ_NPHASES; /* errors until the first table name "meta" */
    tr_loc loc = {r->name, 0, 0, 0};
    if (sqlite3_open_v2(":memory:", &r->db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
        sqlite3_deserialize(r->db, "main", (unsigned char *)r->image.p, (sqlite3_int64)r->image.len,
                            (sqlite3_int64)r->image.len, SQLITE_DESERIALIZE_READONLY) != SQLITE_OK)
        return tr_errorf(e, TR_E_FORMAT, &loc, "%s",
                         r->db ? sqlite3_errmsg(r->db) : "cannot open a database");
    if ((rc = sq_check(r))) return rc;
    r->phase = 0;
    return TR_OK;
}

/* ---- reading ---- */

/* Prepares the current table's query. */
static int sq_next_table(sq_rd *r)
{
    r->row = 0;
    const sq_phase *p = &sq_phases[r->phase];
    const char *sql = r->version < 3 && p->row == sq_slice_row  ? sq_slice_v2_sql
                      : r->version == 4 && p->row == sq_arg_row ? sq_args_v4_sql
                      : r->version >= 5 && p->row == sq_arg_row ? sq_args_v5_sql
                                                                : p->sql;
    if (sqlite3_prepare_v2(r->db, sql, -1, &r->st, NULL) != SQLITE_OK) return sq_sqlite_error(r);
    return TR_OK;
}

static int sq_next(void *rd, tr_error *e)
{
    sq_rd *r = rd;
    r->e = e;
    for (int n = 0; n < TR_READ_BATCH; n++) {
        if (!r->st) {
            int rc = sq_next_table(r);
            if (rc) return rc;
        }
        int step = sqlite3_step(r->st);
        if (step == SQLITE_DONE) {
            sqlite3_finalize(r->st);
            r->st = NULL;
            int rc = sq_set_end(r);
            if (rc) return rc;
            if (++r->phase >= SQ_NPHASES) return TR_END;
            continue;
        }
        r->row++;
        if (step != SQLITE_ROW) return sq_sqlite_error(r);
        int rc = sq_phases[r->phase].row(r);
        if (rc) return rc;
    }
    return TR_OK;
}

static void sq_close(void *rd)
{
    sq_rd *r = rd;
    if (!r) return;
    sqlite3_finalize(r->st);
    sqlite3_close(r->db);
    for (int m = 0; m < M_N; m++) tr_map_fini(&r->map[m]);
    tr_buf_fini(&r->image);
    tr_free(r);
}

const tr_reader tr_reader_sqlite = {
    .abi = TR_READER_ABI,
    .name = "sqlite",
    .description = "a SQLite database tracecat wrote (tracecat convert -o x.db)",
    .extensions = "db,sqlite",
    .probe = sq_probe,
    .open = sq_open,
    .next = sq_next,
    .close = sq_close,
    .output = 1,
};
