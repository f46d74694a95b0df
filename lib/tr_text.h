/*
** tr_text.h: small text helpers shared by readers, writers and binaries:
** number and duration parsing, fixed-point time formatting, the one duration
** format people read, JSON escaping, and the one way control characters
** from a trace are kept off a terminal.
*/
#ifndef TR_TEXT_H
#define TR_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "tr_mem.h"
#include "tr_trace.h"

/*
** tr_parse_duration: "1.5s", "200ms", "30us", "10ns", "2" (seconds)
** ^Stores nanoseconds in *NS and returns 0, or -1 when S is not a duration.
** ^A leading '-' is allowed.  ^Whitespace is not.
*/
int tr_parse_duration(const char *s, int64_t *ns);
/*
** tr_parse_size: "8M", "512KiB", "1g", "4096" (bytes) into *BYTES
** ^K, M, G and T are powers of 1024, with or without "iB" or "B".  ^Returns
** 0, or -1 when S is not a size or it overflows.
*/
int tr_parse_size(const char *s, uint64_t *bytes);

/*
** tr_parse_decimal_ns: the N bytes at S as a decimal number of UNIT_NS
** nanoseconds each ("0.107" with unit 1e9 is 107000000 ns), exactly, without
** going through a double.  ^Returns 0, or -1 when S is not [-]digits[.digits]
** or the value overflows.
*/
int tr_parse_decimal_ns(const char *s, size_t n, int64_t unit_ns, int64_t *ns);

/* ^Parses the N bytes at S as a decimal int64; returns 0 or -1. */
int tr_parse_int64(const char *s, size_t n, int64_t *v);

/*
** tr_days_from_civil: days from 1970-01-01 to year Y, month M (1-12), day D
** of the proleptic Gregorian calendar (negative before 1970), for any Y.
*/
int64_t tr_days_from_civil(int64_t y, int64_t m, int64_t d);

/*
** tr_buf_add_fixed: append V / 10^SCALE_DIGITS with DECIMALS decimals,
** ("1234567" at 9 digits, 9 decimals: "0.001234567"), exactly.
*/
int tr_buf_add_fixed(tr_buf *b, int64_t v, int scale_digits, int decimals);
int tr_buf_add_int(tr_buf *b, int64_t v);
/* ^Appends a double the way JSON wants it (shortest round-trip, no inf/nan: null). */
int tr_buf_add_real(tr_buf *b, double v);

/*
** tr_buf_add_duration: NS nanoseconds as people read them in tables
** ^Appends "1.500s" (3 decimals) from a second up, "133.0ms" and "12.5us"
** (1 decimal) below, and "830ns" under a microsecond; negative durations get
** a '-'.  ^The text has no space, so a table cell is one field.
*/
int tr_buf_add_duration(tr_buf *b, int64_t ns);
/* ^Appends BYTES as "512 B", "1.5 KiB", ... "2.0 TiB" (powers of 1024, one decimal). */
int tr_buf_add_size(tr_buf *b, int64_t bytes);

/* ^Appends the N bytes at S as a JSON string with its quotes. */
int tr_buf_add_json_str(tr_buf *b, const char *s, size_t n);
/*
** ^Appends string S of T as tr_buf_add_json_str would its text; faster, as
** the trace knows which of its strings need no escaping.
*/
int tr_buf_add_json_id(tr_buf *b, const tr_trace *t, tr_str s);
/* ^Appends arg set SET of T as a compact JSON object ("{}" when empty). */
int tr_buf_add_json_args(tr_buf *b, const tr_trace *t, uint32_t set);

/*
** Control characters in names (an ESC that retitles a terminal, a NUL that
** makes grep call a file binary) are never printed as they are.
*/
enum {
    TR_TEXT_SHOW = 0,   /* for people: shown as \xHH, as git and ls do */
    TR_TEXT_FIELD = 1,  /* for tab-separated columns: each becomes a space */
    TR_TEXT_KEEP_NL = 2 /* with TR_TEXT_SHOW: a line break stays (whole reports) */
};

/*
** tr_buf_add_text: append the N bytes at S with control characters made safe
** ^The control characters are the C0 bytes (below 0x20), DEL and the C1
** code points U+0080 to U+009F (the bytes C2 80 to C2 9F).  ^HOW is a
** TR_TEXT_* value: with TR_TEXT_SHOW each byte of them is appended as
** "\xHH"; with TR_TEXT_FIELD each of them is one space.  ^Everything else is
** appended unchanged.
*/
int tr_buf_add_text(tr_buf *b, const char *s, size_t n, unsigned how);
/* ^Rewrites B's bytes from offset FROM on as tr_buf_add_text would append them. */
int tr_buf_text_from(tr_buf *b, size_t from, unsigned how);

#endif
