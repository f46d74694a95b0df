/*
** own.c: tracecat's own Parquet directory (its _tracecat.json beside one
** directory a table), or one Parquet file of it, given back as an input.
** (Its SQLite database reads back: readers/sqlite.c.)
**
** Nothing becomes events: the tables hold the model after the writer's own
** choices (derived columns, the partitions), and reading them back is not
** done.  Without this reader a Parquet directory was a run folder whose
** _tracecat.json probed as an empty Chrome trace (exit 0, nothing read).
** Its probe is sure of it, and open fails with the tools that read it.
*/
#include "tr_reader.h"

#include <string.h>

/* ---- probe ---- */

static int own_probe(const tr_peek *pk)
{
    for (size_t i = 0; pk->entries && i < pk->n_entries; i++)
        if (strcmp(pk->entries[i], "_tracecat.json") == 0) return 100;
    /* A Parquet file starts with its magic (and ends with it) */
    return pk->head && pk->head_len >= 4 && memcmp(pk->head, "PAR1", 4) == 0 ? 100 : 0;
}

/* ---- open: the tool that reads it ---- */

static int own_open(void **rd, const tr_read_ctx *c, tr_error *e)
{
    *rd = NULL;
    tr_loc loc = {c->dir ? tr_dir_label(c->dir) : tr_input_name(c->in), 0, 0, 0};
    if (!c->dir)
        return tr_errorf(e, TR_E_FORMAT, &loc,
                         "a Parquet file (one table, as tracecat convert --to parquet writes "
                         "them): query it with an engine that reads Parquet (duckdb: SELECT * "
                         "FROM 'FILE'); tracecat, tracestat and traceviz read the traces it was "
                         "made from, or the SQLite database tracecat convert -o x.db writes");
    return tr_errorf(e, TR_E_FORMAT, &loc,
                     "a Parquet directory tracecat wrote: query it with an engine that reads "
                     "Parquet (duckdb: SELECT * FROM 'DIR/slice/*.parquet'); tracecat, "
                     "tracestat and traceviz read the traces it was made from, or the SQLite "
                     "database tracecat convert -o x.db writes");
}

static int own_next(void *rd, tr_error *e)
{
    (void)rd;
    (void)e;
    return TR_END;
}

static void own_close(void *rd)
{
    (void)rd;
}

const tr_reader tr_reader_own = {
    .abi = TR_READER_ABI,
    .name = "tracecat",
    .description = "tracecat's own Parquet directory or file: names the tools that read it",
    .extensions = "",
    .dirs = 1,
    .probe = own_probe,
    .open = own_open,
    .next = own_next,
    .close = own_close,
    .output = 1,
};
