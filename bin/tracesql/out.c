/*
** out.c: statement results as an aligned table, CSV, TSV, JSON or
** "column = value" lines.
**
** Table mode has to see every row before it can size the columns, so it keeps
** the cells' text; the other modes print each row as it comes.  NULL is empty
** text (null in JSON); a blob is shown as X'hex'.  Control characters in
** values (tr_buf_add_text) become spaces in TSV, so a row stays one line, and
** are shown as \xHH in table and lines output, for people; CSV and JSON
** quote them.
*/
#include "out_impl.h"

#include "tr_text.h"

#include <string.h>

static const char *const mode_names[] = {"table", "csv", "tsv", "json", "lines"};

int tsql_mode_parse(const char *s)
{
    for (int i = 0; i < (int)(sizeof mode_names / sizeof *mode_names); i++)
        if (strcmp(s, mode_names[i]) == 0) return i;
    return -1;
}

void tsql_out_init(tsql_out *o, FILE *f, int mode, int header)
{
    memset(o, 0, sizeof *o);
    o->f = f;
    o->mode = mode;
    o->header = header;
    tr_buf_init(&o->line, 0);
    tr_buf_init(&o->cells, 0);
    tr_vec_init(&o->at, sizeof(size_t));
}

void tsql_out_fini(tsql_out *o)
{
    tr_buf_fini(&o->line);
    tr_buf_fini(&o->cells);
    tr_vec_fini(&o->at);
}

static void put(tsql_out *o, const char *p, size_t n)
{
    if (n && fwrite(p, 1, n, o->f) != n) o->failed = 1;
}

static void put_repeat(tsql_out *o, char c, size_t n)
{
    while (n--)
        if (fputc(c, o->f) == EOF) o->failed = 1;
}

/* Appends column I of the current row as text; FLAT turns tabs and breaks into spaces. */
/* Cell I's text; HOW a TR_TEXT_* value, or CELL_RAW. */
enum { CELL_RAW = -1 };
static int cell_text(tr_buf *b, sqlite3_stmt *st, int i, int how)
{
    int type = sqlite3_column_type(st, i);
    if (type == SQLITE_NULL) return TR_OK;
    if (type == SQLITE_BLOB) {
        const unsigned char *p = sqlite3_column_blob(st, i);
        int n = sqlite3_column_bytes(st, i);
        int rc = tr_buf_add(b, "X'", 2);
        for (int k = 0; k < n && !rc; k++) rc = tr_buf_addf(b, "%02X", p[k]);
        return rc ? rc : tr_buf_addc(b, '\'');
    }
    const char *p = (const char *)sqlite3_column_text(st, i);
    if (!p) return sqlite3_errcode(sqlite3_db_handle(st)) == SQLITE_NOMEM ? TR_FATAL : TR_OK;
    size_t n = (size_t)sqlite3_column_bytes(st, i);
    return how == CELL_RAW ? tr_buf_add(b, p, n) : tr_buf_add_text(b, p, n, (unsigned)how);
}

static int csv_field(tr_buf *b, const char *p, size_t n)
{
    if (n && !memchr(p, ',', n) && !memchr(p, '"', n) && !memchr(p, '\n', n) &&
        !memchr(p, '\r', n) && p[0] != ' ' && p[n - 1] != ' ')
        return tr_buf_add(b, p, n);
    if (n == 0) return TR_OK;
    int rc = tr_buf_addc(b, '"');
    for (size_t i = 0; i < n && !rc; i++)
        rc = p[i] == '"' ? tr_buf_add(b, "\"\"", 2) : tr_buf_addc(b, p[i]);
    return rc ? rc : tr_buf_addc(b, '"');
}

static int json_value(tr_buf *b, sqlite3_stmt *st, int i)
{
    switch (sqlite3_column_type(st, i)) {
    case SQLITE_NULL:
        return tr_buf_add(b, "null", 4);
    case SQLITE_INTEGER:
        return tr_buf_add_int(b, sqlite3_column_int64(st, i));
    case SQLITE_FLOAT:
        return tr_buf_add_real(b, sqlite3_column_double(st, i));
    case SQLITE_BLOB: {
        tr_buf hex;
        tr_buf_init(&hex, 0);
        int rc = cell_text(&hex, st, i, CELL_RAW);
        if (!rc) rc = tr_buf_add_json_str(b, hex.p, hex.len);
        tr_buf_fini(&hex);
        return rc;
    }
    default: {
        const char *p = (const char *)sqlite3_column_text(st, i);
        return tr_buf_add_json_str(b, p ? p : "", (size_t)sqlite3_column_bytes(st, i));
    }
    }
}

static int want_header(const tsql_out *o)
{
    return o->header >= 0 ? o->header : o->mode == TSQL_TABLE;
}

/* Header line of csv/tsv. */
static int names_line(tsql_out *o, sqlite3_stmt *st, int ncol)
{
    tr_buf *b = &o->line;
    int rc = TR_OK;
    for (int i = 0; i < ncol && !rc; i++) {
        const char *name = sqlite3_column_name(st, i);
        if (!name) return TR_FATAL;
        if (i) rc = tr_buf_addc(b, o->mode == TSQL_CSV ? ',' : '\t');
        if (!rc)
            rc = o->mode == TSQL_CSV ? csv_field(b, name, strlen(name))
                                     : tr_buf_add_text(b, name, strlen(name), TR_TEXT_FIELD);
    }
    return rc ? rc : tr_buf_addc(b, '\n');
}

/* One row in a streaming mode; ROW counts from 0. */
static int stream_row(tsql_out *o, sqlite3_stmt *st, int ncol, size_t row)
{
    tr_buf *b = &o->line;
    int rc = TR_OK;
    switch (o->mode) {
    case TSQL_TSV:
        for (int i = 0; i < ncol && !rc; i++) {
            if (i) rc = tr_buf_addc(b, '\t');
            if (!rc) rc = cell_text(b, st, i, TR_TEXT_FIELD);
        }
        return rc ? rc : tr_buf_addc(b, '\n');
    case TSQL_CSV:
        for (int i = 0; i < ncol && !rc; i++) {
            if (i) rc = tr_buf_addc(b, ',');
            size_t start = b->len;
            if (!rc) rc = cell_text(b, st, i, CELL_RAW);
            if (!rc) {
                /* Quote in place: take the raw text out, put it back escaped. */
                tr_buf raw;
                tr_buf_init(&raw, 0);
                rc = tr_buf_add(&raw, b->p + start, b->len - start);
                b->len = start;
                b->p[start] = '\0';
                if (!rc) rc = csv_field(b, raw.p, raw.len);
                tr_buf_fini(&raw);
            }
        }
        return rc ? rc : tr_buf_addc(b, '\n');
    case TSQL_JSON:
        rc = tr_buf_adds(b, row ? ",\n{" : "[{");
        for (int i = 0; i < ncol && !rc; i++) {
            const char *name = sqlite3_column_name(st, i);
            if (!name) return TR_FATAL;
            if (i) rc = tr_buf_addc(b, ',');
            if (!rc) rc = tr_buf_add_json_str(b, name, strlen(name));
            if (!rc) rc = tr_buf_addc(b, ':');
            if (!rc) rc = json_value(b, st, i);
        }
        return rc ? rc : tr_buf_addc(b, '}');
    default: { /* lines */
        size_t wname = 0;
        for (int i = 0; i < ncol; i++) {
            const char *name = sqlite3_column_name(st, i);
            if (name && strlen(name) > wname) wname = strlen(name);
        }
        if (row) rc = tr_buf_addc(b, '\n');
        for (int i = 0; i < ncol && !rc; i++) {
            const char *name = sqlite3_column_name(st, i);
            if (!name) return TR_FATAL;
            rc = tr_buf_addf(b, "%*s", (int)(wname - strlen(name)), "");
            if (!rc) rc = tr_buf_add_text(b, name, strlen(name), TR_TEXT_SHOW);
            if (!rc) rc = tr_buf_add(b, " = ", 3);
            if (!rc) rc = cell_text(b, st, i, TR_TEXT_SHOW);
            if (!rc) rc = tr_buf_addc(b, '\n');
        }
        return rc;
    }
    }
}

/* ---- table mode ---- */

/* Display width: UTF-8 continuation bytes take no column. */
static size_t width_of(const char *p)
{
    size_t w = 0;
    for (; *p; p++)
        if (((unsigned char)*p & 0xC0) != 0x80) w++;
    return w;
}

static int table_add(tsql_out *o, const char *p, size_t n)
{
    size_t *slot = tr_vec_push(&o->at);
    if (!slot) return TR_FATAL;
    *slot = o->cells.len;
    int rc = tr_buf_add_text(&o->cells, p, n, TR_TEXT_SHOW);
    return rc ? rc : tr_buf_add(&o->cells, "", 1);
}

static int table_add_row(tsql_out *o, sqlite3_stmt *st, int ncol, int *numeric)
{
    int rc = TR_OK;
    for (int i = 0; i < ncol && !rc; i++) {
        int type = sqlite3_column_type(st, i);
        if (type == SQLITE_TEXT || type == SQLITE_BLOB) numeric[i] = 0;
        tr_buf_reset(&o->line);
        rc = cell_text(&o->line, st, i, CELL_RAW);
        if (!rc) rc = table_add(o, o->line.p, o->line.len);
    }
    return rc;
}

static void table_rule(tsql_out *o, const size_t *w, int ncol)
{
    for (int i = 0; i < ncol; i++) {
        put(o, "+", 1);
        put_repeat(o, '-', w[i] + 2);
    }
    put(o, "+\n", 2);
}

/* A row of NCOL cells starting at cell FIRST; RIGHT (may be NULL) aligns numbers right. */
static void table_row(tsql_out *o, const size_t *w, const int *right, int ncol, size_t first)
{
    const size_t *at = o->at.data;
    for (int i = 0; i < ncol; i++) {
        const char *s = o->cells.p + at[first + (size_t)i];
        size_t pad = w[i] - width_of(s);
        int r = right && right[i];
        put(o, "| ", 2);
        if (r) put_repeat(o, ' ', pad);
        put(o, s, strlen(s));
        if (!r) put_repeat(o, ' ', pad);
        put(o, " ", 1);
    }
    put(o, "|\n", 2);
}

static int table_print(tsql_out *o, int ncol, int header, const int *numeric)
{
    size_t ncell = o->at.len;
    const size_t *at = o->at.data;
    size_t *w = tr_calloc((size_t)ncol, sizeof *w);
    if (!w) return TR_FATAL;
    for (size_t c = 0; c < ncell; c++) {
        size_t cw = width_of(o->cells.p + at[c]);
        if (cw > w[c % (size_t)ncol]) w[c % (size_t)ncol] = cw;
    }
    size_t first = 0;
    table_rule(o, w, ncol);
    if (header) {
        table_row(o, w, NULL, ncol, 0);
        table_rule(o, w, ncol);
        first = (size_t)ncol;
    }
    for (size_t c = first; c < ncell; c += (size_t)ncol) table_row(o, w, numeric, ncol, c);
    table_rule(o, w, ncol);
    tr_free(w);
    return TR_OK;
}

/* ---- a statement ---- */

static int flush_line(tsql_out *o)
{
    put(o, o->line.p, o->line.len);
    tr_buf_reset(&o->line);
    if (o->flush_rows && fflush(o->f) != 0) o->failed = 1;
    return o->failed ? TR_FAIL : TR_OK;
}

int tsql_out_statement(tsql_out *o, sqlite3_stmt *st)
{
    int ncol = sqlite3_column_count(st);
    int header = want_header(o);
    int *numeric = NULL;
    size_t rows = 0;
    int rc = TR_OK, step = SQLITE_DONE;
    tr_buf_reset(&o->line);
    tr_buf_reset(&o->cells);
    o->at.len = 0;
    if (ncol > 0 && o->mode == TSQL_TABLE) {
        numeric = tr_malloc((size_t)ncol * sizeof *numeric);
        if (!numeric) return SQLITE_NOMEM;
        for (int i = 0; i < ncol; i++) numeric[i] = 1;
        for (int i = 0; i < ncol && header && !rc; i++) {
            const char *name = sqlite3_column_name(st, i);
            rc = name ? table_add(o, name, strlen(name)) : TR_FATAL;
        }
    }
    while (rc == TR_OK && (step = sqlite3_step(st)) == SQLITE_ROW) {
        if (o->mode == TSQL_TABLE) {
            rc = table_add_row(o, st, ncol, numeric);
        } else {
            if (rows == 0 && header && (o->mode == TSQL_CSV || o->mode == TSQL_TSV))
                rc = names_line(o, st, ncol);
            if (!rc) rc = stream_row(o, st, ncol, rows);
            if (!rc) rc = flush_line(o);
        }
        rows++;
    }
    if (rc == TR_OK && ncol > 0) {
        /* Rows gathered before an error or Ctrl-C are shown too. */
        tr_buf_reset(&o->line);
        if (o->mode == TSQL_TABLE && rows)
            rc = table_print(o, ncol, header, numeric);
        else if (o->mode == TSQL_JSON)
            rc = tr_buf_adds(&o->line, rows ? "]\n" : "[]\n");
        if (!rc) rc = flush_line(o);
    }
    tr_free(numeric);
    if (rc == TR_FATAL) return SQLITE_NOMEM;
    if (rc != TR_OK) return SQLITE_IOERR;
    return step;
}
