/*
** load.c: picking readers for what the user named and reading it into a
** trace: the one probe loop, the one loop that drives a reader
** (open/next/close into a sink), and the walk of run folders.
*/
#include "tr_load.h"
#include "tr_mem.h"

#include <stdio.h>
#include <string.h>

const tr_reader *tr_reader_find(const tr_reader *const *table, const char *name)
{
    for (size_t i = 0; table && table[i]; i++)
        if (strcmp(table[i]->name, name) == 0) return table[i];
    return NULL;
}

/* The one probe loop: a directory listing asks only the readers of directories. */
const tr_reader *tr_probe(const tr_reader *const *table, const tr_peek *pk, int *score)
{
    const tr_reader *best = NULL;
    int best_score = 0;
    for (size_t i = 0; table && table[i]; i++) {
        const tr_reader *r = table[i];
        if (!r->probe || (pk->entries && !r->dirs)) continue;
        int s = r->probe(pk);
        if (s > best_score) {
            best = r;
            best_score = s;
        }
    }
    if (score) *score = best_score;
    return best;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

int tr_read(const tr_reader *r, const tr_read_ctx *c, tr_error *e)
{
    void *rd = NULL;
    const tr_trace *t = tr_sink_trace(c->sink);
    unsigned mark = tr_trace_read_failures(t); /* readers merge and copy sets they read back */
    c->sink->forget_now = r->streams;
    c->sink->low = INT64_MIN;
    int rc = r->open(&rd, c, e);
    while (rc == TR_OK) {
        rc = r->next(rd, e);
        if (rc != TR_OK && rc != TR_END) break;
        int f = tr_trace_status(t, e);
        if (f == TR_OK) f = tr_trace_reads_ok(t, mark, e);
        if (f == TR_OK) f = tr_sink_flush(c->sink, c->input, rc == TR_END, e);
        if (f != TR_OK) rc = f;
    }
    r->close(rd);
    return rc == TR_END ? TR_OK : rc;
}

int tr_read_stream(const tr_reader *r, tr_input *in, tr_trace *t, uint32_t input,
                   const tr_read_opts *o, tr_error *e)
{
    tr_sink sink;
    tr_sink_init(&sink, t, NULL, NULL);
    tr_read_ctx c = {in, NULL, &sink, input, o};
    return tr_read(r, &c, e);
}

/* One tr_load: where events go and the options readers see. */
typedef struct load_run {
    tr_sink sink;
    tr_load_opts *o;
    tr_read_opts read; /* o->read, threads from o->threads when it names none */
    uint64_t outputs;  /* streams of a run folder left out as tracecat's own outputs */
} load_run;

/* --rank FILE=N matches an input by its path as given, or by its file name. */
static int32_t rank_for(const tr_load_opts *o, const char *name)
{
    for (size_t i = 0; i < o->n_ranks; i++) {
        const char *want = o->ranks[i].path;
        if (strcmp(want, name) == 0 || strcmp(base_name(want), base_name(name)) == 0)
            return o->ranks[i].rank;
    }
    return -1;
}

/* A rank given on the command line wins over the one the source states. */
static void apply_rank(tr_trace *t, uint32_t input)
{
    int32_t rank = tr_input_get(t, input)->rank;
    if (rank < 0) return;
    for (size_t i = 0; i < tr_process_count(t); i++) {
        tr_process *p = tr_process_at(t, (uint32_t)i);
        if (p->input == input) p->rank = rank;
    }
}

/* Reads IN, or the directory D, as a new input named NAME with reader R. */
static int read_input(load_run *lr, const char *name, const tr_reader *r, tr_input *in, tr_dir *d,
                      tr_error *e)
{
    tr_trace *t = tr_sink_trace(&lr->sink);
    uint32_t input = tr_input_add(t, name, r->name);
    if (input == TR_NONE) return tr_error_nomem(e);
    tr_input_at(t, input)->rank = rank_for(lr->o, name);
    tr_read_ctx c = {in, d, &lr->sink, input, &lr->read};
    int rc = tr_read(r, &c, e);
    if (rc < 0) return rc;
    apply_rank(t, input);
    return TR_OK;
}

/*
** Reads one stream.  REQUIRED says whether an unrecognised stream is an error
** (a single file) or just not part of the run (a file in a run folder).
*/
static int load_stream(load_run *lr, tr_input *in, int required, tr_error *e)
{
    tr_load_opts *o = lr->o;
    tr_input_set_diag(in, o->read.diag);
    const tr_reader *r = NULL;
    if (o->from) {
        r = tr_reader_find(o->readers, o->from);
        if (!r) return tr_errorf(e, TR_E_USAGE, NULL, "unknown input format '%s'", o->from);
    } else {
        const unsigned char *head;
        size_t n;
        int rc = tr_input_peek(in, &head, &n, TR_PEEK_SIZE, e);
        if (rc < 0) return rc;
        if (n == 0 && required) {
            tr_loc loc = {tr_input_name(in), 0, 0, 0};
            return tr_errorf(e, TR_E_FORMAT, &loc, "empty input (use --from to read it anyway)");
        }
        tr_peek pk = {tr_input_name(in), head, n, n < TR_PEEK_SIZE, NULL, 0};
        r = tr_probe(o->readers, &pk, NULL);
    }
    if (!required && r && r->output && !o->from) {
        /* A database tracecat wrote beside the traces it came from would read them twice. */
        lr->outputs++;
        uint32_t k =
            tr_skipped_add(tr_sink_trace(&lr->sink), tr_input_name(in), NULL, TR_SKIP_OUTPUT);
        return k == TR_NONE ? tr_error_nomem(e) : TR_OK;
    }
    if (!r || !r->open) {
        if (!required) {
            o->streams_ignored++;
            uint32_t k =
                tr_skipped_add(tr_sink_trace(&lr->sink), tr_input_name(in), NULL, TR_SKIP_UNKNOWN);
            return k == TR_NONE ? tr_error_nomem(e) : TR_OK;
        }
        tr_loc loc = {tr_input_name(in), 0, 0, 0};
        return tr_errorf(e, TR_E_FORMAT, &loc, "unrecognized format (try --from)");
    }
    return read_input(lr, tr_input_name(in), r, in, NULL, e);
}

/* A directory (or archive) some reader takes as a whole (a Recorder rank directory). */
static const tr_reader *dir_reader(const char *path, const tr_dir *d, const tr_load_opts *o)
{
    if (o->from) {
        const tr_reader *r = tr_reader_find(o->readers, o->from);
        return r && r->dirs ? r : NULL;
    }
    size_t n;
    const char *const *names = tr_dir_names(d, &n);
    tr_peek pk = {path, NULL, 0, 0, names, n};
    return tr_probe(o->readers, &pk, NULL);
}

/*
** A run folder may hold whole-directory traces (a Recorder rank directory
** beside GT logs): each subdirectory a reader claims is read as one input,
** and the streaming walk then skips the files under it.
*/
typedef struct claimed_dirs {
    tr_vec prefixes; /* char *: relative paths of claimed or tested subdirectories */
    tr_vec claimed;  /* char *: stream names the claimed ones' files start with, "/" excluded */
    tr_vec outputs;  /* char *: those of claimed that are tracecat's own outputs, not read */
    tr_arena names;
    tr_vec sub;      /* const char *: the listing of the subdirectory being probed */
    tr_dir *listing; /* the archive's, kept for the streaming walk: which members are replaced */
} claimed_dirs;

static int prefix_seen(const tr_vec *v, const char *p, size_t n)
{
    for (size_t i = 0; i < v->len; i++) {
        const char *q = TR_VEC_AT(v, char *, i);
        if (strlen(q) == n && memcmp(q, p, n) == 0) return 1;
    }
    return 0;
}

/* The claimed directory (or archive of a run folder: "a.tgz:") NAME lies under, or NULL. */
static const char *claimed_owner(const claimed_dirs *c, const char *name)
{
    for (size_t i = 0; i < c->claimed.len; i++) {
        const char *dir = TR_VEC_AT(&c->claimed, char *, i);
        size_t n = strlen(dir);
        if (strncmp(name, dir, n) == 0 && (name[n] == '/' || (n && dir[n - 1] == ':'))) return dir;
    }
    return NULL;
}

/* Records that stream NAME is not read because it lies under claimed directory OWNER. */
static int skip_inside(load_run *lr, const claimed_dirs *c, const char *name, const char *owner,
                       tr_error *e)
{
    const char *rest = name + strlen(owner);
    int why = strstr(rest, "/_chrome/") || strstr(rest, "/_text/") ? TR_SKIP_RECORDER_OUTPUT
                                                                   : TR_SKIP_INSIDE;
    for (size_t i = 0; i < c->outputs.len; i++)
        if (TR_VEC_AT(&c->outputs, const char *, i) == owner) why = TR_SKIP_OUTPUT;
    if (tr_skipped_add(tr_sink_trace(&lr->sink), name, owner, why) == TR_NONE)
        return tr_error_nomem(e);
    return TR_OK;
}

/* The listing of subdirectory PREFIX (LEN bytes) of NAMES[I..N), sorted, into C->sub. */
static int sub_listing(claimed_dirs *c, const char *const *names, size_t i, size_t n,
                       const char *prefix, size_t len)
{
    c->sub.len = 0;
    for (size_t j = i; j < n; j++) {
        if (strncmp(names[j], prefix, len) != 0 || names[j][len] != '/') break;
        const char **at = tr_vec_push(&c->sub);
        if (!at) return TR_FATAL;
        *at = names[j] + len + 1;
    }
    return TR_OK;
}

/* Probes subdirectory PREFIX of D (NAMES[I] is its first file) and reads it when claimed. */
static int load_subdir(load_run *lr, tr_dir *d, const char *const *names, size_t i, size_t n,
                       size_t len, claimed_dirs *c, tr_error *e)
{
    char *prefix = tr_arena_strndup(&c->names, names[i], len);
    char **slot = prefix ? tr_vec_push(&c->prefixes) : NULL;
    if (!slot) return tr_error_nomem(e);
    *slot = prefix;
    const char *label = tr_dir_label(d);
    size_t full_n = strlen(label) + len + 1;
    char *full = tr_arena_alloc(&c->names, full_n);
    if (!full) return tr_error_nomem(e);
    snprintf(full, full_n, "%s%s", label, prefix);
    if (claimed_owner(c, full)) return TR_OK;
    if (sub_listing(c, names, i, n, prefix, len) != TR_OK) return tr_error_nomem(e);
    tr_peek pk = {full, NULL, 0, 0, (const char *const *)c->sub.data, c->sub.len};
    const tr_reader *r = tr_probe(lr->o->readers, &pk, NULL);
    if (!r) return TR_OK;
    char **claim = tr_vec_push(&c->claimed);
    if (!claim) return tr_error_nomem(e);
    *claim = full;
    if (r->output && !lr->o->from) {
        /* tracecat's Parquet output beside its sources: its files are left out, said why */
        char **out = tr_vec_push(&c->outputs);
        if (!out) return tr_error_nomem(e);
        *out = full;
        return TR_OK;
    }
    tr_dir *sub;
    int rc = tr_dir_open_sub(&sub, d, prefix, e);
    if (rc == TR_OK) rc = read_input(lr, full, r, NULL, sub, e);
    tr_dir_close(sub);
    return rc;
}

static int load_claimed_subdirs(load_run *lr, tr_dir *d, claimed_dirs *c, tr_error *e)
{
    size_t n;
    const char *const *names = tr_dir_names(d, &n);
    int rc = TR_OK;
    for (size_t i = 0; i < n && rc == TR_OK; i++) {
        for (const char *slash = strchr(names[i], '/'); slash && rc == TR_OK;
             slash = strchr(slash + 1, '/')) {
            size_t len = (size_t)(slash - names[i]);
            if (!prefix_seen(&c->prefixes, names[i], len))
                rc = load_subdir(lr, d, names, i, n, len, c, e);
        }
    }
    return rc;
}

/*
** A directory or archive: read whole when a reader claims it, else its
** claimed subdirectories.  TR_END: the streams are still to be read, as a
** run folder.  An archive that cannot be listed (a bad member) is left to
** the streaming walk, which reports what is wrong where it is.
*/
static int load_dir(load_run *lr, const char *path, int kind, claimed_dirs *c, tr_error *e)
{
    tr_dir *d;
    int rc = tr_dir_open(&d, path, e);
    if (rc != TR_OK) return kind == TR_SOURCE_ARCHIVE && rc != TR_FATAL ? TR_END : rc;
    const tr_reader *r = dir_reader(path, d, lr->o);
    if (r)
        rc = read_input(lr, path, r, NULL, d, e);
    else if (!lr->o->from)
        rc = load_claimed_subdirs(lr, d, c, e);
    if (r || rc != TR_OK) {
        tr_dir_close(d);
        return rc;
    }
    c->listing = d;
    return TR_END;
}

/*
** An archive in a run folder: its listing, for tar's rule (of members with
** one name the last wins), as c->listing is for an archive named itself.
*/
typedef struct nested_archive {
    tr_buf path; /* the archive listed, "" for none yet */
    tr_dir *listing;
} nested_archive;

/*
** The archive the stream SRC yielded last is a member of, listed in NA
** (NULL listing: none, or one that cannot be listed, which is read as it
** streams, errors and all); its ordinal, or -1.  *FRESH: its first member.
*/
static int64_t nested_member(nested_archive *na, const tr_source *src, int *fresh)
{
    const char *file;
    int64_t k = tr_source_member(src, &file);
    *fresh = 0;
    if (k < 0) return k;
    if (strcmp(na->path.p, file) != 0) {
        tr_dir_close(na->listing);
        na->listing = NULL;
        tr_buf_reset(&na->path);
        tr_error ignored;
        if (tr_buf_adds(&na->path, file) == TR_OK &&
            tr_dir_open(&na->listing, na->path.p, &ignored) != TR_OK)
            na->listing = NULL;
        *fresh = 1;
    }
    return k;
}

/*
** An archive of a run folder, at its first member, as load_dir takes the
** folder itself: read whole when a reader claims it (a Recorder trace's
** tarball), else its claimed subdirectories; its claimed members are then
** skipped as the walk meets them.
*/
static int nested_claims(load_run *lr, nested_archive *na, claimed_dirs *c, tr_error *e)
{
    const char *file = na->path.p;
    c->prefixes.len = 0; /* the folder's own subdirectories were probed before the walk */
    const tr_reader *r = dir_reader(file, na->listing, lr->o);
    if (!r) return lr->o->from ? TR_OK : load_claimed_subdirs(lr, na->listing, c, e);
    size_t n = strlen(file);
    char *claim = tr_arena_alloc(&c->names, n + 2);
    char **slot = claim ? tr_vec_push(&c->claimed) : NULL;
    if (!slot) return tr_error_nomem(e);
    snprintf(claim, n + 2, "%s:", file);
    *slot = claim;
    if (r->output && !lr->o->from) {
        char **out = tr_vec_push(&c->outputs);
        if (!out) return tr_error_nomem(e);
        *out = claim;
        return TR_OK;
    }
    return read_input(lr, file, r, NULL, na->listing, e);
}

static int load_streams(load_run *lr, tr_source *src, int kind, claimed_dirs *c, tr_error *e)
{
    tr_load_opts *o = lr->o;
    tr_input *in;
    int rc, n_streams = 0;
    uint64_t ignored = o->streams_ignored;
    nested_archive na = {.listing = NULL};
    tr_buf_init(&na.path, 0);
    for (size_t k = 0; (rc = tr_source_next(src, &in, e)) == TR_OK; k++) {
        int fresh = 0;
        int64_t member = kind == TR_SOURCE_DIR ? nested_member(&na, src, &fresh) : -1;
        if (fresh && na.listing && (rc = nested_claims(lr, &na, c, e)) < 0) break;
        const char *owner = claimed_owner(c, tr_input_name(in));
        if (owner) {
            rc = skip_inside(lr, c, tr_input_name(in), owner, e);
            if (rc < 0) break;
            continue;
        }
        if ((kind == TR_SOURCE_ARCHIVE && c->listing && tr_dir_shadowed(c->listing, k)) ||
            (member >= 0 && na.listing && tr_dir_shadowed(na.listing, (size_t)member))) {
            if (tr_skipped_add(tr_sink_trace(&lr->sink), tr_input_name(in), NULL,
                               TR_SKIP_REPLACED) == TR_NONE) {
                rc = tr_error_nomem(e);
                break;
            }
            continue;
        }
        n_streams++;
        rc = load_stream(lr, in, kind == TR_SOURCE_STREAM, e);
        if (rc < 0) break;
    }
    tr_dir_close(na.listing);
    tr_buf_fini(&na.path);
    if (rc < 0) return rc;
    tr_loc loc = {tr_source_path(src), 0, 0, 0};
    /* Nothing read is not an empty trace (NUL bytes, or /dev/zero, read as a tar with no members).
     */
    if (kind == TR_SOURCE_STREAM || c->claimed.len > c->outputs.len ||
        (uint64_t)n_streams != o->streams_ignored - ignored + lr->outputs)
        return TR_OK;
    if (c->outputs.len || lr->outputs)
        return tr_errorf(e, TR_E_FORMAT, &loc,
                         "no trace inside, only what tracecat writes (a SQLite database, a Parquet "
                         "directory): name a database itself to read it");
    if (n_streams > 0)
        return tr_errorf(e, TR_E_FORMAT, &loc, "no file inside is a trace tracecat knows");
    return tr_errorf(e, TR_E_FORMAT, &loc,
                     kind == TR_SOURCE_DIR
                         ? "an empty directory: no file inside is a trace tracecat knows"
                         : "an archive with no files (or only NUL bytes): no trace inside");
}

/*
** PATH with "//" and "/./" collapsed and trailing slashes and "/." dropped,
** into the arena: "run/", "run//" and "run/." name the same inputs, as
** "run" does (".." is kept: through a symlink it is not the parent).
*/
static const char *normal_path(tr_arena *a, const char *path)
{
    size_t n = strlen(path);
    char *out = tr_arena_alloc(a, n + 1);
    if (!out) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (path[i] == '/' && k > 0 && out[k - 1] == '/') continue;
        if (path[i] == '.' && k > 0 && out[k - 1] == '/' && (path[i + 1] == '/' || !path[i + 1]))
            continue;
        out[k++] = path[i];
    }
    while (k > 1 && out[k - 1] == '/') k--;
    out[k] = '\0';
    return out;
}

int tr_load(tr_trace *t, const char *path, tr_load_opts *o, tr_error *e)
{
    if (o->from && !tr_reader_find(o->readers, o->from))
        return tr_errorf(e, TR_E_USAGE, NULL, "unknown input format '%s'", o->from);
    tr_arena names;
    tr_arena_init(&names);
    path = strcmp(path, "-") == 0 ? path : normal_path(&names, path);
    tr_source *src;
    int rc = path ? tr_source_open(&src, path, e) : tr_error_nomem(e);
    if (rc < 0) {
        tr_arena_fini(&names);
        return rc;
    }
    tr_source_set_progress(src, o->progress, o->progress_user);
    int kind = tr_source_kind(src);
    load_run lr = {.o = o, .read = o->read};
    tr_sink_init(&lr.sink, t, o->consume, o->consume_user);
    lr.sink.forget = o->consume && o->consume_forgets;
    /* What a forgetting sink keeps is what still grows: its arg sets are sealed as they fill. */
    if (lr.sink.forget)
        tr_trace_args_raw(t, 0);
    else if (o->args_raw)
        tr_trace_args_raw(t, o->args_raw);
    if (lr.read.threads <= 0) lr.read.threads = o->threads;
    claimed_dirs claimed;
    tr_vec_init(&claimed.prefixes, sizeof(char *));
    tr_vec_init(&claimed.claimed, sizeof(char *));
    tr_vec_init(&claimed.outputs, sizeof(char *));
    tr_vec_init(&claimed.sub, sizeof(const char *));
    tr_arena_init(&claimed.names);
    claimed.listing = NULL;
    /* Standard input cannot be read twice: an archive there is only a run folder. */
    rc = kind == TR_SOURCE_STREAM || strcmp(path, "-") == 0
             ? TR_END
             : load_dir(&lr, path, kind, &claimed, e);
    if (rc == TR_END) rc = load_streams(&lr, src, kind, &claimed, e);
    tr_source_close(src);
    tr_dir_close(claimed.listing);
    tr_vec_fini(&claimed.prefixes);
    tr_vec_fini(&claimed.claimed);
    tr_vec_fini(&claimed.outputs);
    tr_vec_fini(&claimed.sub);
    tr_arena_fini(&claimed.names);
    tr_arena_fini(&names);
    return rc;
}
