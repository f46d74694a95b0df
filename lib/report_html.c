/*
** report_html.c: the report as one self-contained HTML page.
**
** The words are report_text.c's: while the page is written, the report's
** html member points at it, and tr_rp_table_print and tr_rp_heading (the
** only places a section's tables and headings come from) move the text the
** section wrote so far into a <pre>, then add the table or heading as HTML.
** So a section reads the same in a terminal and in a browser, and there is
** one formatter per section, not two.  Every byte of trace data passes
** through add_esc; the page fetches nothing (no fonts, no CDN), so it opens
** offline and from a mail attachment.
*/
#include "report_impl.h"
#include "tr_text.h"

#include <string.h>

/* ---- escaping ---- */

/* Text as HTML: the markup characters as entities, other controls as '?'. */
static void add_esc(tr_buf *b, const char *s, size_t n)
{
    size_t from = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        const char *rep = NULL;
        if (ch == '&')
            rep = "&amp;";
        else if (ch == '<')
            rep = "&lt;";
        else if (ch == '>')
            rep = "&gt;";
        else if (ch == '"')
            rep = "&quot;";
        else if ((ch < 0x20 && ch != '\n' && ch != '\t') || ch == 0x7f)
            rep = "?";
        if (!rep) continue;
        tr_buf_add(b, s + from, i - from);
        tr_buf_adds(b, rep);
        from = i + 1;
    }
    tr_buf_add(b, s + from, n - from);
}

/* The text a section wrote since its last table or heading, as a <pre>. */
static void flush_text(const tr_report *r, tr_buf *b)
{
    size_t n = b->len;
    while (n && b->p[n - 1] == '\n') n--;
    if (n) {
        tr_buf_adds(r->html, "<pre>");
        add_esc(r->html, b->p, n);
        tr_buf_adds(r->html, "</pre>\n");
    }
    tr_buf_reset(b);
}

/* ---- tables and headings, called by the section formatters ---- */

void tr_rp_html_heading(const tr_report *r, tr_buf *b, const char *title)
{
    flush_text(r, b);
    tr_buf_adds(r->html, "<h3>");
    add_esc(r->html, title, strlen(title));
    tr_buf_adds(r->html, "</h3>\n");
}

void tr_rp_html_table(const tr_report *r, const tr_rp_table *tb, tr_buf *b)
{
    flush_text(r, b);
    tr_buf *h = r->html;
    size_t rows = tr_rp_table_rows(tb);
    tr_buf_adds(h, "<table class=\"sortable\">\n<thead><tr>");
    for (size_t row = 0; row < rows; row++) {
        if (row == 1) tr_buf_adds(h, "</tr></thead>\n<tbody>\n<tr>");
        if (row > 1) tr_buf_adds(h, "<tr>");
        for (size_t c = 0; c < tb->ncol; c++) {
            const char *cell = tr_rp_table_at(tb, row, c);
            const char *tag = row ? "td" : "th";
            tr_buf_addf(h, "<%s%s>", tag, tb->align[c] == 'r' ? " class=\"r\"" : "");
            add_esc(h, cell, strlen(cell));
            tr_buf_addf(h, "</%s>", tag);
        }
        tr_buf_adds(h, row ? "</tr>\n" : "");
    }
    tr_buf_adds(h, rows > 1 ? "</tbody></table>\n" : "</tr></thead></table>\n");
}

/* ---- the page ---- */

/*
** Sorting: a click on a column's heading orders the rows by it, again to
** reverse.  Cells are read as the text formatters spell numbers (12.5%,
** 1.5 KiB, 3.2ms, 4.1 MiB/s); anything else sorts as text, below numbers.
*/
static const char page_script[] =
    "(function(){var U={ns:1,us:1e3,ms:1e6,s:1e9,B:1,KiB:1024,MiB:1048576,GiB:1073741824,"
    "TiB:1099511627776,'%':1};\n"
    "function num(s){var m=/^(-?\\d+(?:\\.\\d+)?)\\s*(ns|us|ms|s|B|KiB|MiB|GiB|TiB|%)?(?:\\/s)?"
    "(?:\\s.*)?$/.exec(s.trim());return m?parseFloat(m[1])*(m[2]?U[m[2]]:1):null;}\n"
    "function sort(th){var t=th.closest('table'),b=t.tBodies[0],i=th.cellIndex,"
    "up=th.getAttribute('data-dir')!=='up';if(!b)return;"
    "[].forEach.call(th.parentNode.cells,function(c){c.removeAttribute('data-dir');});"
    "th.setAttribute('data-dir',up?'up':'down');var rows=[].slice.call(b.rows);"
    "rows.sort(function(p,q){var x=p.cells[i].textContent,y=q.cells[i].textContent,"
    "a=num(x),c=num(y),d;if(a!==null&&c!==null)d=a-c;else if(a!==null)d=1;"
    "else if(c!==null)d=-1;else d=x.localeCompare(y);return up?d:-d;});"
    "rows.forEach(function(row){b.appendChild(row);});}\n"
    "document.querySelectorAll('table.sortable th').forEach(function(th){"
    "th.title='sort by this column';th.addEventListener('click',function(){sort(th);});});"
    "})();\n";

static const char page_style[] =
    "body{font:14px/1.4 'DejaVu Sans',Verdana,sans-serif;margin:0 2em 3em;color:#222}"
    "h1{font-size:20px;margin:0.8em 0 0.2em}h2{font-size:17px;border-bottom:2px solid #4a7;"
    "margin-top:1.6em}h3{font-size:14px;margin:1.2em 0 0.3em}"
    "nav{position:sticky;top:0;background:#f6f6f6;padding:4px 8px;border-bottom:1px solid #ccc;"
    "z-index:1}nav a{margin-right:1em;color:#275;text-decoration:none}"
    "pre{font:12px/1.35 'DejaVu Sans Mono',monospace;background:#f8f8f4;padding:6px 8px;"
    "overflow-x:auto}"
    "table{border-collapse:collapse;font:12px 'DejaVu Sans Mono',monospace;margin:4px 0}"
    "th,td{padding:2px 8px;border-bottom:1px solid #e4e4e4;white-space:nowrap;text-align:left}"
    "th{background:#eef3ee;cursor:pointer;user-select:none}th[data-dir=up]::after{content:' "
    "\\25b2'}"
    "th[data-dir=down]::after{content:' \\25bc'}.r{text-align:right}tbody "
    "tr:hover{background:#f4f8ff}"
    ".fig img,.fig iframe{max-width:100%;border:1px solid #ddd}.fig iframe{display:block}"
    ".note{color:#666;font-size:12px}";

/* The title: the first input's name, and how many more. */
static void page_head(const tr_report *r, tr_buf *h)
{
    const tr_trace *t = r->t;
    tr_buf_adds(h, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                   "<meta name=\"viewport\" content=\"width=device-width\">\n<title>tracestat: ");
    tr_buf title;
    tr_buf_init(&title, 0);
    size_t n = tr_input_count(t);
    if (n) tr_buf_adds(&title, tr_rp_str(t, tr_input_get(t, 0)->path));
    if (n > 1) tr_buf_addf(&title, " and %zu more", n - 1);
    add_esc(h, title.p, title.len);
    tr_buf_addf(h, "</title>\n<style>%s</style>\n</head><body>\n<h1>tracestat: ", page_style);
    add_esc(h, title.p, title.len);
    tr_buf_adds(h, "</h1>\n");
    tr_buf_fini_into(&title, h);
}

typedef void (*section_fn)(const tr_report *, tr_buf *);

static const section_fn section_text[TR_REPORT_SECTION_COUNT] = {
    tr_rp_text_overview, tr_rp_text_lanes,      tr_rp_text_ops,   tr_rp_text_io,
    tr_rp_text_hot,      tr_rp_text_stragglers, tr_rp_text_hangs, tr_rp_text_gpu};

static const char *const section_titles[TR_REPORT_SECTION_COUNT] = {
    "Overview", "Lanes", "Op mix", "I/O", "Hot stacks", "Stragglers", "Hangs", "GPU"};

/* Section SEC's HTML into SEC_HTML (empty when it has no data). */
static int section_html(tr_report *r, int sec, tr_buf *sec_html, tr_error *e)
{
    tr_buf text;
    tr_buf_init(&text, 0);
    r->html = sec_html;
    section_text[sec](r, &text);
    flush_text(r, &text);
    r->html = NULL;
    int rc = TR_OK;
    if (sec == TR_REPORT_OVERVIEW && sec_html->len) {
        tr_buf_adds(sec_html, "<h3>inputs, clocks and placement</h3>\n");
        rc = tr_report_info(r->t, 0, &text, e);
        if (rc == TR_OK) {
            tr_buf_adds(sec_html, "<pre>");
            add_esc(sec_html, text.p, text.len);
            tr_buf_adds(sec_html, "</pre>\n");
        }
    }
    tr_buf_fini_into(&text, sec_html);
    return rc;
}

static void add_figure(tr_buf *h, const tr_report_figure *f)
{
    tr_buf_addf(h, "<section class=\"fig\" id=\"%s\"><h2>", f->id);
    add_esc(h, f->title, strlen(f->title));
    tr_buf_adds(h, "</h2>\n");
    tr_buf_add(h, f->html, f->len);
    tr_buf_adds(h, "\n</section>\n");
}

/* The contents line: the sections with data and the figures, in page order. */
static void add_nav(tr_buf *h, const tr_buf *secs, const tr_report_figure *figs, size_t n)
{
    tr_buf_adds(h, "<nav>");
    for (int s = -1; s < TR_REPORT_SECTION_COUNT; s++) {
        if (s >= 0 && secs[s].len)
            tr_buf_addf(h, "<a href=\"#%s\">%s</a>", tr_report_section_name(s), section_titles[s]);
        for (size_t i = 0; i < n; i++) {
            if (figs[i].after != s) continue;
            tr_buf_addf(h, "<a href=\"#%s\">", figs[i].id);
            add_esc(h, figs[i].title, strlen(figs[i].title));
            tr_buf_adds(h, "</a>");
        }
    }
    tr_buf_adds(h, "</nav>\n");
}

int tr_report_html(tr_report *r, const tr_report_figure *figs, size_t n, tr_buf *b, tr_error *e)
{
    tr_buf secs[TR_REPORT_SECTION_COUNT];
    int rc = TR_OK;
    for (int s = 0; s < TR_REPORT_SECTION_COUNT; s++) {
        tr_buf_init(&secs[s], 0);
        if (rc == TR_OK && tr_rp_has(r, s)) rc = section_html(r, s, &secs[s], e);
    }
    if (rc == TR_OK) {
        page_head(r, b);
        add_nav(b, secs, figs, n);
        for (int s = -1; s < TR_REPORT_SECTION_COUNT; s++) {
            if (s >= 0 && secs[s].len) {
                tr_buf_addf(b, "<section id=\"%s\"><h2>%s</h2>\n", tr_report_section_name(s),
                            section_titles[s]);
                tr_buf_add(b, secs[s].p, secs[s].len);
                tr_buf_adds(b, "</section>\n");
            }
            for (size_t i = 0; i < n; i++)
                if (figs[i].after == s) add_figure(b, &figs[i]);
        }
        tr_buf_addf(b,
                    "<p class=\"note\">Written by tracestat --html.</p>\n"
                    "<script>%s</script>\n</body></html>\n",
                    page_script);
    }
    int lost = b->nomem; /* a page cut short is not a page */
    for (int s = 0; s < TR_REPORT_SECTION_COUNT; s++) {
        lost |= secs[s].nomem;
        tr_buf_fini(&secs[s]);
    }
    return rc == TR_OK && lost ? tr_error_nomem(e) : rc;
}
