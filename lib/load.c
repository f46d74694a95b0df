/* load.c: picking readers for what the user named and reading it into a trace. */
#include "tr_load.h"
#include "tr_mem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
        if (!r->probe || (pk->entries && !r->read_dir)) continue;
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

static int register_input(tr_trace *t, const char *name, const tr_reader *r, const tr_load_opts *o,
                          uint32_t *input, tr_error *e)
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

/* A directory (or archive) some reader takes as a whole (a Recorder rank directory). */
static const tr_reader *dir_reader(const char *path, const char *const *entries, size_t n,
                                   const tr_load_opts *o)
{
    if (o->from) {
        const tr_reader *r = tr_reader_find(o->readers, o->from);
        return r && r->read_dir ? r : NULL;
    }
    tr_peek pk = {path, NULL, 0, 0, entries, n};
    return tr_probe(o->readers, &pk, NULL);
}

static int read_whole_dir(tr_trace *t, const char *path, const char *dir, const tr_reader *r,
                          tr_load_opts *o, tr_error *e)
{
    uint32_t input;
    int rc = register_input(t, path, r, o, &input, e);
    if (rc == TR_OK) rc = r->read_dir(dir, t, input, &o->read, e);
    if (rc == TR_OK) rc = tr_trace_status(t, e);
    if (rc == TR_OK) apply_rank(t, input);
    return rc < 0 ? rc : TR_OK;
}

/*
** Archives of a whole-directory format (a tarball of a Recorder trace): the
** members are listed in one pass, and when a reader claims the listing they
** are extracted to a temporary directory under $TMPDIR, read from there and
** removed.  Returns TR_END when no reader claims the archive.
*/
typedef struct extracted {
    tr_arena names;
    tr_vec made; /* const char *: files and directories created, in order */
} extracted;

/* The member name of IN, or NULL for names that could escape the directory. */
static const char *member_name(const char *path, tr_input *in)
{
    const char *name = tr_input_name(in);
    size_t n = strlen(path);
    if (strncmp(name, path, n) != 0 || name[n] != ':') return NULL;
    name += n + 1;
    while (name[0] == '.' && name[1] == '/') name += 2;
    if (!*name || *name == '/') return NULL;
    for (const char *c = name; *c; c = strchr(c, '/') ? strchr(c, '/') + 1 : "")
        if (c[0] == '.' && c[1] == '.' && (c[2] == '/' || !c[2])) return NULL;
    return name;
}

static int extract_note(extracted *x, const char *p, tr_error *e)
{
    const char **slot = tr_vec_push(&x->made);
    if (!slot || !(*slot = tr_arena_strndup(&x->names, p, strlen(p)))) return tr_error_nomem(e);
    return TR_OK;
}

/* Writes IN to ROOT/NAME, making the directories on the way. */
static int extract_member(extracted *x, const char *root, const char *name, tr_input *in,
                          tr_error *e)
{
    tr_buf p;
    tr_buf_init(&p, 0);
    int rc = tr_buf_addf(&p, "%s/%s", root, name) == TR_OK ? TR_OK : tr_error_nomem(e);
    for (char *c = p.p + strlen(root) + 1; rc == TR_OK && (c = strchr(c, '/')) != NULL; c++) {
        *c = '\0';
        if (mkdir(p.p, 0700) == 0)
            rc = extract_note(x, p.p, e);
        else if (errno != EEXIST)
            rc = tr_error_errno(e, errno, NULL, "cannot create %s", p.p);
        *c = '/';
    }
    int fd = rc == TR_OK ? open(p.p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600) : -1;
    if (rc == TR_OK && fd < 0) rc = tr_error_errno(e, errno, NULL, "cannot create %s", p.p);
    if (fd >= 0) rc = extract_note(x, p.p, e);
    char buf[65536];
    size_t got;
    while (rc == TR_OK && (rc = tr_input_read(in, buf, sizeof buf, &got, e)) == TR_OK && got) {
        if (write(fd, buf, got) != (ssize_t)got)
            rc = tr_error_errno(e, errno, NULL, "cannot write %s", p.p);
    }
    if (fd >= 0 && close(fd) != 0 && rc == TR_OK)
        rc = tr_error_errno(e, errno, NULL, "cannot write %s", p.p);
    tr_buf_fini(&p);
    return rc;
}

/* Lists the members of the archive PATH into LIST (names kept in X). */
static int list_archive(const char *path, tr_vec *list, extracted *x, tr_error *e)
{
    tr_source *src;
    tr_input *in;
    int rc = tr_source_open(&src, path, e);
    if (rc < 0) return rc;
    /* A bad member ends the listing; the stream path reports it properly. */
    while ((rc = tr_source_next(src, &in, e)) == TR_OK) {
        const char *m = member_name(path, in);
        const char **slot = m ? tr_vec_push(list) : NULL;
        if (m && (!slot || !(*slot = tr_arena_strndup(&x->names, m, strlen(m))))) {
            rc = tr_error_nomem(e);
            break;
        }
    }
    tr_source_close(src);
    return rc == TR_FATAL ? rc : TR_OK;
}

static int extract_archive(const char *path, const char *root, extracted *x, tr_error *e)
{
    tr_source *src;
    tr_input *in;
    int rc = tr_source_open(&src, path, e);
    if (rc < 0) return rc;
    while ((rc = tr_source_next(src, &in, e)) == TR_OK) {
        const char *m = member_name(path, in);
        if (m && (rc = extract_member(x, root, m, in, e)) < 0) break;
    }
    tr_source_close(src);
    return rc < 0 ? rc : TR_OK;
}

static int load_archive_dir(tr_trace *t, const char *path, tr_load_opts *o, tr_error *e)
{
    tr_vec list;
    extracted x;
    tr_vec_init(&list, sizeof(const char *));
    tr_arena_init(&x.names);
    tr_vec_init(&x.made, sizeof(const char *));
    int rc = list_archive(path, &list, &x, e);
    const tr_reader *r =
        rc == TR_OK ? dir_reader(path, (const char *const *)list.data, list.len, o) : NULL;
    if (rc == TR_OK && !r) rc = TR_END;
    if (r) {
        const char *tmp = getenv("TMPDIR");
        char root[4096];
        snprintf(root, sizeof root, "%s/tracecat-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(root))
            return tr_error_errno(e, errno, NULL, "cannot create a directory under %s",
                                  tmp && *tmp ? tmp : "/tmp");
        rc = extract_archive(path, root, &x, e);
        if (rc == TR_OK) rc = read_whole_dir(t, path, root, r, o, e);
        /* Errors name the archive, not the temporary copy. */
        size_t rn = strlen(root);
        if (rc < 0 && strncmp(e->file, root, rn) == 0 && e->file[rn] == '/') {
            tr_buf f;
            tr_buf_init(&f, 0);
            if (tr_buf_addf(&f, "%s:%s", path, e->file + rn + 1) == TR_OK) {
                size_t n = f.len < sizeof e->file - 1 ? f.len : sizeof e->file - 1;
                memcpy(e->file, f.p, n);
                e->file[n] = '\0';
            }
            tr_buf_fini(&f);
        }
        for (size_t i = x.made.len; i-- > 0;) remove(TR_VEC_AT(&x.made, const char *, i));
        rmdir(root);
    }
    tr_vec_fini(&list);
    tr_vec_fini(&x.made);
    tr_arena_fini(&x.names);
    return rc;
}

/*
** A run folder may hold whole-directory traces (a Recorder rank directory
** beside GT logs): each subdirectory a reader claims is read as one input,
** and the streaming walk then skips the files under it.
*/
typedef struct claimed_dirs {
    tr_vec prefixes; /* char *: relative paths of claimed or tested subdirectories */
    tr_vec claimed;  /* char *: full paths of the claimed ones */
    tr_arena names;
} claimed_dirs;

static int prefix_seen(const tr_vec *v, const char *p, size_t n)
{
    for (size_t i = 0; i < v->len; i++) {
        const char *q = TR_VEC_AT(v, char *, i);
        if (strlen(q) == n && memcmp(q, p, n) == 0) return 1;
    }
    return 0;
}

static int under_claimed(const claimed_dirs *c, const char *name)
{
    for (size_t i = 0; i < c->claimed.len; i++) {
        const char *dir = TR_VEC_AT(&c->claimed, char *, i);
        size_t n = strlen(dir);
        if (strncmp(name, dir, n) == 0 && name[n] == '/') return 1;
    }
    return 0;
}

static int load_claimed_subdirs(tr_trace *t, const char *path, const char *const *entries, size_t n,
                                tr_load_opts *o, claimed_dirs *c, tr_error *e)
{
    tr_vec sub;
    tr_vec_init(&sub, sizeof(const char *));
    int rc = TR_OK;
    for (size_t i = 0; i < n && rc == TR_OK; i++) {
        for (const char *slash = strchr(entries[i], '/'); slash && rc == TR_OK;
             slash = strchr(slash + 1, '/')) {
            size_t len = (size_t)(slash - entries[i]);
            if (prefix_seen(&c->prefixes, entries[i], len)) continue;
            char *prefix = tr_arena_strndup(&c->names, entries[i], len);
            char **slot = prefix ? tr_vec_push(&c->prefixes) : NULL;
            if (!slot) {
                rc = tr_error_nomem(e);
                break;
            }
            *slot = prefix;
            size_t full_n = strlen(path) + len + 2;
            char *full = tr_arena_alloc(&c->names, full_n);
            if (!full) {
                rc = tr_error_nomem(e);
                break;
            }
            snprintf(full, full_n, "%s/%s", path, prefix);
            if (under_claimed(c, full)) continue;
            sub.len = 0;
            for (size_t j = i; j < n; j++) {
                if (strncmp(entries[j], prefix, len) != 0 || entries[j][len] != '/') break;
                const char **at = tr_vec_push(&sub);
                if (!at) {
                    rc = tr_error_nomem(e);
                    break;
                }
                *at = entries[j] + len + 1;
            }
            if (rc != TR_OK) break;
            tr_peek pk = {full, NULL, 0, 0, (const char *const *)sub.data, sub.len};
            const tr_reader *r = tr_probe(o->readers, &pk, NULL);
            if (!r) continue;
            char **claim = tr_vec_push(&c->claimed);
            if (!claim) {
                rc = tr_error_nomem(e);
                break;
            }
            *claim = full;
            rc = read_whole_dir(t, full, full, r, o, e);
        }
    }
    tr_vec_fini(&sub);
    return rc;
}

int tr_load(tr_trace *t, const char *path, tr_load_opts *o, tr_error *e)
{
    if (o->from && !tr_reader_find(o->readers, o->from))
        return tr_errorf(e, TR_E_USAGE, NULL, "unknown input format '%s'", o->from);
    tr_source *src;
    int rc = tr_source_open(&src, path, e);
    if (rc < 0) return rc;
    tr_source_set_progress(src, o->progress, o->progress_user);
    int kind = tr_source_kind(src);
    claimed_dirs claimed;
    tr_vec_init(&claimed.prefixes, sizeof(char *));
    tr_vec_init(&claimed.claimed, sizeof(char *));
    tr_arena_init(&claimed.names);
    if (kind == TR_SOURCE_DIR) {
        size_t n;
        const char *const *entries = tr_source_listing(src, &n);
        const tr_reader *r = dir_reader(path, entries, n, o);
        if (r) {
            rc = read_whole_dir(t, path, path, r, o, e);
            tr_source_close(src);
            return rc;
        }
        if (!o->from) rc = load_claimed_subdirs(t, path, entries, n, o, &claimed, e);
    }
    if (kind == TR_SOURCE_ARCHIVE) {
        rc = load_archive_dir(t, path, o, e);
        if (rc != TR_END) {
            tr_source_close(src);
            return rc;
        }
    }
    tr_input *in;
    int n_streams = 0;
    while (rc >= 0 && (rc = tr_source_next(src, &in, e)) == TR_OK) {
        if (under_claimed(&claimed, tr_input_name(in))) continue;
        n_streams++;
        rc = load_stream(t, in, o, kind == TR_SOURCE_STREAM, e);
    }
    tr_source_close(src);
    int n_claimed = (int)claimed.claimed.len;
    tr_vec_fini(&claimed.prefixes);
    tr_vec_fini(&claimed.claimed);
    tr_arena_fini(&claimed.names);
    if (rc < 0) return rc;
    if (kind != TR_SOURCE_STREAM && n_claimed == 0 && n_streams > 0 &&
        (uint64_t)n_streams == o->streams_ignored) {
        tr_loc loc = {path, 0, 0, 0};
        return tr_errorf(e, TR_E_FORMAT, &loc, "no file inside is a trace tracecat knows");
    }
    return TR_OK;
}
