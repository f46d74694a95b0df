/*
** png.c: the PNG writer of the image surface, built for flat-colour pictures.
**
** cairo's own writer (libpng at zlib's default level and adaptive filters)
** took most of a timeline's fixed cost.  Here every row is 8-bit RGB (the
** surface is opaque), filtered Up (zeros wherever it repeats the row above;
** Sub came out 5-10 % larger on timelines) and deflated by zlib at level 1
** (level 3 saved 2 % more).  A picture repeats rows a lot
** (lanes, margins, bars): a run of repeated rows does not go through zlib at
** all.  After a full flush (which makes zlib forget its window, so nothing
** later points back past it) the run is written as a deflate block of our
** own: fixed Huffman codes, each row a filter byte and a zero followed by
** copies at distance 1; an empty stored block realigns the stream to a byte
** for zlib to go on.  The zlib header and Adler-32 are ours too (zlib writes
** raw deflate).
*/
#include "render_impl.h"

#include <zlib.h>

#define PNG_LEVEL  1
#define SPLICE_MIN 8         /* rows: shorter runs are cheaper through zlib */
#define IDAT_BYTES (1 << 18) /* compressed bytes per IDAT chunk */
#define FILTER_UP  2

typedef struct png_writer {
    tr_output *out;
    tr_error *e;
    z_stream z;
    unsigned char *buf; /* compressed bytes of the IDAT chunk being filled */
    uint32_t adler;     /* of the filtered rows, the zlib trailer */
    uint64_t bits;      /* our own blocks: bits not yet written, LSB first */
    int nbits;
} png_writer;

/* ---- chunks ---- */

static void put_be32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static int chunk(png_writer *w, const char *type, const unsigned char *data, size_t n)
{
    unsigned char head[8], tail[4];
    put_be32(head, (uint32_t)n);
    memcpy(head + 4, type, 4);
    uLong crc = crc32(0, head + 4, 4);
    if (n) crc = crc32(crc, data, (uInt)n);
    put_be32(tail, (uint32_t)crc);
    if (tr_output_write(w->out, head, 8, w->e) < 0) return TR_FAIL;
    if (n && tr_output_write(w->out, data, n, w->e) < 0) return TR_FAIL;
    return tr_output_write(w->out, tail, 4, w->e);
}

/* Writes the compressed bytes gathered so far as one IDAT chunk. */
static int idat_flush(png_writer *w)
{
    size_t n = (size_t)(w->z.next_out - w->buf);
    if (n && chunk(w, "IDAT", w->buf, n) < 0) return TR_FAIL;
    w->z.next_out = w->buf;
    w->z.avail_out = IDAT_BYTES;
    return TR_OK;
}

static int put_byte(png_writer *w, unsigned char b)
{
    if (w->z.avail_out == 0 && idat_flush(w) < 0) return TR_FAIL;
    *w->z.next_out++ = b;
    w->z.avail_out--;
    return TR_OK;
}

/* ---- zlib ---- */

/* Deflates N bytes at P (N 0 with FLUSH to flush or finish). */
static int deflate_bytes(png_writer *w, const unsigned char *p, size_t n, int flush)
{
    w->z.next_in = (unsigned char *)p;
    w->z.avail_in = (uInt)n;
    if (n) w->adler = (uint32_t)adler32(w->adler, p, (uInt)n);
    for (;;) {
        if (w->z.avail_out == 0 && idat_flush(w) < 0) return TR_FAIL;
        int zr = deflate(&w->z, flush);
        if (zr == Z_STREAM_ERROR)
            return tr_errorf(w->e, TR_E_IO, NULL, "zlib: %s", w->z.msg ? w->z.msg : "error");
        if (w->z.avail_out == 0) continue;
        if (flush == Z_FINISH ? zr == Z_STREAM_END : w->z.avail_in == 0) return TR_OK;
    }
}

/* ---- our own blocks: runs of repeated rows ---- */

static int put_bits(png_writer *w, uint32_t v, int n)
{
    w->bits |= (uint64_t)v << w->nbits;
    w->nbits += n;
    while (w->nbits >= 8) {
        if (put_byte(w, (unsigned char)w->bits) < 0) return TR_FAIL;
        w->bits >>= 8;
        w->nbits -= 8;
    }
    return TR_OK;
}

/* A symbol of the fixed literal/length code (RFC 1951 3.2.6), sent first bit first. */
static int put_fixed(png_writer *w, int sym)
{
    uint32_t code;
    int n;
    if (sym < 144)
        code = 0x30 + (uint32_t)sym, n = 8;
    else if (sym < 256)
        code = 0x190 + (uint32_t)(sym - 144), n = 9;
    else if (sym < 280)
        code = (uint32_t)(sym - 256), n = 7;
    else
        code = 0xc0 + (uint32_t)(sym - 280), n = 8;
    uint32_t rev = 0;
    for (int i = 0; i < n; i++) rev |= ((code >> i) & 1) << (n - 1 - i);
    return put_bits(w, rev, n);
}

/* A copy of LEN (3..258) bytes at distance 1: its length symbol and extra bits, distance code 0. */
static int put_copy(png_writer *w, int len)
{
    static const short base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                   31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
    static const unsigned char extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                            2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
    int i = 28;
    while (base[i] > len) i--;
    int rc = put_fixed(w, 257 + i);
    if (rc >= 0 && extra[i]) rc = put_bits(w, (uint32_t)(len - base[i]), extra[i]);
    if (rc >= 0) rc = put_bits(w, 0, 5);
    return rc;
}

/* ROWS rows of Up filter and ROW_BYTES zeros each, as one fixed-Huffman block. */
static int put_run(png_writer *w, size_t rows, size_t row_bytes)
{
    if (deflate_bytes(w, NULL, 0, Z_FULL_FLUSH) < 0) return TR_FAIL;
    int rc = put_bits(w, 1 << 1, 3); /* not final, fixed codes */
    for (size_t r = 0; r < rows && rc >= 0; r++) {
        rc = put_fixed(w, FILTER_UP);
        if (rc >= 0) rc = put_fixed(w, 0);
        size_t left = row_bytes - 1;
        while (rc >= 0 && left >= 3) {
            int len = left > 258 ? 258 : (int)left;
            rc = put_copy(w, len);
            left -= (size_t)len;
        }
        while (rc >= 0 && left-- > 0) rc = put_fixed(w, 0);
    }
    /* The end of the block, then an empty stored block to come back to a byte boundary. */
    if (rc >= 0) rc = put_fixed(w, 256);
    if (rc >= 0) rc = put_bits(w, 0, 3);
    if (rc >= 0 && w->nbits) rc = put_bits(w, 0, 8 - w->nbits);
    static const unsigned char empty[4] = {0, 0, 0xff, 0xff};
    for (int i = 0; i < 4 && rc >= 0; i++) rc = put_byte(w, empty[i]);
    return rc;
}

/* ---- rows ---- */

typedef struct png_rows {
    size_t bytes;        /* RGB bytes of a row */
    unsigned char *rgb;  /* this row */
    unsigned char *prev; /* the row above */
    unsigned char *line; /* filter byte + filtered row */
    unsigned char *zero; /* FILTER_UP + zeros: a repeated row */
    uint32_t zero_adler; /* of ZERO */
} png_rows;

/* Sends PENDING repeats of the last row: through zlib when few, else as a block of our own. */
static int flush_repeats(png_writer *w, const png_rows *r, size_t pending)
{
    if (pending >= SPLICE_MIN) {
        for (size_t i = 0; i < pending; i++)
            w->adler = (uint32_t)adler32_combine(w->adler, r->zero_adler, (z_off_t)r->bytes + 1);
        return put_run(w, pending, r->bytes);
    }
    for (size_t i = 0; i < pending; i++)
        if (deflate_bytes(w, r->zero, r->bytes + 1, Z_NO_FLUSH) < 0) return TR_FAIL;
    return TR_OK;
}

/* A row that differs from the one above: Up filtered, through zlib. */
static int put_row(png_writer *w, png_rows *r, const uint32_t *px, int width)
{
    unsigned char *c = r->rgb;
    for (int x = 0; x < width; x++, c += 3) {
        c[0] = (unsigned char)(px[x] >> 16);
        c[1] = (unsigned char)(px[x] >> 8);
        c[2] = (unsigned char)px[x];
    }
    unsigned char *f = r->line;
    f[0] = FILTER_UP;
    for (size_t i = 0; i < r->bytes; i++) f[1 + i] = (unsigned char)(r->rgb[i] - r->prev[i]);
    unsigned char *t = r->prev;
    r->prev = r->rgb;
    r->rgb = t;
    return deflate_bytes(w, f, r->bytes + 1, Z_NO_FLUSH);
}

static int write_rows(png_writer *w, cairo_surface_t *s, png_rows *r)
{
    int width = cairo_image_surface_get_width(s), height = cairo_image_surface_get_height(s);
    int stride = cairo_image_surface_get_stride(s);
    const unsigned char *data = cairo_image_surface_get_data(s);
    size_t pending = 0;
    for (int y = 0; y < height; y++) {
        const unsigned char *row = data + (size_t)y * (size_t)stride;
        if (y > 0 && memcmp(row, row - stride, (size_t)width * 4) == 0) {
            pending++;
            continue;
        }
        if (flush_repeats(w, r, pending) < 0) return TR_FAIL;
        pending = 0;
        if (put_row(w, r, (const uint32_t *)(const void *)row, width) < 0) return TR_FAIL;
    }
    return flush_repeats(w, r, pending);
}

int tr_png_write(cairo_surface_t *s, tr_output *out, tr_error *e)
{
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    int width = cairo_image_surface_get_width(s), height = cairo_image_surface_get_height(s);
    png_writer w;
    memset(&w, 0, sizeof w);
    w.out = out;
    w.e = e;
    w.adler = 1;
    png_rows r = {.bytes = (size_t)width * 3};
    r.rgb = tr_malloc(r.bytes);
    r.prev = tr_calloc(r.bytes, 1); /* the row above the first is zeros */
    r.line = tr_malloc(r.bytes + 1);
    r.zero = tr_calloc(r.bytes + 1, 1);
    w.buf = tr_malloc(IDAT_BYTES);
    if (!r.rgb || !r.prev || !r.line || !r.zero || !w.buf ||
        deflateInit2(&w.z, PNG_LEVEL, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY) != Z_OK) {
        tr_free(r.rgb);
        tr_free(r.prev);
        tr_free(r.line);
        tr_free(r.zero);
        tr_free(w.buf);
        return tr_error_nomem(e);
    }
    r.zero[0] = FILTER_UP;
    r.zero_adler = (uint32_t)adler32(1, r.zero, (uInt)(r.bytes + 1));
    w.z.next_out = w.buf;
    w.z.avail_out = IDAT_BYTES;
    /* IHDR: 8-bit RGB, deflate, adaptive filters, no interlace. */
    unsigned char ihdr[13] = {0};
    put_be32(ihdr, (uint32_t)width);
    put_be32(ihdr + 4, (uint32_t)height);
    ihdr[8] = 8;
    ihdr[9] = 2;
    unsigned char trailer[4];
    int rc = tr_output_write(out, sig, sizeof sig, e);
    if (rc >= 0) rc = chunk(&w, "IHDR", ihdr, sizeof ihdr);
    /* The zlib header: deflate with a 32 KiB window, the fastest level, no dictionary. */
    if (rc >= 0) rc = put_byte(&w, 0x78);
    if (rc >= 0) rc = put_byte(&w, 0x01);
    if (rc >= 0) rc = write_rows(&w, s, &r);
    if (rc >= 0) rc = deflate_bytes(&w, NULL, 0, Z_FINISH);
    put_be32(trailer, w.adler);
    for (int i = 0; i < 4 && rc >= 0; i++) rc = put_byte(&w, trailer[i]);
    if (rc >= 0) rc = idat_flush(&w);
    if (rc >= 0) rc = chunk(&w, "IEND", NULL, 0);
    deflateEnd(&w.z);
    tr_free(r.rgb);
    tr_free(r.prev);
    tr_free(r.line);
    tr_free(r.zero);
    tr_free(w.buf);
    return rc < 0 ? rc : TR_OK;
}
