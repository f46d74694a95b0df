/*
** chrome_checked.c: walking JSON text the Chrome reader's scanner has
** already validated (chrome_json.c): the members of an object, the elements
** of an array, a value as compact text.  The text is known to be valid, so
** none of these can fail; they serve metadata, systemTraceEvents, v8
** profiles and args kept as JSON, not the event loop.
*/
#include "chrome_impl.h"

#include <string.h>

/* ---- values ---- */

/* The validated value at P..END as compact JSON text (whitespace outside strings dropped). */
void cj_compact_json(tr_buf *b, const char *p, const char *end)
{
    tr_buf_reset(b);
    if (tr_buf_grow(b, (size_t)(end - p)) != TR_OK) return;
    char *o = b->p;
    while (p < end) {
        char c = *p++;
        if (c == '"') {
            *o++ = c;
            while ((c = *p++) != '"') {
                *o++ = c;
                if (c == '\\') *o++ = *p++;
            }
            *o++ = c;
        } else if (c != ' ' && c != '\t' && c != '\r' && c != '\n') {
            *o++ = c;
        }
    }
    b->len = (size_t)(o - b->p);
    b->p[b->len] = '\0';
}

/* ---- members of a checked object ---- */

/*
** Walks the top-level members of the validated object T: FN gets each key
** and value (a scalar token, or the container's text).
*/
typedef int (*member_fn)(cj_rd *r, const jtok *key, const jtok *val, void *arg);

static int each_member(cj_rd *r, const jtok *t, member_fn fn, void *arg)
{
    if (t->type != J_OBJ) return TR_OK;
    const char *p = cj_jws(t->p + 1);
    while (*p == '"') {
        /* the text is valid: the scans cannot fail */
        jtok k = {NULL, 0, J_NONE, 0, 0}, v = k;
        cj_scan_str(&r->js, &p, &k);
        p = cj_jws(cj_jws(p) + 1);
        if (*p == '{' || *p == '[') {
            v.p = p;
            p = cj_value_end(p);
            v.n = (size_t)(p - v.p);
            v.type = *v.p == '{' ? J_OBJ : J_ARR;
            v.flags = 0;
        } else {
            cj_scan_scalar(&r->js, &p, &v);
        }
        int rc = fn(r, &k, &v, arg);
        if (rc != TR_OK) return rc;
        p = cj_jws(p);
        if (*p == ',') p = cj_jws(p + 1);
    }
    return TR_OK;
}

/* Finds member NAME of object T. */
typedef struct find_arg {
    const char *name;
    jtok val;
} find_arg;

static int find_cb(cj_rd *r, const jtok *key, const jtok *val, void *arg)
{
    (void)r;
    find_arg *f = arg;
    if (f->val.type == J_NONE && cj_tok_eq(key, f->name)) f->val = *val;
    return TR_OK;
}

jtok cj_member(cj_rd *r, const jtok *t, const char *name)
{
    find_arg f = {name, {NULL, 0, J_NONE, 0, 0}};
    each_member(r, t, find_cb, &f);
    return f.val;
}

/* ---- elements of a checked array ---- */

/* The next element of array text at *PP (after its '['): 1 and V, or 0 at the ']'. */
int cj_next_elem(cj_rd *r, const char **pp, jtok *v)
{
    const char *p = cj_jws(*pp);
    if (*p == ',') p = cj_jws(p + 1);
    if (!*p || *p == ']') {
        *pp = p;
        return 0;
    }
    if (*p == '{' || *p == '[') {
        v->p = p;
        p = cj_value_end(p);
        v->n = (size_t)(p - v->p);
        v->type = *v->p == '{' ? J_OBJ : J_ARR;
        v->flags = 0;
    } else {
        cj_scan_scalar(&r->js, &p, v); /* the text is valid: the scan cannot fail */
    }
    *pp = p;
    return 1;
}

/* The text after the '[' of array T, or an empty array when T is not one. */
const char *cj_elems(const jtok *t)
{
    return t->type == J_ARR ? t->p + 1 : "]";
}
