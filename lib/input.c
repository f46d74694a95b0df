/*
** input.c: one decompressed stream and its line reader.
**
** Bytes come from libarchive in blocks (archive_read_data_block, no copy inside
** libarchive) and are copied into one buffer we own, because a line is handed
** out NUL-terminated in place and libarchive's blocks are read-only (for a
** memory source they are the caller's bytes).  The buffer holds at most one
** partial line plus one fill, so memory is bounded by the line cap, never by
** the stream's size.  What decompression may expand to is bounded too
** (tr_input_set_expand_limits): a few KB of zstd can hold terabytes of zeros.
**
** A plain regular file skips libarchive's block (tr_input_direct): read()
** fills the buffer, or the caller's (tr_input_read), in place.  Mapping it
** instead measured slower: faults on the mapping cost more than the copy.
*/
#include "input_impl.h"
#include "tr_mem.h"
#include "tr_utf8.h"

#include <archive.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h> /* SSE2 is part of x86-64: the line check uses it there */
#endif

#define INPUT_BUF_INIT (256 * 1024) /* the first buffer; grows only for long lines */
#define INPUT_FILL_MIN (64 * 1024)  /* room a fill asks for at least */
#define PROGRESS_STEP  (4u << 20)   /* report progress every 4 MiB of raw input */
#define WORD_ONES      0x0101010101010101ull
#define WORD_HIGHS     0x8080808080808080ull

static uint64_t expand_max = TR_EXPAND_MAX_DEFAULT;
static uint64_t expand_ratio = TR_EXPAND_RATIO_DEFAULT;

struct tr_input {
    char *buf; /* unread bytes are [pos, end); end < cap leaves room for a NUL */
    size_t cap, pos, end;
    size_t scan;     /* [pos, scan) is known to hold no '\n' */
    size_t clean;    /* [pos, clean) is known to hold no NUL and no byte >= 0x80 */
    uint64_t off;    /* stream offset of buf[pos] */
    uint64_t lineno; /* lines handed out so far */
    size_t line_max;
    uint64_t size; /* the stream's length when known up front, else 0 */

    struct archive *a; /* format raw; NULL for an empty stream or one in memory */
    const char *blk;   /* the rest of libarchive's current block, not yet copied */
    size_t blk_left;
    uint64_t fetched; /* stream offset just past the last block received */
    int eof;          /* libarchive has nothing more */

    int failed; /* sticky status after an error: the stream is lost */
    tr_error err;

    tr_diag *diag;
    tr_buf name;
    tr_buf fix; /* a line with its bad bytes replaced by U+FFFD */
    tr_progress_state *prog;
    tr_source *owner; /* closed with the stream (tr_input_close), or NULL */
    void *own;        /* freed with the stream: the bytes of a memory stream it was handed */
    int fd;           /* a plain file read directly from offset fetched, or -1 */
    int raw;          /* a reader checks the bytes itself (tr_input_span_raw): fills do not */
};

tr_input *tr_input_new(tr_progress_state *prog)
{
    tr_input *in = tr_calloc(1, sizeof *in);
    if (!in) return NULL;
    in->buf = tr_malloc(INPUT_BUF_INIT);
    if (!in->buf) {
        tr_free(in);
        return NULL;
    }
    in->cap = INPUT_BUF_INIT;
    in->prog = prog;
    tr_buf_init(&in->name, 0);
    tr_buf_init(&in->fix, 0);
    return in;
}

int tr_input_reset(tr_input *in, struct archive *a, const char *name, tr_error *e)
{
    tr_buf_reset(&in->name);
    if (tr_buf_adds(&in->name, name) != TR_OK) return tr_error_nomem(e);
    in->pos = in->end = in->scan = in->clean = 0;
    in->off = in->lineno = 0;
    in->line_max = TR_LINE_MAX_DEFAULT;
    in->size = 0;
    in->a = a;
    in->blk = NULL;
    in->blk_left = 0;
    in->fetched = 0;
    in->eof = a == NULL;
    in->fd = -1;
    in->raw = 0;
    in->failed = 0;
    in->diag = NULL;
    return TR_OK;
}

int tr_input_reset_memory(tr_input *in, const void *p, size_t n, const char *name, tr_error *e)
{
    int rc = tr_input_reset(in, NULL, name, e);
    /* The bytes are the one block of a stream without a reader (input_next_block ends it). */
    in->blk = p;
    in->blk_left = n;
    in->fetched = n;
    in->eof = n == 0;
    in->size = n;
    return rc;
}

int tr_input_direct(tr_input *in, int fd)
{
    struct stat st;
    if (in->fetched || in->pos != in->end || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return 0;
    in->fd = fd;
    in->a = NULL;
    in->eof = 0;
    return 1;
}

void tr_input_set_size(tr_input *in, uint64_t size)
{
    in->size = size;
}

uint64_t tr_input_size(const tr_input *in)
{
    return in->size;
}

void tr_input_set_owner(tr_input *in, tr_source *owner)
{
    in->owner = owner;
}

void tr_input_own(tr_input *in, void *p)
{
    in->own = p;
}

void tr_input_close(tr_input *in)
{
    if (in && in->owner)
        tr_source_close(in->owner);
    else
        tr_input_free(in);
}

void tr_input_free(tr_input *in)
{
    if (!in) return;
    tr_free(in->own);
    tr_free(in->buf);
    tr_buf_fini(&in->name);
    tr_buf_fini(&in->fix);
    tr_free(in);
}

int tr_archive_error(tr_error *e, struct archive *a, const tr_loc *loc)
{
    int err = archive_errno(a);
    const char *msg = archive_error_string(a);
    if (!msg) msg = "unknown libarchive error";
    /* libarchive reports bad data as EILSEQ or EINVAL, or -1 (ARCHIVE_ERRNO_MISC). */
    if (err > 0 && err != EILSEQ && err != EINVAL) return tr_error_errno(e, err, loc, "%s", msg);
    return tr_errorf(e, TR_E_FORMAT, loc, "%s", msg);
}

const char *tr_input_name(const tr_input *in)
{
    return in->name.p;
}

void tr_input_set_diag(tr_input *in, tr_diag *d)
{
    in->diag = d;
}

void tr_input_set_expand_limits(uint64_t max_bytes, uint64_t ratio)
{
    if (max_bytes) expand_max = max_bytes;
    if (ratio) expand_ratio = ratio;
}

void tr_input_set_line_max(tr_input *in, size_t max)
{
    /* Capped so that max + 1 and the buffer sizes derived from it cannot overflow. */
    in->line_max = max < SIZE_MAX / 4 ? max : SIZE_MAX / 4;
}

uint64_t tr_input_offset(const tr_input *in)
{
    return in->off;
}

tr_loc tr_input_loc(const tr_input *in, const tr_line *line, uint64_t col)
{
    tr_loc loc = {in->name.p, line->no, col, line->offset + (col ? col - 1 : 0) + 1};
    return loc;
}

/* Make the stream's failure sticky: later calls return the same error. */
static int input_fail(tr_input *in, int rc, tr_error *e)
{
    in->failed = rc;
    if (e) *e = in->err;
    return rc;
}

static int input_refail(tr_input *in, tr_error *e)
{
    if (e) *e = in->err;
    return in->failed;
}

static void input_progress(tr_input *in, int force)
{
    tr_progress_state *pr = in->prog;
    if (!pr || !pr->fn || !pr->file) return;
    /* The file's raw bytes, not the stream's: an archive member is read through a second reader. */
    uint64_t done =
        pr->base + (in->fd >= 0 ? in->fetched : (uint64_t)archive_filter_bytes(pr->file, -1));
    if (done >= pr->last + PROGRESS_STEP || (force && done > pr->last)) {
        pr->last = done;
        pr->fn(pr->user, in->name.p, done, pr->total);
    }
}

/* Sizes as people read them in the bounds' messages: "64 GiB", "1.5 MiB". */
static void input_size_text(char *out, size_t n, uint64_t v)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double d = (double)v;
    int u = 0;
    while (d >= 1024 && u < 6) d /= 1024, u++;
    snprintf(out, n, u && d < 10 && d != (double)(uint64_t)d ? "%.1f %s" : "%.0f %s", d, unit[u]);
}

/* Fail when decompression has passed its bounds (tr_input_set_expand_limits). */
static int input_check_expand(tr_input *in, tr_error *e)
{
    struct archive *file = in->prog && in->prog->file ? in->prog->file : in->a;
    /* Filter 0 is the decompressed end; a reader with one filter reads bytes as they are. */
    if (archive_filter_count(file) < 2 && archive_filter_count(in->a) < 2) return TR_OK;
    uint64_t raw = (uint64_t)archive_filter_bytes(file, -1);
    uint64_t out = (uint64_t)archive_filter_bytes(file, 0);
    if (in->fetched > out) out = in->fetched;
    int too_big = out > expand_max;
    if (!too_big && (out <= TR_EXPAND_FLOOR || out / expand_ratio <= raw)) return TR_OK;
    char got[32], lim[32];
    input_size_text(got, sizeof got, out);
    input_size_text(lim, sizeof lim, too_big ? expand_max : raw);
    tr_loc loc = {in->name.p, 0, 0, in->fetched};
    int rc = too_big ? tr_errorf(&in->err, TR_E_LIMIT, &loc,
                                 "decompressed past %s, the bound on what compressed input may "
                                 "become (raise it with --max-expand)",
                                 lim)
                     : tr_errorf(&in->err, TR_E_LIMIT, &loc,
                                 "decompressed %s from %s read, more than %llu times as much "
                                 "(a decompression bomb? raise the bound with --max-ratio)",
                                 got, lim, (unsigned long long)expand_ratio);
    return input_fail(in, rc, e);
}

/* Get libarchive's next block into blk (or set eof). */
static int input_next_block(tr_input *in, tr_error *e)
{
    const void *b;
    size_t n;
    la_int64_t at; /* unused: format raw hands out blocks in order, without holes */
    int r = in->a ? archive_read_data_block(in->a, &b, &n, &at) : ARCHIVE_EOF;
    if (r == ARCHIVE_EOF) {
        in->eof = 1;
        input_progress(in, 1);
        return TR_OK;
    }
    if (r < ARCHIVE_WARN) {
        tr_loc loc = {in->name.p, 0, 0, in->fetched + 1};
        return input_fail(in, tr_archive_error(&in->err, in->a, &loc), e);
    }
    in->blk = b;
    in->blk_left = n;
    in->fetched += n;
    input_progress(in, 0);
    return input_check_expand(in, e);
}

/* A direct stream's next bytes, up to MAX, read into DST; *GOT is 0 at the end (eof set). */
static int input_pread(tr_input *in, char *dst, size_t max, size_t *got, tr_error *e)
{
    ssize_t k;
    *got = 0;
    while ((k = pread(in->fd, dst, max, (off_t)in->fetched)) < 0 && errno == EINTR) continue;
    if (k < 0) {
        tr_loc loc = {in->name.p, 0, 0, in->fetched + 1};
        return input_fail(in, tr_error_errno(&in->err, errno, &loc, "cannot read"), e);
    }
    *got = (size_t)k;
    in->fetched += (uint64_t)k;
    in->eof = k == 0;
    input_progress(in, k == 0);
    return TR_OK;
}

/* Copy up to MAX pending bytes of the block to DST; 0 when none are pending. */
static size_t input_take(tr_input *in, char *dst, size_t max)
{
    size_t k = in->blk_left < max ? in->blk_left : max;
    memcpy(dst, in->blk, k);
    in->blk += k;
    in->blk_left -= k;
    return k;
}

/* How many of the N bytes at P come before the first NUL or byte >= 0x80. */
static size_t ascii_prefix(const char *p, size_t n)
{
    size_t i = 0;
#ifdef __SSE2__
    const __m128i zero = _mm_setzero_si128();
    /* 64 bytes a step while all are good, then 16 to find the block of the first bad one */
    for (; i + 64 <= n; i += 64) {
        __m128i bad = zero;
        for (size_t k = 0; k < 64; k += 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i + k));
            bad = _mm_or_si128(bad, _mm_or_si128(v, _mm_cmpeq_epi8(v, zero)));
        }
        if (_mm_movemask_epi8(bad)) break;
    }
    for (; i + 16 <= n; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
        if (_mm_movemask_epi8(_mm_or_si128(v, _mm_cmpeq_epi8(v, zero)))) break;
    }
#endif
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        if (((w - WORD_ONES) | w) & WORD_HIGHS) break;
    }
    while (i < n && (unsigned char)p[i] - 1u < 0x7fu) i++;
    return i;
}

/*
** Checks the bytes a fill appended in one pass, many lines at a time, so
** that a line found inside the clean part needs no check of its own.
*/
static void input_check_clean(tr_input *in)
{
    if (in->clean < in->pos) in->clean = in->pos;
    in->clean += ascii_prefix(in->buf + in->clean, in->end - in->clean);
}

/*
** Append more bytes to the buffer, making room for NEED at least: moves the
** unread bytes to the front and grows the buffer when they fill it.  Sets eof
** instead when the stream has ended.
*/
static int input_fill(tr_input *in, size_t need, tr_error *e)
{
    if (in->pos) {
        memmove(in->buf, in->buf + in->pos, in->end - in->pos);
        in->end -= in->pos;
        in->scan -= in->pos;
        in->clean = in->clean > in->pos ? in->clean - in->pos : 0;
        in->pos = 0;
    }
    if (in->cap - in->end - 1 < need) {
        size_t cap = in->cap;
        while (cap - in->end - 1 < need) {
            if (cap > SIZE_MAX / 2) return input_fail(in, tr_error_nomem(&in->err), e);
            cap *= 2;
        }
        char *p = tr_realloc(in->buf, cap);
        if (!p) return input_fail(in, tr_error_nomem(&in->err), e);
        in->buf = p;
        in->cap = cap;
    }
    if (in->fd >= 0) {
        size_t got;
        int rc =
            in->eof ? TR_OK : input_pread(in, in->buf + in->end, in->cap - in->end - 1, &got, e);
        if (rc == TR_OK && !in->eof) in->end += got;
        if (!in->raw) input_check_clean(in);
        return rc;
    }
    while (!in->blk_left) {
        if (in->eof) return TR_OK;
        int rc = input_next_block(in, e);
        if (rc != TR_OK) return rc;
    }
    in->end += input_take(in, in->buf + in->end, in->cap - in->end - 1);
    if (!in->raw) input_check_clean(in);
    return TR_OK;
}

int tr_input_peek(tr_input *in, const unsigned char **p, size_t *n, size_t want, tr_error *e)
{
    *p = NULL;
    *n = 0;
    if (in->failed) return input_refail(in, e);
    while (in->end - in->pos < want && !in->eof) {
        int rc = input_fill(in, want - (in->end - in->pos), e);
        if (rc != TR_OK) return rc;
    }
    *p = (const unsigned char *)in->buf + in->pos;
    *n = in->end - in->pos;
    return TR_OK;
}

int tr_input_read(tr_input *in, void *buf, size_t cap, size_t *got, tr_error *e)
{
    *got = 0;
    if (in->failed) return input_refail(in, e);
    char *dst = buf;
    size_t n = 0;
    while (n < cap) {
        if (in->pos < in->end) {
            size_t k = in->end - in->pos < cap - n ? in->end - in->pos : cap - n;
            memcpy(dst + n, in->buf + in->pos, k);
            in->pos += k;
            n += k;
        } else if (in->blk_left) {
            n += input_take(in, dst + n, cap - n);
        } else if (in->eof) {
            break;
        } else if (in->fd >= 0) {
            size_t got;
            int rc = input_pread(in, dst + n, cap - n, &got, e);
            if (rc != TR_OK) return rc;
            n += got;
        } else {
            int rc = input_next_block(in, e);
            if (rc != TR_OK) return rc;
        }
    }
    if (in->scan < in->pos) in->scan = in->pos;
    if (in->clean < in->pos) in->clean = in->pos;
    in->off += n;
    *got = n;
    return TR_OK;
}

/* 1 when the N bytes at P hold no NUL and no byte >= 0x80: 16 or 8 bytes at a time. */
static int ascii_clean(const char *p, size_t n)
{
    size_t i = 0;
#ifdef __SSE2__
    if (n >= 16) {
        const __m128i zero = _mm_setzero_si128();
        __m128i bad = zero;
        /* A byte is bad when its high bit is set or it equals 0; the last block overlaps. */
        for (; i + 16 <= n; i += 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
            bad = _mm_or_si128(bad, _mm_or_si128(v, _mm_cmpeq_epi8(v, zero)));
        }
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + n - 16));
        bad = _mm_or_si128(bad, _mm_or_si128(v, _mm_cmpeq_epi8(v, zero)));
        return _mm_movemask_epi8(bad) == 0;
    }
#endif
    for (; i + 32 <= n; i += 32) {
        uint64_t w0, w1, w2, w3;
        memcpy(&w0, p + i, 8);
        memcpy(&w1, p + i + 8, 8);
        memcpy(&w2, p + i + 16, 8);
        memcpy(&w3, p + i + 24, 8);
        /* A byte's high bit survives (b - 1) | b exactly when b is 0 or >= 0x80. */
        if (((w0 - WORD_ONES) | w0 | (w1 - WORD_ONES) | w1 | (w2 - WORD_ONES) | w2 |
             (w3 - WORD_ONES) | w3) &
            WORD_HIGHS)
            return 0;
    }
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        if (((w - WORD_ONES) | w) & WORD_HIGHS) return 0;
    }
    for (; i < n; i++)
        if ((unsigned char)p[i] - 1u >= 0x7fu) return 0;
    return 1;
}

/* The slow path: LINE holds a NUL or a byte >= 0x80; replace what is bad, warn once. */
static int input_fix_line(tr_input *in, tr_line *line, tr_error *e)
{
    const unsigned char *p = (const unsigned char *)line->p;
    size_t n = line->len, bad = tr_utf8_first_bad(p, n);
    if (bad == n) return TR_OK;

    tr_loc loc = tr_input_loc(in, line, bad + 1);
    int rc = p[bad] ? tr_warnf(in->diag, &in->err, &loc,
                               "invalid UTF-8 (byte 0x%02x) replaced by U+FFFD", p[bad])
                    : tr_warnf(in->diag, &in->err, &loc, "NUL byte replaced by U+FFFD");
    if (rc == TR_FAIL) return input_fail(in, rc, e);

    /* Each bad byte takes at most 3 bytes in the copy. */
    tr_buf *f = &in->fix;
    tr_buf_reset(f);
    if (n > (SIZE_MAX - 1) / 3 || tr_buf_grow(f, 3 * n) != TR_OK)
        return input_fail(in, tr_error_nomem(&in->err), e);
    memcpy(f->p, p, bad);
    size_t j = bad;
    for (size_t i = bad; i < n;) {
        size_t sub, k = tr_utf8_seq(p + i, n - i, &sub);
        if (k) {
            memcpy(f->p + j, p + i, k);
            j += k;
            i += k;
        } else {
            memcpy(f->p + j, "\xef\xbf\xbd", 3);
            j += 3;
            i += sub;
        }
    }
    f->p[j] = '\0';
    f->len = j;
    line->p = f->p;
    line->len = j;
    return TR_OK;
}

/* Hand out the line that starts at pos and ends at STOP (a '\n' when NL, else the end). */
static int input_emit(tr_input *in, tr_line *line, size_t stop, int nl, tr_error *e)
{
    char *p = in->buf + in->pos;
    size_t len = stop - in->pos, adv = len + (size_t)nl;
    if (nl && len && p[len - 1] == '\r') len--;
    if (len > in->line_max) {
        tr_loc loc = {in->name.p, in->lineno + 1, 0, in->off + 1};
        return input_fail(in,
                          tr_errorf(&in->err, TR_E_LIMIT, &loc, "line %llu longer than %zu bytes",
                                    (unsigned long long)(in->lineno + 1), in->line_max),
                          e);
    }
    p[len] = '\0';
    line->p = p;
    line->len = len;
    line->no = ++in->lineno;
    line->offset = in->off;
    in->off += adv;
    in->pos += adv;
    in->scan = in->pos;
    return stop <= in->clean || ascii_clean(p, len) ? TR_OK : input_fix_line(in, line, e);
}

/* The N bytes from pos, N cut so that a line whose "\n" is among them is at most line_max bytes. */
static size_t input_span(const tr_input *in, size_t stop, const char **p)
{
    *p = in->buf + in->pos;
    if (in->failed || stop <= in->pos) return 0;
    size_t n = stop - in->pos;
    return n <= in->line_max ? n : in->line_max + 1;
}

size_t tr_input_span(tr_input *in, const char **p)
{
    /* After tr_input_span_raw the fills leave the bytes unchecked: they are checked here. */
    if (in->clean < in->end) input_check_clean(in);
    return input_span(in, in->clean, p);
}

size_t tr_input_span_raw(tr_input *in, const char **p)
{
    in->raw = 1;
    return input_span(in, in->end, p);
}

void tr_input_skip(tr_input *in, size_t n, uint64_t lines)
{
    in->pos += n;
    in->off += n;
    in->lineno += lines;
    if (in->scan < in->pos) in->scan = in->pos;
}

int tr_input_getline(tr_input *in, tr_line *line, tr_error *e)
{
    if (in->failed) return input_refail(in, e);
    for (;;) {
        char *nl = memchr(in->buf + in->scan, '\n', in->end - in->scan);
        if (nl) return input_emit(in, line, (size_t)(nl - in->buf), 1, e);
        in->scan = in->end;
        /* Past max + 1 bytes (a "\r" may still be dropped) the line is too long. */
        if (in->end - in->pos > in->line_max + 1) return input_emit(in, line, in->end, 0, e);
        if (in->eof) return in->pos == in->end ? TR_END : input_emit(in, line, in->end, 0, e);
        int rc = input_fill(in, INPUT_FILL_MIN, e);
        if (rc != TR_OK) return rc;
    }
}
