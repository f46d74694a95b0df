/* load.c: picking readers for what the user named and reading it into a trace. */
#include "tr_format.h"

#include <string.h>
#include <sys/stat.h>

const tr_reader *tr_reader_find(const char *name)
{
    for (size_t i = 0; tr_readers[i]; i++)
        if (strcmp(tr_readers[i]->name, name) == 0) return tr_readers[i];
    return NULL;
}

const tr_reader *tr_probe(const tr_peek *pk, int *score)
{
    const tr_reader *best = NULL;
    int best_score = 0;
    for (size_t i = 0; tr_readers[i]; i++) {
        int s = tr_readers[i]->probe ? tr_readers[i]->probe(pk) : 0;
        if (s > best_score) {
            best = tr_readers[i];
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

static int register_input(tr_trace *t, const char *name, const tr_reader *r,
                          const tr_load_opts *o, uint32_t *input, tr_error *e)
{
    *input = tr_input_add(t, name, r->name);
    if (*input == TR_NONE) return tr_error_nomem(e);
    tr_input_at(t, *input)->rank = rank_for(o, name);
    return TR_OK;
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

/*
** Reads one stream.  REQUIRED says whether an unrecognised stream is an error
** (a single file) or just not part of the run (a file in a run folder).
*/
static int load_stream(tr_trace *t, tr_input *in, tr_load_opts *o, int required, tr_error *e)
{
    tr_input_set_diag(in, o->read.diag);
    const tr_reader *r = NULL;
    if (o->from) {
        r = tr_reader_find(o->from);
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
        r = tr_probe(&pk, NULL);
    }
    if (!r || !r->read) {
        if (!required) {
            o->streams_ignored++;
            return TR_OK;
        }
        tr_loc loc = {tr_input_name(in), 0, 0, 0};
        return tr_errorf(e, TR_E_FORMAT, &loc, "unrecognized format (try --from)");
    }
    uint32_t input;
    int rc = register_input(t, tr_input_name(in), r, o, &input, e);
    if (rc < 0) return rc;
    rc = r->read(in, t, input, &o->read, e);
    if (rc < 0) return rc;
    rc = tr_trace_status(t, e);
    if (rc < 0) return rc;
    apply_rank(t, input);
    return TR_OK;
}

/* A directory some reader takes as a whole (a Recorder rank directory). */
static const tr_reader *dir_reader(tr_source *src, const tr_load_opts *o)
{
    if (o->from) {
        const tr_reader *r = tr_reader_find(o->from);
        return r && r->read_dir ? r : NULL;
    }
    tr_peek pk = {tr_source_path(src), NULL, 0, 0, NULL, 0};
    pk.entries = tr_source_listing(src, &pk.n_entries);
    const tr_reader *best = NULL;
    int best_score = 0;
    for (size_t i = 0; tr_readers[i]; i++) {
        const tr_reader *r = tr_readers[i];
        int s = r->read_dir && r->probe ? r->probe(&pk) : 0;
        if (s > best_score) {
            best = r;
            best_score = s;
        }
    }
    return best;
}

int tr_load(tr_trace *t, const char *path, tr_load_opts *o, tr_error *e)
{
    if (o->from && !tr_reader_find(o->from))
        return tr_errorf(e, TR_E_USAGE, NULL, "unknown input format '%s'", o->from);
    tr_source *src;
    int rc = tr_source_open(&src, path, e);
    if (rc < 0) return rc;
    tr_source_set_progress(src, o->progress, o->progress_user);
    int kind = tr_source_kind(src);
    if (kind == TR_SOURCE_DIR) {
        const tr_reader *r = dir_reader(src, o);
        if (r) {
            uint32_t input;
            rc = register_input(t, path, r, o, &input, e);
            if (rc == TR_OK) rc = r->read_dir(path, t, input, &o->read, e);
            if (rc == TR_OK) rc = tr_trace_status(t, e);
            if (rc == TR_OK) apply_rank(t, input);
            tr_source_close(src);
            return rc < 0 ? rc : TR_OK;
        }
    }
    tr_input *in;
    int n_streams = 0;
    while ((rc = tr_source_next(src, &in, e)) == TR_OK) {
        n_streams++;
        rc = load_stream(t, in, o, kind == TR_SOURCE_STREAM, e);
        if (rc < 0) break;
    }
    tr_source_close(src);
    if (rc < 0) return rc;
    if (kind != TR_SOURCE_STREAM && n_streams > 0 && (uint64_t)n_streams == o->streams_ignored) {
        tr_loc loc = {path, 0, 0, 0};
        return tr_errorf(e, TR_E_FORMAT, &loc, "no file inside is a trace tracecat knows");
    }
    return TR_OK;
}
