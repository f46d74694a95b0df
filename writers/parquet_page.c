/*
** parquet_page.c: one Parquet file of flat columns, written as it goes.
**
** Layout: "PAR1", then per row group each column's chunk (an optional
** dictionary page, then data pages), then the footer (FileMetaData in the
** Thrift compact protocol), its length and "PAR1" again.  A chunk is written
** column by column straight to the output, a page at a time, so memory is one
** page and one dictionary, not a row group.  The caller's rows are read twice
** per string column (the dictionary must precede the pages that use it),
** which costs nothing when they are the in-memory model.
**
** Pages are DataPage v1 (definition levels, when the column is optional, as
** an RLE/bit-packed hybrid with a 4-byte length; then the values), the most
** widely read form.  Every page body is zstd-compressed on its own.
*/
#include "parquet_impl.h"
#include "tr_map.h"

#include <math.h>
#include <zstd.h>

#define PAGE_VALUES (128 * 1024) /* values per data page at most */

/* parquet.thrift enums */
enum { PT_INT64 = 2, PT_DOUBLE = 5, PT_BYTE_ARRAY = 6 };
enum { ENC_PLAIN = 0, ENC_RLE = 3, ENC_RLE_DICTIONARY = 8 };
enum { PAGE_DATA = 0, PAGE_DICTIONARY = 2 };
enum { CODEC_ZSTD = 6, CONVERTED_UTF8 = 0, REP_REQUIRED = 0, REP_OPTIONAL = 1 };

/* What the footer says about one column chunk. */
typedef struct pq_chunk {
    int64_t first, data_off, dict_off; /* dict_off -1: no dictionary */
    int64_t raw, packed;               /* bytes before and after compression, headers included */
    int64_t values, nulls;
    int has_minmax;
    unsigned char min[8], max[8];          /* INT64/DOUBLE statistics, little-endian */
    size_t smin, smin_len, smax, smax_len; /* string statistics: offsets in f->stats */
} pq_chunk;

typedef struct pq_group {
    uint64_t rows;
    int64_t offset, raw, packed;
} pq_group;

/* The dictionary of the column chunk being written: keys to entry numbers. */
typedef struct pq_dict {
    tr_map index; /* value key -> entry */
    size_t n;
    size_t *off;       /* each entry's place in page (its 4-byte length first) */
    uint64_t last_key; /* the last key looked up and its entry: runs of one value are common */
    uint32_t last_id;
    size_t off_cap;
    tr_buf page; /* the PLAIN-encoded dictionary page */
} pq_dict;

struct tr_pq_file {
    tr_output *out;
    const tr_pq_column *cols;
    int ncols;
    tr_pq_limits lim;
    uint64_t pos, rows;
    tr_vec groups; /* pq_group */
    tr_vec chunks; /* pq_chunk, ncols per group */
    tr_buf stats;  /* string min/max bytes */
    tr_buf kv;     /* footer key/value pairs, each "key\0value\0" */
    size_t n_kv;
    tr_buf values, body, hdr; /* the page being built, its body, its header */
    uint32_t *defs, *idx;     /* PAGE_VALUES each */
    size_t n_defs, n_idx;
    unsigned char *z;
    size_t z_cap;
    ZSTD_CCtx *zc;
    pq_dict dict;
};

void tr_pq_limits_default(tr_pq_limits *l)
{
    l->row_group_rows = 1u << 17; /* 128 Ki: a per-rank file of a few million rows still spans many
                                     groups a ts filter can skip */
    l->page_bytes = 1u << 20;
    l->dict_bytes = 1u << 20;
    l->zstd_level = 1;
}

int tr_pq_bit_width(uint64_t n)
{
    int w = 1;
    while (w < 64 && (n - 1) >> w) w++;
    return w;
}

/* ---- RLE / bit-packed hybrid ---- */

static int add_varint(tr_buf *b, uint64_t v)
{
    unsigned char tmp[10];
    size_t n = 0;
    while (v >= 0x80) {
        tmp[n++] = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    tmp[n++] = (unsigned char)v;
    return tr_buf_add(b, tmp, n);
}

/* Bit-packs the N values at V (N a multiple of 8 but for the last run), LSB first. */
static int add_packed(tr_buf *b, const uint32_t *v, size_t n, int width)
{
    size_t groups = (n + 7) / 8;
    int rc = add_varint(b, (uint64_t)groups << 1 | 1);
    if (rc) return rc;
    size_t bytes = groups * (size_t)width;
    if ((rc = tr_buf_grow(b, bytes))) return rc;
    unsigned char *p = (unsigned char *)b->p + b->len;
    memset(p, 0, bytes);
    size_t bit = 0;
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < width; k++, bit++)
            if (v[i] >> k & 1) p[bit >> 3] |= (unsigned char)(1u << (bit & 7));
    b->len += bytes;
    b->p[b->len] = '\0';
    return TR_OK;
}

int tr_pq_rle(tr_buf *b, const uint32_t *v, size_t n, int width)
{
    size_t lit = 0, i = 0; /* v[lit .. i) waits to be bit-packed */
    int rc = TR_OK;
    while (i < n && !rc) {
        size_t run = 1;
        while (i + run < n && v[i + run] == v[i]) run++;
        if (run < 8) {
            /* Literals go in groups of 8 so a run in the middle never needs padding. */
            i = i + 8 < n ? i + 8 : n;
            continue;
        }
        if (i > lit) rc = add_packed(b, v + lit, i - lit, width);
        if (!rc) rc = add_varint(b, (uint64_t)run << 1);
        for (int k = 0; k < (width + 7) / 8 && !rc; k++)
            rc = tr_buf_addc(b, (char)(v[i] >> (8 * k) & 0xff));
        i += run;
        lit = i;
    }
    if (!rc && n > lit) rc = add_packed(b, v + lit, n - lit, width);
    return rc ? TR_FATAL : TR_OK;
}

/* ---- the file ---- */

static int put_le32(tr_buf *b, uint32_t v)
{
    unsigned char p[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    return tr_buf_add(b, p, 4);
}

static void le64(unsigned char *p, uint64_t v)
{
    for (int k = 0; k < 8; k++) p[k] = (unsigned char)(v >> (8 * k));
}

static int emit(tr_pq_file *f, const void *p, size_t n, tr_error *e)
{
    int rc = tr_output_write(f->out, p, n, e);
    if (rc == TR_OK) f->pos += n;
    return rc;
}

int tr_pq_file_open(tr_pq_file **fp, tr_output *out, const tr_pq_column *cols, int ncols,
                    const tr_pq_limits *lim, tr_error *e)
{
    tr_pq_file *f = tr_calloc(1, sizeof *f);
    *fp = f;
    if (!f) return tr_error_nomem(e);
    f->out = out;
    f->cols = cols;
    f->ncols = ncols;
    if (lim)
        f->lim = *lim;
    else
        tr_pq_limits_default(&f->lim);
    if (f->lim.row_group_rows == 0) f->lim.row_group_rows = 1;
    tr_vec_init(&f->groups, sizeof(pq_group));
    tr_vec_init(&f->chunks, sizeof(pq_chunk));
    tr_buf_init(&f->stats, 0);
    tr_buf_init(&f->kv, 0);
    tr_buf_init(&f->values, 0);
    tr_buf_init(&f->body, 0);
    tr_buf_init(&f->hdr, 0);
    tr_buf_init(&f->dict.page, 0);
    f->defs = tr_malloc(PAGE_VALUES * sizeof *f->defs);
    f->idx = tr_malloc(PAGE_VALUES * sizeof *f->idx);
    f->zc = ZSTD_createCCtx();
    if (!f->defs || !f->idx || !f->zc) return tr_error_nomem(e);
    return emit(f, "PAR1", 4, e);
}

void tr_pq_file_free(tr_pq_file *f)
{
    if (!f) return;
    tr_vec_fini(&f->groups);
    tr_vec_fini(&f->chunks);
    tr_buf_fini(&f->stats);
    tr_buf_fini(&f->kv);
    tr_buf_fini(&f->values);
    tr_buf_fini(&f->body);
    tr_buf_fini(&f->hdr);
    tr_buf_fini(&f->dict.page);
    tr_map_fini(&f->dict.index);
    tr_free(f->dict.off);
    tr_free(f->defs);
    tr_free(f->idx);
    tr_free(f->z);
    ZSTD_freeCCtx(f->zc);
    tr_free(f);
}

uint64_t tr_pq_file_size(const tr_pq_file *f)
{
    return f->pos;
}

int tr_pq_file_meta(tr_pq_file *f, const char *key, const char *value, tr_error *e)
{
    if (tr_buf_add(&f->kv, key, strlen(key) + 1) || tr_buf_add(&f->kv, value, strlen(value) + 1))
        return tr_error_nomem(e);
    f->n_kv++;
    return TR_OK;
}

/* Compresses BODY and writes it behind a page header; counts both in CH. */
static int put_page(tr_pq_file *f, pq_chunk *ch, int type, int32_t n_values, int encoding,
                    tr_error *e)
{
    size_t bound = ZSTD_compressBound(f->body.len);
    if (bound > f->z_cap) {
        unsigned char *z = tr_realloc(f->z, bound);
        if (!z) return tr_error_nomem(e);
        f->z = z;
        f->z_cap = bound;
    }
    size_t zn = ZSTD_compressCCtx(f->zc, f->z, f->z_cap, f->body.p, f->body.len, f->lim.zstd_level);
    if (ZSTD_isError(zn)) return tr_errorf(e, TR_E_IO, NULL, "zstd: %s", ZSTD_getErrorName(zn));
    if (f->body.len > INT32_MAX || zn > INT32_MAX)
        return tr_errorf(e, TR_E_LIMIT, NULL, "a Parquet page over 2 GiB");
    tr_buf_reset(&f->hdr);
    tr_thrift w;
    tr_thrift_begin(&w, &f->hdr);
    tr_thrift_i32(&w, 1, type);
    tr_thrift_i32(&w, 2, (int32_t)f->body.len);
    tr_thrift_i32(&w, 3, (int32_t)zn);
    if (type == PAGE_DATA) {
        tr_thrift_struct(&w, 5);
        tr_thrift_i32(&w, 1, n_values);
        tr_thrift_i32(&w, 2, encoding);
        tr_thrift_i32(&w, 3, ENC_RLE);
        tr_thrift_i32(&w, 4, ENC_RLE);
    } else {
        tr_thrift_struct(&w, 7);
        tr_thrift_i32(&w, 1, n_values);
        tr_thrift_i32(&w, 2, ENC_PLAIN);
    }
    tr_thrift_end(&w);
    tr_thrift_end(&w);
    int rc = tr_thrift_status(&w, e);
    if (rc) return rc;
    if (type == PAGE_DATA && ch->data_off < 0) ch->data_off = (int64_t)f->pos;
    ch->raw += (int64_t)(f->hdr.len + f->body.len);
    ch->packed += (int64_t)(f->hdr.len + zn);
    if ((rc = emit(f, f->hdr.p, f->hdr.len, e))) return rc;
    return emit(f, f->z, zn, e);
}

/* Writes the page gathered in defs/values/idx, if it holds anything. */
static int flush_page(tr_pq_file *f, const tr_pq_column *col, pq_chunk *ch, int use_dict,
                      tr_error *e)
{
    if (f->n_defs == 0) return TR_OK;
    tr_buf_reset(&f->body);
    int rc = TR_OK;
    if (col->optional) {
        rc = put_le32(&f->body, 0); /* the levels' length, filled in below */
        if (!rc) rc = tr_pq_rle(&f->body, f->defs, f->n_defs, 1);
        if (!rc) {
            uint32_t len = (uint32_t)(f->body.len - 4);
            unsigned char *p = (unsigned char *)f->body.p;
            for (int k = 0; k < 4; k++) p[k] = (unsigned char)(len >> (8 * k));
        }
    }
    if (!rc && use_dict) {
        int width = tr_pq_bit_width(f->dict.n);
        rc = tr_buf_addc(&f->body, (char)width);
        if (!rc) rc = tr_pq_rle(&f->body, f->idx, f->n_idx, width);
    } else if (!rc) {
        rc = tr_buf_add(&f->body, f->values.p, f->values.len);
    }
    if (rc) return tr_error_nomem(e);
    rc = put_page(f, ch, PAGE_DATA, (int32_t)f->n_defs, use_dict ? ENC_RLE_DICTIONARY : ENC_PLAIN,
                  e);
    f->n_defs = f->n_idx = 0;
    tr_buf_reset(&f->values);
    return rc;
}

static void dict_reset(pq_dict *d)
{
    d->n = 0;
    d->last_key = TR_PQ_NO_KEY;
    tr_map_fini(&d->index);
    tr_buf_reset(&d->page);
}

/* The entry of V's key, added if new; *ID gets it.  Returns TR_OK or TR_FATAL. */
static int dict_add(pq_dict *d, const tr_pq_value *v, uint32_t *id)
{
    if (v->key == d->last_key) {
        *id = d->last_id;
        return TR_OK;
    }
    int is_new;
    uint32_t *slot = tr_map_slot(&d->index, v->key, &is_new);
    if (!slot) return TR_FATAL;
    d->last_key = v->key;
    if (!is_new) {
        *id = d->last_id = *slot;
        return TR_OK;
    }
    if (d->n == d->off_cap) {
        size_t cap = d->off_cap ? d->off_cap * 2 : 1024;
        size_t *off = tr_realloc(d->off, cap * sizeof *off);
        if (!off) return TR_FATAL;
        d->off = off;
        d->off_cap = cap;
    }
    d->off[d->n] = d->page.len;
    if (put_le32(&d->page, (uint32_t)v->n) || tr_buf_add(&d->page, v->s, v->n)) return TR_FATAL;
    *id = *slot = d->last_id = (uint32_t)d->n++;
    return TR_OK;
}

/*
** Pass one over a string column's rows: build the dictionary.  Returns 1 when
** the chunk should use it, 0 when a value has no key or it grew too big.
*/
static int build_dict(tr_pq_file *f, int c, uint64_t r0, uint64_t r1, tr_pq_get get, void *user,
                      int *rc, tr_error *e)
{
    dict_reset(&f->dict);
    tr_pq_value v;
    uint32_t id;
    for (uint64_t r = r0; r < r1; r++) {
        memset(&v, 0, sizeof v);
        get(user, c, r, &v);
        if (v.is_null) continue;
        if (v.key == TR_PQ_NO_KEY || v.n > UINT32_MAX) return 0;
        if (dict_add(&f->dict, &v, &id)) {
            *rc = tr_error_nomem(e);
            return 0;
        }
        if (f->dict.page.len > f->lim.dict_bytes) return 0;
    }
    return f->dict.n > 0;
}

static int bytes_less(const char *a, size_t an, const char *b, size_t bn)
{
    int c = memcmp(a, b, an < bn ? an : bn);
    return c < 0 || (c == 0 && an < bn);
}

/* Entry I of the dictionary: its bytes and length. */
static const char *dict_entry(const pq_dict *d, size_t i, size_t *n)
{
    const unsigned char *p = (const unsigned char *)d->page.p + d->off[i];
    *n = (size_t)p[0] | (size_t)p[1] << 8 | (size_t)p[2] << 16 | (size_t)p[3] << 24;
    return (const char *)p + 4;
}

/* String min/max from the dictionary's entries (all used by the chunk), when short. */
static int dict_stats(tr_pq_file *f, pq_chunk *ch)
{
    enum { MAX_STAT = 64 }; /* longer values would bloat the footer */
    const pq_dict *d = &f->dict;
    const char *lo = NULL, *hi = NULL;
    size_t lo_n = 0, hi_n = 0;
    for (size_t i = 0; i < d->n; i++) {
        size_t n;
        const char *p = dict_entry(d, i, &n);
        if (n > MAX_STAT) return TR_OK;
        if (!lo || bytes_less(p, n, lo, lo_n)) lo = p, lo_n = n;
        if (!hi || bytes_less(hi, hi_n, p, n)) hi = p, hi_n = n;
    }
    if (!lo) return TR_OK;
    ch->smin = f->stats.len;
    ch->smin_len = lo_n;
    if (tr_buf_add(&f->stats, lo, lo_n)) return TR_FATAL;
    ch->smax = f->stats.len;
    ch->smax_len = hi_n;
    if (tr_buf_add(&f->stats, hi, hi_n)) return TR_FATAL;
    ch->has_minmax = 1;
    return TR_OK;
}

/* One column chunk: rows R0..R1 of column C. */
static int put_chunk(tr_pq_file *f, int c, uint64_t r0, uint64_t r1, tr_pq_get get, void *user,
                     pq_chunk *ch, tr_error *e)
{
    const tr_pq_column *col = &f->cols[c];
    memset(ch, 0, sizeof *ch);
    ch->first = (int64_t)f->pos;
    ch->data_off = ch->dict_off = -1;
    ch->values = (int64_t)(r1 - r0);
    int rc = TR_OK;
    int use_dict = col->type == TR_PQ_STRING && build_dict(f, c, r0, r1, get, user, &rc, e);
    if (rc) return rc;
    if (use_dict) {
        tr_buf_reset(&f->body);
        if (tr_buf_add(&f->body, f->dict.page.p, f->dict.page.len)) return tr_error_nomem(e);
        ch->dict_off = (int64_t)f->pos;
        if ((rc = put_page(f, ch, PAGE_DICTIONARY, (int32_t)f->dict.n, ENC_PLAIN, e))) return rc;
    }
    int64_t imin = INT64_MAX, imax = INT64_MIN;
    double dmin = INFINITY, dmax = -INFINITY;
    int any = 0;
    tr_pq_value v;
    for (uint64_t r = r0; r < r1 && !rc; r++) {
        memset(&v, 0, sizeof v);
        get(user, c, r, &v);
        if (v.is_null && !col->optional) v.is_null = 0; /* the caller's bug: write a zero */
        f->defs[f->n_defs++] = !v.is_null;
        if (v.is_null) {
            ch->nulls++;
        } else if (col->type == TR_PQ_INT64) {
            unsigned char p[8];
            le64(p, (uint64_t)v.i);
            rc = tr_buf_add(&f->values, p, 8);
            if (v.i < imin) imin = v.i;
            if (v.i > imax) imax = v.i;
            any = 1;
        } else if (col->type == TR_PQ_DOUBLE) {
            unsigned char p[8];
            uint64_t bits;
            memcpy(&bits, &v.d, 8);
            le64(p, bits);
            rc = tr_buf_add(&f->values, p, 8);
            if (!isnan(v.d)) {
                if (v.d < dmin) dmin = v.d;
                if (v.d > dmax) dmax = v.d;
                any = 1;
            }
        } else if (use_dict) {
            rc = dict_add(&f->dict, &v, &f->idx[f->n_idx]);
            f->n_idx++;
        } else {
            if (v.n > UINT32_MAX) return tr_errorf(e, TR_E_LIMIT, NULL, "a string over 4 GiB");
            rc = put_le32(&f->values, (uint32_t)v.n);
            if (!rc) rc = tr_buf_add(&f->values, v.s, v.n);
        }
        if (rc) return tr_error_nomem(e);
        if (f->n_defs == PAGE_VALUES || f->values.len >= f->lim.page_bytes)
            rc = flush_page(f, col, ch, use_dict, e);
    }
    if (!rc) rc = flush_page(f, col, ch, use_dict, e);
    if (rc) return rc;
    if (any && col->type == TR_PQ_INT64) {
        le64(ch->min, (uint64_t)imin);
        le64(ch->max, (uint64_t)imax);
        ch->has_minmax = 1;
    } else if (any && col->type == TR_PQ_DOUBLE) {
        /* The spec's rule for zeros: a min of 0 is written -0, a max +0. */
        if (dmin == 0) dmin = -0.0;
        if (dmax == 0) dmax = 0.0;
        uint64_t bits;
        memcpy(&bits, &dmin, 8);
        le64(ch->min, bits);
        memcpy(&bits, &dmax, 8);
        le64(ch->max, bits);
        ch->has_minmax = 1;
    } else if (use_dict && dict_stats(f, ch)) {
        return tr_error_nomem(e);
    }
    return TR_OK;
}

int tr_pq_file_rows(tr_pq_file *f, uint64_t n, tr_pq_get get, void *user, tr_error *e)
{
    for (uint64_t r0 = 0; r0 < n;) {
        uint64_t r1 = n - r0 > f->lim.row_group_rows ? r0 + f->lim.row_group_rows : n;
        pq_group *g = tr_vec_push(&f->groups);
        if (!g || tr_vec_reserve(&f->chunks, f->chunks.len + (size_t)f->ncols))
            return tr_error_nomem(e);
        g->rows = r1 - r0;
        g->offset = (int64_t)f->pos;
        for (int c = 0; c < f->ncols; c++) {
            pq_chunk *ch = tr_vec_push(&f->chunks);
            int rc = put_chunk(f, c, r0, r1, get, user, ch, e);
            if (rc) return rc;
            g->raw += ch->raw;
            g->packed += ch->packed;
        }
        f->rows += r1 - r0;
        r0 = r1;
    }
    return TR_OK;
}

static int physical(int type)
{
    return type == TR_PQ_INT64 ? PT_INT64 : type == TR_PQ_DOUBLE ? PT_DOUBLE : PT_BYTE_ARRAY;
}

static void footer_schema(tr_thrift *w, const tr_pq_file *f)
{
    tr_thrift_list(w, 2, TR_THRIFT_STRUCT, (size_t)f->ncols + 1);
    tr_thrift_elem_struct(w);
    tr_thrift_binary(w, 4, "schema", 6);
    tr_thrift_i32(w, 5, f->ncols);
    tr_thrift_end(w);
    for (int c = 0; c < f->ncols; c++) {
        const tr_pq_column *col = &f->cols[c];
        tr_thrift_elem_struct(w);
        tr_thrift_i32(w, 1, physical(col->type));
        tr_thrift_i32(w, 3, col->optional ? REP_OPTIONAL : REP_REQUIRED);
        tr_thrift_binary(w, 4, col->name, strlen(col->name));
        if (col->type == TR_PQ_STRING) {
            tr_thrift_i32(w, 6, CONVERTED_UTF8);
            tr_thrift_struct(w, 10); /* LogicalType: STRING */
            tr_thrift_struct(w, 1);
            tr_thrift_end(w);
            tr_thrift_end(w);
        }
        tr_thrift_end(w);
    }
}

static void footer_chunk(tr_thrift *w, const tr_pq_file *f, int c, const pq_chunk *ch)
{
    const tr_pq_column *col = &f->cols[c];
    tr_thrift_elem_struct(w);
    tr_thrift_i64(w, 2, ch->first);
    tr_thrift_struct(w, 3);
    tr_thrift_i32(w, 1, physical(col->type));
    tr_thrift_list(w, 2, TR_THRIFT_I32, ch->dict_off >= 0 ? 3 : 2);
    tr_thrift_elem_i32(w, ENC_PLAIN);
    tr_thrift_elem_i32(w, ENC_RLE);
    if (ch->dict_off >= 0) tr_thrift_elem_i32(w, ENC_RLE_DICTIONARY);
    tr_thrift_list(w, 3, TR_THRIFT_BINARY, 1);
    tr_thrift_elem_binary(w, col->name, strlen(col->name));
    tr_thrift_i32(w, 4, CODEC_ZSTD);
    tr_thrift_i64(w, 5, ch->values);
    tr_thrift_i64(w, 6, ch->raw);
    tr_thrift_i64(w, 7, ch->packed);
    tr_thrift_i64(w, 9, ch->data_off >= 0 ? ch->data_off : ch->first);
    if (ch->dict_off >= 0) tr_thrift_i64(w, 11, ch->dict_off);
    tr_thrift_struct(w, 12);
    tr_thrift_i64(w, 3, ch->nulls);
    if (ch->has_minmax && col->type == TR_PQ_STRING) {
        tr_thrift_binary(w, 5, f->stats.p + ch->smax, ch->smax_len);
        tr_thrift_binary(w, 6, f->stats.p + ch->smin, ch->smin_len);
    } else if (ch->has_minmax) {
        tr_thrift_binary(w, 5, ch->max, 8);
        tr_thrift_binary(w, 6, ch->min, 8);
    }
    tr_thrift_end(w); /* Statistics */
    tr_thrift_end(w); /* ColumnMetaData */
    tr_thrift_end(w); /* ColumnChunk */
}

int tr_pq_file_finish(tr_pq_file *f, tr_error *e)
{
    tr_buf foot;
    tr_buf_init(&foot, 0);
    tr_thrift w;
    tr_thrift_begin(&w, &foot);
    tr_thrift_i32(&w, 1, 1);
    footer_schema(&w, f);
    tr_thrift_i64(&w, 3, (int64_t)f->rows);
    tr_thrift_list(&w, 4, TR_THRIFT_STRUCT, f->groups.len);
    for (size_t g = 0; g < f->groups.len; g++) {
        const pq_group *gr = &TR_VEC_AT(&f->groups, pq_group, g);
        tr_thrift_elem_struct(&w);
        tr_thrift_list(&w, 1, TR_THRIFT_STRUCT, (size_t)f->ncols);
        for (int c = 0; c < f->ncols; c++)
            footer_chunk(&w, f, c,
                         &TR_VEC_AT(&f->chunks, pq_chunk, g * (size_t)f->ncols + (size_t)c));
        tr_thrift_i64(&w, 2, gr->raw);
        tr_thrift_i64(&w, 3, (int64_t)gr->rows);
        tr_thrift_i64(&w, 5, gr->offset);
        tr_thrift_i64(&w, 6, gr->packed);
        tr_thrift_end(&w);
    }
    if (f->n_kv) {
        tr_thrift_list(&w, 5, TR_THRIFT_STRUCT, f->n_kv);
        for (const char *p = f->kv.p; p < f->kv.p + f->kv.len;) {
            size_t kn = strlen(p);
            const char *val = p + kn + 1;
            size_t vn = strlen(val);
            tr_thrift_elem_struct(&w);
            tr_thrift_binary(&w, 1, p, kn);
            tr_thrift_binary(&w, 2, val, vn);
            tr_thrift_end(&w);
            p = val + vn + 1;
        }
    }
    static const char created_by[] = "tracecat version " TRACECAT_VERSION;
    tr_thrift_binary(&w, 6, created_by, sizeof created_by - 1);
    /* TypeDefinedOrder: min_value/max_value compare as the type does (bytes unsigned). */
    tr_thrift_list(&w, 7, TR_THRIFT_STRUCT, (size_t)f->ncols);
    for (int c = 0; c < f->ncols; c++) {
        tr_thrift_elem_struct(&w);
        tr_thrift_struct(&w, 1);
        tr_thrift_end(&w);
        tr_thrift_end(&w);
    }
    tr_thrift_end(&w);
    int rc = tr_thrift_status(&w, e);
    if (!rc && foot.len > UINT32_MAX) rc = tr_errorf(e, TR_E_LIMIT, NULL, "a footer over 4 GiB");
    if (!rc && (put_le32(&foot, (uint32_t)foot.len) || tr_buf_add(&foot, "PAR1", 4)))
        rc = tr_error_nomem(e);
    if (!rc) rc = emit(f, foot.p, foot.len, e);
    tr_buf_fini(&foot);
    tr_pq_file_free(f);
    return rc;
}
