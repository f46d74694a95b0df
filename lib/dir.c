/*
** dir.c: a directory or an archive as a set of members (tr_dir, tr_input.h).
**
** A directory is listed by the same walk as tr_source_open; a member opens
** as a source of its own, flat (an archive in it stays one stream).
**
** An archive is listed in one pass over its headers.  libarchive reads it
** sequentially, so the first member opened loads the members in one more
** pass, keeping each in memory while they add up to TR_DIR_KEEP; a member
** past that is read by going through the archive again up to it.  That is
** two passes for what a directory reader opens, the cost the extraction to
** a temporary directory had, and a tarball of a Recorder trace is read in
** whole anyway (its reader loads every file).  A kept member is handed to
** the stream that opens it and goes with it: memory holds what is not read
** yet, as the temporary directory's disk space did.  Opening a member by
** reading the archive from its start instead costs a pass per member:
** measured on a 256-rank G2 trace made by tests/bench/recorder (770 files,
** 16 MB, 2.2 MB as .tgz), reading it took 1.0 s keeping members and 13.4 s
** going back for each.
*/
#include "input_impl.h"
#include "tr_mem.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct dir_member {
    const char *rel;  /* path from the top of the directory or archive */
    const char *name; /* from the view's directory: a tail of rel */
    uint64_t size;
    size_t ordinal; /* an archive's: the member's place among the streams its source yields */
} dir_member;

/* What the views of one directory or archive share. */
typedef struct dir_root {
    char *path;
    const void *mem; /* an archive in memory, else NULL */
    size_t mem_n;
    const char *label; /* the top view's */
    int archive;
    tr_arena names;
    size_t n_streams;

    uint64_t keep;        /* bytes of members kept in memory at most */
    pthread_mutex_t lock; /* guards the load below */
    int loaded, load_rc;
    tr_error load_err;
    void **data; /* by ordinal: the member's bytes, or NULL when not kept */
    size_t *data_n;
    tr_vec shadowed; /* size_t ordinals of members a later one of the same name replaces */
} dir_root;

struct tr_dir {
    dir_root *root;
    int owns_root;
    tr_vec members; /* dir_member, by name */
    const char **names;
    char *label;
};

/* By name, then archive order: of one name's members the last comes last. */
static int member_cmp(const void *a, const void *b)
{
    const dir_member *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->ordinal > y->ordinal) - (x->ordinal < y->ordinal);
}

static int dir_add(tr_dir *d, const char *rel, uint64_t size, size_t ordinal, tr_error *e)
{
    dir_member *m = tr_vec_push(&d->members);
    const char *copy = m ? tr_arena_strndup(&d->root->names, rel, strlen(rel)) : NULL;
    if (!copy) return tr_error_nomem(e);
    *m = (dir_member){copy, copy, size, ordinal};
    return TR_OK;
}

/* Sorts the members, keeps the last of each name (tar's rule), makes the list of names. */
static int dir_index(tr_dir *d, tr_error *e)
{
    tr_qsort(d->members.data, d->members.len, sizeof(dir_member), member_cmp);
    dir_member *m = d->members.data;
    size_t kept = 0;
    for (size_t i = 0; i < d->members.len; i++) {
        if (i + 1 < d->members.len && strcmp(m[i].name, m[i + 1].name) == 0) {
            size_t *slot = tr_vec_push(&d->root->shadowed);
            if (!slot) return tr_error_nomem(e);
            *slot = m[i].ordinal;
            continue;
        }
        m[kept++] = m[i];
    }
    d->members.len = kept;
    d->names = tr_malloc((d->members.len ? d->members.len : 1) * sizeof *d->names);
    if (!d->names) return tr_error_nomem(e);
    for (size_t i = 0; i < d->members.len; i++)
        d->names[i] = TR_VEC_AT(&d->members, dir_member, i).name;
    return TR_OK;
}

static int dir_label(tr_dir *d, const char *a, size_t an, const char *b, size_t bn, char sep,
                     tr_error *e)
{
    d->label = tr_malloc(an + bn + 2);
    if (!d->label) return tr_error_nomem(e);
    memcpy(d->label, a, an);
    memcpy(d->label + an, b, bn);
    d->label[an + bn] = sep;
    d->label[an + bn + 1] = '\0';
    return TR_OK;
}

/* The member part of an archive stream's name "PATH:member", without leading "./". */
static const char *dir_member_part(const dir_root *root, tr_input *in)
{
    const char *name = tr_input_name(in) + strlen(root->path) + 1;
    while (name[0] == '.' && name[1] == '/') name += 2;
    return name;
}

static int dir_list_archive(tr_dir *d, tr_source *src, tr_error *e)
{
    tr_input *in;
    int rc;
    while ((rc = tr_source_next(src, &in, e)) == TR_OK) {
        rc = dir_add(d, dir_member_part(d->root, in), tr_source_stream_size(src),
                     d->root->n_streams++, e);
        if (rc != TR_OK) return rc;
    }
    return rc == TR_END ? TR_OK : rc;
}

static int dir_list(tr_dir *d, tr_source *src, tr_error *e)
{
    if (d->root->archive) return dir_list_archive(d, src, e);
    size_t n;
    const char *const *rel = tr_source_listing(src, &n);
    for (size_t i = 0; i < n; i++) {
        int rc = dir_add(d, rel[i], tr_source_file_size(src, i), i, e);
        if (rc != TR_OK) return rc;
    }
    return TR_OK;
}

static tr_dir *dir_new(dir_root *root, int owns_root)
{
    tr_dir *d = tr_calloc(1, sizeof *d);
    if (!d) return NULL;
    d->root = root;
    d->owns_root = owns_root;
    tr_vec_init(&d->members, sizeof(dir_member));
    return d;
}

static dir_root *dir_root_new(const char *path)
{
    dir_root *root = tr_calloc(1, sizeof *root);
    size_t n = strlen(path);
    char *copy = tr_malloc(n + 1);
    if (!root || !copy) {
        tr_free(root);
        tr_free(copy);
        return NULL;
    }
    memcpy(copy, path, n + 1);
    root->path = copy;
    root->keep = TR_DIR_KEEP;
    tr_arena_init(&root->names);
    tr_vec_init(&root->shadowed, sizeof(size_t));
    pthread_mutex_init(&root->lock, NULL);
    return root;
}

static void dir_root_free(dir_root *root)
{
    if (!root) return;
    for (size_t i = 0; root->data && i < root->n_streams; i++) tr_free(root->data[i]);
    tr_free(root->data);
    tr_free(root->data_n);
    tr_vec_fini(&root->shadowed);
    pthread_mutex_destroy(&root->lock);
    tr_arena_fini(&root->names);
    tr_free(root->path);
    tr_free(root);
}

/* A new source on ROOT's archive (or directory). */
static int dir_source(const dir_root *root, tr_source **src, tr_error *e)
{
    if (root->mem) return tr_source_open_memory(src, root->path, root->mem, root->mem_n, e);
    return tr_source_open(src, root->path, e);
}

/* Lists PATH, or the N bytes at P when P is set. */
static int dir_open(tr_dir **out, const char *path, const void *p, size_t n_mem, tr_error *e)
{
    *out = NULL;
    dir_root *root = dir_root_new(path);
    if (!root) return tr_error_nomem(e);
    root->mem = p;
    root->mem_n = n_mem;
    tr_source *src;
    int rc = dir_source(root, &src, e);
    if (rc != TR_OK) {
        dir_root_free(root);
        return rc;
    }
    int kind = tr_source_kind(src);
    tr_dir *d = dir_new(root, 1);
    if (!d) {
        dir_root_free(root);
        rc = tr_error_nomem(e);
    } else if (kind == TR_SOURCE_STREAM) {
        tr_loc loc = {path, 0, 0, 0};
        rc = tr_errorf(e, TR_E_FORMAT, &loc, "neither a directory nor an archive");
    } else {
        root->archive = kind == TR_SOURCE_ARCHIVE;
        size_t n = strlen(path);
        while (!root->archive && n && path[n - 1] == '/') n--;
        rc = dir_list(d, src, e);
        if (rc == TR_OK) rc = dir_index(d, e);
        if (rc == TR_OK) rc = dir_label(d, path, n, "", 0, root->archive ? ':' : '/', e);
        root->label = d->label;
    }
    tr_source_close(src);
    if (rc != TR_OK) {
        tr_dir_close(d);
        return rc;
    }
    *out = d;
    return TR_OK;
}

int tr_dir_open(tr_dir **out, const char *path, tr_error *e)
{
    *out = NULL;
    if (strcmp(path, "-") == 0)
        return tr_errorf(e, TR_E_USAGE, NULL, "a directory cannot be read from standard input");
    return dir_open(out, path, NULL, 0, e);
}

int tr_dir_open_memory(tr_dir **out, const char *name, const void *p, size_t n, tr_error *e)
{
    return dir_open(out, name, n ? p : "", n, e);
}

int tr_dir_open_sub(tr_dir **out, tr_dir *d, const char *prefix, tr_error *e)
{
    *out = NULL;
    tr_dir *s = dir_new(d->root, 0);
    if (!s) return tr_error_nomem(e);
    size_t n = strlen(prefix);
    int rc = TR_OK;
    for (size_t i = 0; i < d->members.len && rc == TR_OK; i++) {
        const dir_member *m = &TR_VEC_AT(&d->members, dir_member, i);
        if (strncmp(m->name, prefix, n) != 0 || m->name[n] != '/') continue;
        dir_member *c = tr_vec_push(&s->members);
        if (!c) rc = tr_error_nomem(e);
        if (c) *c = (dir_member){m->rel, m->name + n + 1, m->size, m->ordinal};
    }
    if (rc == TR_OK) rc = dir_index(s, e);
    if (rc == TR_OK) rc = dir_label(s, d->label, strlen(d->label), prefix, n, '/', e);
    if (rc != TR_OK) {
        tr_dir_close(s);
        return rc;
    }
    *out = s;
    return TR_OK;
}

void tr_dir_set_keep(tr_dir *d, uint64_t bytes)
{
    d->root->keep = bytes;
}

const char *const *tr_dir_names(const tr_dir *d, size_t *n)
{
    *n = d->members.len;
    return d->names;
}

size_t tr_dir_find(const tr_dir *d, const char *name)
{
    size_t lo = 0, hi = d->members.len;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(d->names[mid], name);
        if (c == 0) return mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return SIZE_MAX;
}

uint64_t tr_dir_size(const tr_dir *d, size_t i)
{
    return TR_VEC_AT(&d->members, dir_member, i).size;
}

const char *tr_dir_label(const tr_dir *d)
{
    return d->label;
}

/* ---- opening members ---- */

/* Reads IN whole into *P (*N bytes), unless it passes MAX: then *P is NULL. */
static int dir_slurp(tr_input *in, uint64_t max, void **p, size_t *n, tr_error *e)
{
    tr_buf b;
    tr_buf_init(&b, 0);
    *p = NULL;
    *n = 0;
    int rc = TR_OK;
    for (;;) {
        if (b.len > max) break;
        if (tr_buf_grow(&b, 65536) != TR_OK) {
            rc = tr_error_nomem(e);
            break;
        }
        size_t got;
        rc = tr_input_read(in, b.p + b.len, 65536, &got, e);
        if (rc != TR_OK) break;
        if (got == 0) {
            *p = b.p;
            *n = b.len;
            return TR_OK;
        }
        b.len += got;
    }
    tr_buf_fini(&b);
    return rc;
}

/* The pass that keeps the archive's members while they fit in TR_DIR_KEEP. */
static int dir_load(dir_root *root, tr_error *e)
{
    root->data = tr_calloc(root->n_streams ? root->n_streams : 1, sizeof *root->data);
    root->data_n = tr_calloc(root->n_streams ? root->n_streams : 1, sizeof *root->data_n);
    if (!root->data || !root->data_n) return tr_error_nomem(e);
    tr_source *src;
    int rc = dir_source(root, &src, e);
    if (rc != TR_OK) return rc;
    uint64_t left = root->keep;
    tr_input *in;
    for (size_t k = 0; k < root->n_streams && left; k++) {
        if ((rc = tr_source_next(src, &in, e)) != TR_OK) break;
        if (tr_source_stream_size(src) > left) continue;
        rc = dir_slurp(in, left, &root->data[k], &root->data_n[k], e);
        if (rc != TR_OK) break;
        left -= root->data[k] ? root->data_n[k] : 0;
    }
    tr_source_close(src);
    return rc == TR_END ? TR_OK : rc;
}

static int dir_loaded(dir_root *root, tr_error *e)
{
    pthread_mutex_lock(&root->lock);
    if (!root->loaded) {
        root->load_rc = dir_load(root, &root->load_err);
        root->loaded = 1;
    }
    int rc = root->load_rc;
    pthread_mutex_unlock(&root->lock);
    if (rc != TR_OK && e) *e = root->load_err;
    return rc;
}

/* An archive member not kept: the archive read again up to it. */
static int dir_rescan(dir_root *root, const dir_member *m, tr_input **out, tr_error *e)
{
    tr_source *src;
    int rc = dir_source(root, &src, e);
    tr_input *in = NULL;
    for (size_t k = 0; rc == TR_OK && k <= m->ordinal; k++) rc = tr_source_next(src, &in, e);
    if (rc == TR_END) {
        tr_loc loc = {root->path, 0, 0, 0};
        rc = tr_errorf(e, TR_E_FORMAT, &loc, "the archive changed while being read");
    }
    if (rc != TR_OK) {
        tr_source_close(src);
        return rc;
    }
    tr_input_set_owner(in, src);
    *out = in;
    return TR_OK;
}

static int dir_open_file(const tr_dir *d, const dir_member *m, tr_input **out, tr_error *e)
{
    tr_buf path;
    tr_buf_init(&path, 0);
    tr_source *src = NULL;
    tr_input *in;
    /* The top view's label is the directory's path and a '/'. */
    int rc = tr_buf_adds(&path, d->root->label) == TR_OK && tr_buf_adds(&path, m->rel) == TR_OK
                 ? tr_source_open_flat(&src, path.p, e)
                 : tr_error_nomem(e);
    tr_buf_fini(&path);
    if (rc == TR_OK) rc = tr_source_next(src, &in, e);
    if (rc != TR_OK) {
        tr_source_close(src);
        return rc;
    }
    tr_input_set_owner(in, src);
    *out = in;
    return TR_OK;
}

/* Takes member K's bytes out of the kept ones: NULL when it was not kept or is taken already. */
static void *dir_take(dir_root *root, size_t k, size_t *n)
{
    pthread_mutex_lock(&root->lock);
    void *p = root->data[k];
    *n = root->data_n[k];
    root->data[k] = NULL;
    pthread_mutex_unlock(&root->lock);
    return p;
}

int tr_dir_open_member(tr_dir *d, size_t i, tr_input **in, tr_error *e)
{
    *in = NULL;
    const dir_member *m = &TR_VEC_AT(&d->members, dir_member, i);
    dir_root *root = d->root;
    if (!root->archive) return dir_open_file(d, m, in, e);
    int rc = dir_loaded(root, e);
    if (rc != TR_OK) return rc;
    /* A kept member is handed over, so that its bytes go once read; opened again, it is read again.
     */
    size_t n;
    void *p = dir_take(root, m->ordinal, &n);
    if (!p) return dir_rescan(root, m, in, e);
    tr_input *s = tr_input_new(NULL);
    if (!s) {
        tr_free(p);
        return tr_error_nomem(e);
    }
    tr_input_own(s, p);
    tr_buf name;
    tr_buf_init(&name, 0);
    rc = tr_buf_adds(&name, d->label) == TR_OK && tr_buf_adds(&name, m->name) == TR_OK
             ? tr_input_reset_memory(s, p, n, name.p, e)
             : tr_error_nomem(e);
    tr_buf_fini(&name);
    if (rc != TR_OK) {
        tr_input_free(s);
        return rc;
    }
    *in = s;
    return TR_OK;
}

void tr_dir_close(tr_dir *d)
{
    if (!d) return;
    if (d->owns_root) dir_root_free(d->root);
    tr_vec_fini(&d->members);
    tr_free(d->names);
    tr_free(d->label);
    tr_free(d);
}

int tr_dir_shadowed(const tr_dir *d, size_t ordinal)
{
    const tr_vec *v = &d->root->shadowed;
    for (size_t i = 0; i < v->len; i++)
        if (TR_VEC_AT(v, size_t, i) == ordinal) return 1;
    return 0;
}
