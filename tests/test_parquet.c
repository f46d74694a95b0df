/*
** test_parquet.c: the Parquet writer's encoders, byte for byte.  The expected
** bytes were worked out by hand from the Thrift compact protocol spec and
** parquet-format's Encodings.md (the bit-packing example is the spec's own).
** Reading whole files back is DuckDB's job (tests/parquet/).
*/
#include "parquet_impl.h"
#include "tr_test.h"
#include "tr_writers.h"

#include <stdlib.h>
#include <zstd.h>

static int bytes_eq(const tr_buf *b, const unsigned char *want, size_t n)
{
    if (b->len != n || memcmp(b->p, want, n) != 0) {
        fprintf(stderr, "  got");
        for (size_t i = 0; i < b->len; i++) fprintf(stderr, " %02x", (unsigned char)b->p[i]);
        fprintf(stderr, "\n");
        return 0;
    }
    return 1;
}

TR_TEST(thrift_fields)
{
    tr_buf b;
    tr_buf_init(&b, 0);
    tr_thrift w;
    tr_thrift_begin(&w, &b);
    tr_thrift_i32(&w, 1, 0);           /* 0x15: delta 1, i32; zigzag 0 */
    tr_thrift_i64(&w, 2, -1);          /* 0x16; zigzag(-1) = 1 */
    tr_thrift_bool(&w, 3, 1);          /* 0x11: the value rides in the type */
    tr_thrift_binary(&w, 20, "hi", 2); /* delta 17: long form, type 8, zigzag(20) = 40 */
    tr_thrift_struct(&w, 21);          /* 0x1c */
    tr_thrift_i32(&w, 1, 300);         /* zigzag 600 = 0x258: varint d8 04 */
    tr_thrift_end(&w);
    tr_thrift_list(&w, 22, TR_THRIFT_I32, 3); /* 0x19, then 0x35: 3 elements of i32 */
    tr_thrift_elem_i32(&w, 1);
    tr_thrift_elem_i32(&w, 2);
    tr_thrift_elem_i32(&w, -3);
    tr_thrift_bool(&w, 22, 0); /* delta 0: long form, 0x02 then zigzag(22) = 44 */
    tr_thrift_end(&w);
    CHECK_INT(tr_thrift_status(&w, NULL), TR_OK);
    static const unsigned char want[] = {0x15, 0x00, 0x16, 0x01, 0x11, 0x08, 0x28, 0x02,
                                         'h',  'i',  0x1c, 0x15, 0xd8, 0x04, 0x00, 0x19,
                                         0x35, 0x02, 0x04, 0x05, 0x02, 0x2c, 0x00};
    CHECK(bytes_eq(&b, want, sizeof want));
    tr_buf_fini(&b);
}

TR_TEST(thrift_long_list_and_nesting)
{
    tr_buf b;
    tr_buf_init(&b, 0);
    tr_thrift w;
    tr_thrift_begin(&w, &b);
    tr_thrift_list(&w, 1, TR_THRIFT_STRUCT, 16); /* 16 >= 15: 0xfc then varint 16 */
    for (int i = 0; i < 16; i++) {
        tr_thrift_elem_struct(&w);
        tr_thrift_i64(&w, 1, i); /* field ids restart at 0 in each element */
        tr_thrift_end(&w);
    }
    tr_thrift_end(&w);
    CHECK_INT(tr_thrift_status(&w, NULL), TR_OK);
    CHECK_INT(b.len, 3 + 16 * 3 + 1);
    CHECK_INT((unsigned char)b.p[0], 0x19);
    CHECK_INT((unsigned char)b.p[1], 0xfc);
    CHECK_INT((unsigned char)b.p[2], 16);
    CHECK_INT((unsigned char)b.p[3], 0x16);
    CHECK_INT((unsigned char)b.p[4], 0x00);
    CHECK_INT((unsigned char)b.p[3 + 15 * 3 + 1], 30); /* zigzag(15) */
    /* an unclosed struct, and nesting past the limit, are reported */
    tr_buf_reset(&b);
    tr_thrift_begin(&w, &b);
    tr_thrift_struct(&w, 1);
    tr_thrift_end(&w);
    tr_error e = {0};
    CHECK_INT(tr_thrift_status(&w, &e), TR_FAIL);
    tr_thrift_begin(&w, &b);
    for (int i = 0; i < TR_THRIFT_DEPTH; i++) tr_thrift_struct(&w, 1);
    CHECK_INT(tr_thrift_status(&w, &e), TR_FAIL);
    tr_buf_fini(&b);
}

TR_TEST(bit_width)
{
    CHECK_INT(tr_pq_bit_width(1), 1);
    CHECK_INT(tr_pq_bit_width(2), 1);
    CHECK_INT(tr_pq_bit_width(3), 2);
    CHECK_INT(tr_pq_bit_width(4), 2);
    CHECK_INT(tr_pq_bit_width(5), 3);
    CHECK_INT(tr_pq_bit_width(256), 8);
    CHECK_INT(tr_pq_bit_width(257), 9);
}

TR_TEST(rle_hybrid)
{
    tr_buf b;
    tr_buf_init(&b, 0);
    /* Encodings.md: 0..7 bit-packed with width 3 is 10001000 11000110 11111010 */
    static const uint32_t seq[] = {0, 1, 2, 3, 4, 5, 6, 7};
    CHECK_INT(tr_pq_rle(&b, seq, 8, 3), TR_OK);
    static const unsigned char packed[] = {0x03, 0x88, 0xc6, 0xfa};
    CHECK(bytes_eq(&b, packed, sizeof packed));
    /* ten 7s: an RLE run, header 10 << 1, the value in one byte */
    static const uint32_t same[] = {7, 7, 7, 7, 7, 7, 7, 7, 7, 7};
    tr_buf_reset(&b);
    CHECK_INT(tr_pq_rle(&b, same, 10, 3), TR_OK);
    static const unsigned char run[] = {0x14, 0x07};
    CHECK(bytes_eq(&b, run, sizeof run));
    /* a value of width 9 takes two bytes in a run: 300 = 2c 01; 200 runs: varint 400 */
    uint32_t wide[200];
    for (int i = 0; i < 200; i++) wide[i] = 300;
    tr_buf_reset(&b);
    CHECK_INT(tr_pq_rle(&b, wide, 200, 9), TR_OK);
    static const unsigned char wide_run[] = {0x90, 0x03, 0x2c, 0x01};
    CHECK(bytes_eq(&b, wide_run, sizeof wide_run));
    /* 1, 0, 1 (definition levels): one group padded with zeros, bits 101 */
    static const uint32_t defs[] = {1, 0, 1};
    tr_buf_reset(&b);
    CHECK_INT(tr_pq_rle(&b, defs, 3, 1), TR_OK);
    static const unsigned char lit[] = {0x03, 0x05};
    CHECK(bytes_eq(&b, lit, sizeof lit));
    /* 8 literals (a group) then 9 zeros: the run follows the group, no padding between */
    static const uint32_t mix[] = {1, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    tr_buf_reset(&b);
    CHECK_INT(tr_pq_rle(&b, mix, 17, 1), TR_OK);
    static const unsigned char mixed[] = {0x03, 0x8d, 0x12, 0x00};
    CHECK(bytes_eq(&b, mixed, sizeof mixed));
    tr_buf_fini(&b);
}

/* ---- whole files: columns from arrays ---- */

typedef struct rows {
    const int64_t *ints;     /* column 0 when set; negative entries are nulls */
    const char *const *strs; /* the other column; NULL entries are nulls */
} rows;

static void get_rows(void *user, int col, uint64_t row, tr_pq_value *v)
{
    const rows *r = user;
    if (col == 0 && r->ints) {
        v->i = r->ints[row];
        v->is_null = r->ints[row] < 0;
        return;
    }
    const char *s = r->strs[row];
    v->is_null = s == NULL;
    v->s = s ? s : "";
    v->n = s ? strlen(s) : 0;
    v->key = s ? (uint64_t)(unsigned char)s[0] : 0; /* first letters differ in the tests */
}

static unsigned char *write_file(const tr_pq_column *cols, int ncols, const rows *r, uint64_t n,
                                 size_t *size)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/t.parquet", tr_test_tmpdir());
    tr_output *out;
    tr_pq_file *f;
    tr_error e = {0};
    CHECK_INT(tr_output_open(&out, path, &e), TR_OK);
    CHECK_INT(tr_pq_file_open(&f, out, cols, ncols, NULL, &e), TR_OK);
    CHECK_INT(tr_pq_file_rows(f, n, get_rows, (void *)r, &e), TR_OK);
    CHECK_INT(tr_pq_file_finish(f, &e), TR_OK);
    CHECK_INT(tr_output_commit(out, &e), TR_OK);
    FILE *fp = fopen(path, "rb");
    CHECK(fp != NULL);
    unsigned char *buf = malloc(1 << 16);
    *size = fp ? fread(buf, 1, 1 << 16, fp) : 0;
    if (fp) fclose(fp);
    return buf;
}

/* Checks the page header at P (a data page of N values, ENCODING) and returns its body. */
static const unsigned char *data_page(const unsigned char *p, int n, int encoding, size_t *raw,
                                      size_t *packed)
{
    CHECK_INT(p[0], 0x15); /* type */
    CHECK_INT(p[1], 0x00); /* DATA_PAGE */
    CHECK_INT(p[2], 0x15); /* uncompressed size, one varint byte here */
    *raw = p[3] / 2;
    CHECK_INT(p[4], 0x15); /* compressed size */
    *packed = p[5] / 2;
    CHECK_INT(p[6], 0x2c);  /* field 5, DataPageHeader */
    CHECK_INT(p[7], 0x15);  /* num_values */
    CHECK_INT(p[8], 2 * n); /* zigzag */
    CHECK_INT(p[9], 0x15);  /* encoding */
    CHECK_INT(p[10], 2 * encoding);
    CHECK_INT(p[11], 0x15); /* definition levels: RLE */
    CHECK_INT(p[12], 6);
    CHECK_INT(p[13], 0x15); /* repetition levels: RLE */
    CHECK_INT(p[14], 6);
    CHECK_INT(p[15], 0x00); /* DataPageHeader ends */
    CHECK_INT(p[16], 0x00); /* PageHeader ends */
    return p + 17;
}

static void unzstd(const unsigned char *p, size_t packed, const unsigned char *want, size_t n)
{
    unsigned char out[256];
    size_t got = ZSTD_decompress(out, sizeof out, p, packed);
    CHECK(!ZSTD_isError(got));
    CHECK_INT(got, n);
    CHECK(got == n && memcmp(out, want, n) == 0);
}

TR_TEST(file_plain_int_page)
{
    static const tr_pq_column cols[] = {{.name = "v", .type = TR_PQ_INT64, .optional = 1}};
    static const int64_t ints[] = {1, -1, 3};
    rows r = {.ints = ints};
    size_t size;
    unsigned char *f = write_file(cols, 1, &r, 3, &size);
    CHECK(size > 32);
    CHECK(memcmp(f, "PAR1", 4) == 0);
    CHECK(memcmp(f + size - 4, "PAR1", 4) == 0);
    size_t raw, packed;
    const unsigned char *body = data_page(f + 4, 3, 0, &raw, &packed);
    /* levels: length 2, then 1,0,1 bit-packed; values 1 and 3 as 8-byte little-endian */
    static const unsigned char want[] = {2, 0, 0, 0, 0x03, 0x05, 1, 0, 0, 0, 0,
                                         0, 0, 0, 3, 0,    0,    0, 0, 0, 0, 0};
    CHECK_INT(raw, sizeof want);
    unzstd(body, packed, want, sizeof want);
    /* footer: version 1, then the schema list (root and one column) */
    size_t flen = f[size - 8] | (size_t)f[size - 7] << 8;
    const unsigned char *foot = f + size - 8 - flen;
    CHECK_INT(foot[0], 0x15);
    CHECK_INT(foot[1], 0x02);
    CHECK_INT(foot[2], 0x19);
    CHECK_INT(foot[3], 0x2c); /* 2 structs */
    free(f);
}

TR_TEST(file_dictionary_page)
{
    static const tr_pq_column cols[] = {{.name = "s", .type = TR_PQ_STRING, .optional = 0}};
    static const char *const strs[] = {"a", "bc", "a"};
    rows r = {.strs = strs};
    size_t size;
    unsigned char *f = write_file(cols, 1, &r, 3, &size);
    /* the dictionary page: type 2, then DictionaryPageHeader (field 7) of 2 PLAIN values */
    const unsigned char *p = f + 4;
    CHECK_INT(p[0], 0x15);
    CHECK_INT(p[1], 0x04);
    size_t raw = p[3] / 2, packed = p[5] / 2;
    CHECK_INT(p[6], 0x4c); /* field 7 is 4 past field 3 */
    CHECK_INT(p[7], 0x15);
    CHECK_INT(p[8], 4); /* 2 entries */
    CHECK_INT(p[9], 0x15);
    CHECK_INT(p[10], 0); /* PLAIN */
    CHECK_INT(p[11], 0);
    CHECK_INT(p[12], 0);
    static const unsigned char dict[] = {1, 0, 0, 0, 'a', 2, 0, 0, 0, 'b', 'c'};
    CHECK_INT(raw, sizeof dict);
    unzstd(p + 13, packed, dict, sizeof dict);
    /* then the data page: bit width 1, indices 0,1,0 in one padded group */
    size_t draw, dpacked;
    const unsigned char *body = data_page(p + 13 + packed, 3, 8, &draw, &dpacked);
    static const unsigned char idx[] = {1, 0x03, 0x02};
    unzstd(body, dpacked, idx, sizeof idx);
    free(f);
}

TR_TEST(file_empty)
{
    static const tr_pq_column cols[] = {{.name = "v", .type = TR_PQ_INT64, .optional = 0}};
    rows r = {0};
    size_t size;
    unsigned char *f = write_file(cols, 1, &r, 0, &size);
    /* no row group: magic, footer, length, magic */
    CHECK(memcmp(f, "PAR1", 4) == 0);
    size_t flen = f[size - 8] | (size_t)f[size - 7] << 8;
    CHECK_INT(4 + flen + 8, size);
    free(f);
}

TR_TEST(writer_refuses_standard_output)
{
    tr_trace *t = tr_trace_new();
    tr_error e = {0};
    CHECK(tr_write_trace(tr_writer_find("parquet"), t, "-", NULL, &e) < 0);
    CHECK_INT(e.code, TR_E_USAGE);
    CHECK(strstr(e.msg, "directory") != NULL);
    tr_trace_free(t);
}

/* A small trace of every table: two ranks, slices with args, a flow, samples. */
static tr_trace *small_trace(void)
{
    tr_trace *t = tr_trace_new();
    uint32_t in = tr_input_add(t, "/nowhere/small.json", "chrome");
    for (int r = 0; r < 2; r++) {
        uint32_t p = tr_process_intern(t, in, 100 + r);
        tr_process_at(t, p)->rank = r;
        uint32_t k = tr_track_intern(t, p, TR_TRACK_THREAD, 1, 0);
        tr_args_begin(t);
        tr_args_str(t, tr_str_internz(t, "path"), tr_str_internz(t, "/data/x"));
        tr_args_int(t, tr_str_internz(t, "offset"), 4096);
        uint32_t set = tr_args_end(t);
        uint32_t a = tr_slice_add(t, k, 10, 5, tr_str_internz(t, "read"),
                                  tr_str_internz(t, "POSIX"), 4096, set);
        uint32_t b = tr_slice_add(t, k, 20, 1, tr_str_internz(t, "write"), 0, -1, 0);
        tr_flow f = {.from = TR_REF(TR_EV_SLICE, a), .to = TR_REF(TR_EV_SLICE, b), .id = 7};
        tr_flow_add(t, &f);
        tr_frame fr = {.function = tr_str_internz(t, "main"), .line = 3};
        uint32_t s = tr_stack_push(t, 0, tr_frame_intern(t, &fr));
        tr_sample_add(t, k, 15, s, 0);
        tr_counter_add(t, tr_track_intern(t, p, TR_TRACK_COUNTER, -1, tr_str_internz(t, "mem")), 12,
                       1.5);
    }
    tr_error e = {0};
    CHECK_INT(tr_trace_freeze(t, &e), TR_OK);
    return t;
}

/* ---- reading a footer's num_rows (Thrift compact protocol, just enough) ---- */

static uint64_t varint(const unsigned char **p)
{
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
        unsigned char b = *(*p)++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) return v;
    }
}

static int64_t zigzag(uint64_t v)
{
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static void skip(const unsigned char **p, int type);

static void skip_struct(const unsigned char **p)
{
    for (unsigned char h; (h = *(*p)++) != 0;) {
        if ((h >> 4) == 0) varint(p); /* a field id in long form */
        skip(p, h & 0x0f);
    }
}

static void skip(const unsigned char **p, int type)
{
    if (type == 3) {
        (*p)++;
    } else if (type >= 4 && type <= 6) {
        varint(p);
    } else if (type == 7) {
        *p += 8;
    } else if (type == 8) {
        uint64_t n = varint(p);
        *p += n;
    } else if (type == 9 || type == 10) {
        unsigned char h = *(*p)++;
        uint64_t n = h >> 4 == 15 ? varint(p) : h >> 4;
        for (uint64_t i = 0; i < n; i++) {
            if ((h & 0x0f) <= 2)
                (*p)++; /* a bool element is a byte */
            else
                skip(p, h & 0x0f);
        }
    } else if (type == 12) {
        skip_struct(p);
    }
}

/*
** FileMetaData.num_rows (field 3) of the Parquet file PATH, and (GROUPS, when
** not NULL) how many row groups field 4 lists; -1 when unreadable.
*/
static int64_t file_rows_groups(const char *path, int64_t *groups)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    unsigned char *b = malloc((size_t)size);
    fseek(f, 0, SEEK_SET);
    int64_t rows = -1;
    if (b && fread(b, 1, (size_t)size, f) == (size_t)size && size > 12) {
        size_t flen = b[size - 8] | (size_t)b[size - 7] << 8 | (size_t)b[size - 6] << 16;
        const unsigned char *p = b + size - 8 - flen;
        for (int id = 0;;) {
            unsigned char h = *p++;
            if (h == 0) break;
            id = h >> 4 ? id + (h >> 4) : (int)zigzag(varint(&p));
            if (id == 3 && (h & 0x0f) == 6) {
                rows = zigzag(varint(&p));
            } else if (id == 4 && (h & 0x0f) == 9 && groups) {
                const unsigned char *q = p;
                *groups = *q >> 4 == 15 ? (q++, (int64_t)varint(&q)) : *q >> 4;
                skip(&p, 9);
            } else {
                skip(&p, h & 0x0f);
            }
        }
    }
    free(b);
    fclose(f);
    return rows;
}

/* The Parquet files under DIR, and (ROWS) their rows. */
static int count_files_rows(const char *dir, int64_t *rows)
{
    char cmd[1200], path[4096];
    snprintf(cmd, sizeof cmd, "find '%s' -name '*.parquet'", dir);
    FILE *p = popen(cmd, "r");
    int n = 0;
    *rows = 0;
    while (p && fgets(path, sizeof path, p)) {
        path[strcspn(path, "\n")] = '\0';
        *rows += file_rows_groups(path, NULL);
        n++;
    }
    if (p) pclose(p);
    return n;
}

TR_TEST(parts_per_rank)
{
    tr_trace *t = small_trace();
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/ranked", tr_test_tmpdir());
    tr_write_opts o = {.partition_rank = 1};
    const tr_writer *pq = tr_writer_find("parquet");
    tr_error e = {0};
    CHECK_INT(tr_write_trace(pq, t, dir, &o, &e), TR_OK);
    int64_t rows;
    CHECK_INT(count_files_rows(dir, &rows), 2 * 14); /* every table for each of the two ranks */
    /* per rank: 2 slices, 1 sample, 1 counter, 1 flow, 2 args, 1 callsite, 1 frame,
       1 sample_stack, 1 input, 1 process, 1 thread, 2 tracks, no io (not Recorder) */
    CHECK_INT(rows, 2 * (2 + 1 + 1 + 1 + 2 + 1 + 1 + 1 + 1 + 1 + 1 + 2));
    /* the other layout in the same directory is refused */
    o.partition_rank = 0;
    CHECK(tr_write_trace(pq, t, dir, &o, &e) < 0);
    CHECK_INT(e.code, TR_E_USAGE);
    tr_trace_free(t);
}

/* Small row groups: the option reaches the files (each table's rows in groups of 1). */
TR_TEST(row_group_option)
{
    tr_trace *t = small_trace();
    char dir[1024], path[1200];
    snprintf(dir, sizeof dir, "%s/groups", tr_test_tmpdir());
    tr_write_opts o = {.row_group_rows = 1};
    tr_error e = {0};
    CHECK_INT(tr_write_trace(tr_writer_find("parquet"), t, dir, &o, &e), TR_OK);
    snprintf(path, sizeof path, "find '%s/slice' -name '*.parquet' | head -1", dir);
    FILE *p = popen(path, "r");
    CHECK(p && fgets(path, sizeof path, p));
    if (p) pclose(p);
    path[strcspn(path, "\n")] = '\0';
    int64_t groups = -1;
    CHECK_INT(file_rows_groups(path, &groups), 4); /* the 4 slices of the one part */
    CHECK_INT(groups, 4);
    tr_trace_free(t);
}

TR_TEST(out_of_memory)
{
    /* Every allocation in turn fails: each run reports TR_E_NOMEM and frees what it took. */
    tr_trace *t = small_trace();
    char dir[1024];
    int done = 0;
    for (uint64_t n = 1; n < 5000 && !done; n++) {
        snprintf(dir, sizeof dir, "%s/oom%llu", tr_test_tmpdir(), (unsigned long long)n);
        tr_error e = {0};
        tr_alloc_fail_after(n);
        int rc = tr_write_trace(tr_writer_find("parquet"), t, dir, NULL, &e);
        tr_alloc_fail_after(0);
        if (rc == TR_OK)
            done = 1;
        else if (e.code != TR_E_NOMEM)
            CHECK_INT(e.code, TR_E_NOMEM);
    }
    CHECK(done);
    tr_trace_free(t);
}
