/*
** analysis_io_path.c: one name per file for the I/O analysis.
**
** Recorder writes a file's name as its tools resolved it at each call, and
** the forms differ within one trace: 2.3.x keeps open's path as the program
** gave it ("out.dat") and resolves it elsewhere ("/run/out.dat"); later
** versions prepend the working directory to a path that does not exist yet
** ("/run/./out.dat") where the calls after the open see it resolved.  Every
** form of one file must reach the same position state, or the calls after
** the open have no known offset (issue 19: 0 consecutive where Darshan
** counts 299).  So paths are compared in a lexical normal form, and a
** relative one is the absolute path of the trace that ends with it, when
** exactly one does.  A file under an excluded directory (Darshan's
** /etc/, /proc/, ... by default) is decided on that normal form, as Darshan
** decides on the absolute path it resolves.
*/
#include "analysis_impl.h"

#include <string.h>

/* ---- normal form ---- */

/* The lexical normal form of S into B: "//" and "/./" collapse, "dir/.." goes, no trailing "/". */
static int iop_norm(tr_buf *b, const char *s)
{
    tr_buf_reset(b);
    size_t base = s[0] == '/';
    if (base && tr_buf_addc(b, '/')) return TR_FATAL;
    for (const char *p = s; *p;) {
        while (*p == '/') p++;
        const char *q = p;
        while (*q && *q != '/') q++;
        size_t n = (size_t)(q - p);
        if (n == 1 && p[0] == '.') {
            p = q;
            continue;
        }
        if (n == 2 && p[0] == '.' && p[1] == '.' && b->len > base) {
            char *last = strrchr(b->p + base, '/');
            size_t at = last ? (size_t)(last - b->p) : base;
            if (strcmp(b->p + (last ? at + 1 : at), "..") != 0) {
                b->len = at;
                b->p[at] = '\0';
                p = q;
                continue;
            }
        }
        if (n == 2 && p[0] == '.' && p[1] == '.' && base) {
            p = q; /* "/.." is "/" */
            continue;
        }
        if (n && b->len > base && tr_buf_addc(b, '/')) return TR_FATAL;
        if (n && tr_buf_add(b, p, n)) return TR_FATAL;
        p = q;
    }
    return TR_OK;
}

/* ---- canonical ids ---- */

typedef struct iop_ctx {
    const tr_trace *t;
    tr_buf text;    /* the normal forms, each NUL-terminated */
    size_t *at;     /* per path: where its normal form starts in text */
    tr_map by_norm; /* hash of a normal form -> the path that names it */
    tr_map by_tail; /* hash of an absolute path's tail after a '/' -> path, IOP_MANY if several */
} iop_ctx;

#define IOP_MANY (UINT32_MAX - 1)

static const char *iop_text(const iop_ctx *c, size_t i)
{
    return c->text.p + c->at[i];
}

/* Maps the normal forms: the paths written in normal form first, so they name their file. */
static int iop_map_norms(iop_ctx *c, const tr_str *ids, size_t n)
{
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < n; i++) {
            const char *s = iop_text(c, i);
            if ((strcmp(s, tr_str_get(c->t, ids[i], NULL)) == 0) != (pass == 0)) continue;
            int is_new;
            uint32_t *slot = tr_map_slot(&c->by_norm, tr_hash_bytes(s, strlen(s)), &is_new);
            if (!slot) return TR_FATAL;
            if (is_new) *slot = (uint32_t)i;
        }
    }
    return TR_OK;
}

/* Every tail of the absolute canonical paths ("b/c" and "c" of "/a/b/c"). */
static int iop_map_tails(iop_ctx *c, const tr_str *ids, const tr_str *canon, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *s = iop_text(c, i);
        if (s[0] != '/' || canon[i] != ids[i]) continue;
        for (const char *p = s; (p = strchr(p, '/')) != NULL;) {
            p++;
            if (!*p) break;
            int is_new;
            uint32_t *slot = tr_map_slot(&c->by_tail, tr_hash_bytes(p, strlen(p)), &is_new);
            if (!slot) return TR_FATAL;
            if (is_new)
                *slot = (uint32_t)i;
            else if (*slot != IOP_MANY && canon[*slot] != canon[i])
                *slot = IOP_MANY;
        }
    }
    return TR_OK;
}

/* The canonical id of relative path I: the one absolute path that ends with it ("../" dropped). */
static tr_str iop_relative(const iop_ctx *c, size_t i, const tr_str *canon)
{
    const char *s = iop_text(c, i);
    while (strncmp(s, "../", 3) == 0) s += 3;
    size_t n = strlen(s);
    if (!n || strcmp(s, "..") == 0) return canon[i];
    uint32_t j = tr_map_find(&c->by_tail, tr_hash_bytes(s, n));
    if (j == UINT32_MAX || j == IOP_MANY) return canon[i];
    const char *a = iop_text(c, j);
    size_t an = strlen(a);
    if (an <= n || a[an - n - 1] != '/' || strcmp(a + an - n, s) != 0) return canon[i];
    return canon[j];
}

/* ---- exclusions ---- */

/* Whether PATH is under one of the comma-separated directories of LIST. */
static int iop_under(const char *path, const char *list)
{
    for (const char *p = list; p && *p;) {
        size_t k = strcspn(p, ",");
        /* "/etc/" is a prefix (Darshan's form); "/etc" is itself and what is under it. */
        if (k && strncmp(path, p, k) == 0 && (p[k - 1] == '/' || path[k] == '\0' || path[k] == '/'))
            return 1;
        p += k + (p[k] != '\0');
    }
    return 0;
}

/* Darshan's rule (darshan-core.c): excluded unless an included directory holds it too. */
static int iop_excluded(const char *path, const tr_stat_opts *so)
{
    const char *ex = so && so->io_exclude ? so->io_exclude : TR_IO_EXCLUDE;
    if (!iop_under(path, ex)) return 0;
    return !iop_under(path, TR_IO_INCLUDE) && !(so && iop_under(path, so->io_include));
}

int tr_an_io_canon(const tr_trace *t, const tr_str *ids, size_t n, const tr_stat_opts *so,
                   tr_str *canon, uint8_t *excluded)
{
    iop_ctx c = {.t = t};
    tr_buf one;
    tr_buf_init(&c.text, 0);
    tr_buf_init(&one, 0);
    c.at = tr_malloc((n ? n : 1) * sizeof *c.at);
    int rc = c.at && tr_map_init(&c.by_norm, n) == TR_OK && tr_map_init(&c.by_tail, n) == TR_OK
                 ? TR_OK
                 : TR_FATAL;
    for (size_t i = 0; i < n && rc == TR_OK; i++) {
        c.at[i] = c.text.len;
        rc = iop_norm(&one, tr_str_get(t, ids[i], NULL));
        if (rc == TR_OK && tr_buf_add(&c.text, one.p, one.len + 1)) rc = TR_FATAL;
    }
    if (rc == TR_OK) rc = iop_map_norms(&c, ids, n);
    for (size_t i = 0; i < n && rc == TR_OK; i++) {
        const char *s = iop_text(&c, i);
        uint32_t j = tr_map_find(&c.by_norm, tr_hash_bytes(s, strlen(s)));
        canon[i] = j != UINT32_MAX && strcmp(iop_text(&c, j), s) == 0 ? ids[j] : ids[i];
    }
    if (rc == TR_OK) rc = iop_map_tails(&c, ids, canon, n);
    for (size_t i = 0; i < n && rc == TR_OK; i++)
        if (iop_text(&c, i)[0] != '/') canon[i] = iop_relative(&c, i, canon);
    for (size_t i = 0; i < n && rc == TR_OK; i++) {
        rc = iop_norm(&one, tr_str_get(t, canon[i], NULL));
        if (rc == TR_OK) excluded[i] = (uint8_t)iop_excluded(one.p, so);
    }
    tr_free(c.at);
    tr_buf_fini(&c.text);
    tr_buf_fini(&one);
    tr_map_fini(&c.by_norm);
    tr_map_fini(&c.by_tail);
    return rc;
}
