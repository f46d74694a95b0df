/* test_sqlite.c: the SQLite writer: schema, content, filters, saving, and every sample format. */
#include "tr_test.h"
#include "tr_load.h"
#include "tr_readers.h"
#include "tr_writers.h"
#include "tr_mem.h"

#include "tr_sqlite.h"

#include <stdlib.h>

extern const tr_writer tr_writer_sqlite;

/* Two processes, a thread, a counter and a worker track, nested slices, args of each type. */
static tr_trace *build(void)
{
    tr_trace *t = tr_trace_new();
    CHECK(t != NULL);
    uint32_t in = tr_input_add(t, "run.log", "gt");
    tr_input_at(t, in)->origin_wall = tr_str_internz(t, "2024-01-02 03:04:05");
    uint32_t p0 = tr_process_intern(t, in, 1234);
    tr_process_at(t, p0)->name = tr_str_internz(t, "main");
    tr_process_at(t, p0)->rank = 3;
    uint32_t p1 = tr_process_intern(t, in, -1);
    uint32_t ta = tr_track_intern(t, p0, TR_TRACK_THREAD, 7, tr_str_internz(t, "MainThread"));
    uint32_t tc = tr_track_intern(t, p0, TR_TRACK_COUNTER, -1, tr_str_internz(t, "mem"));
    uint32_t tw = tr_track_intern(t, p1, TR_TRACK_WORKER, -1, tr_str_internz(t, "worker 0"));

    tr_args_begin(t);
    tr_args_str(t, tr_str_internz(t, "path"), tr_str_internz(t, "/tmp/x"));
    tr_args_int(t, tr_str_internz(t, "offset"), -5);
    tr_args_real(t, tr_str_internz(t, "ratio"), 0.25);
    tr_args_bool(t, tr_str_internz(t, "ok"), 1);
    tr_args_uint(t, tr_str_internz(t, "big"), UINT64_MAX);
    uint32_t args = tr_args_end(t);
    uint32_t inner = tr_slice_add(t, ta, 2000, 1000, tr_str_internz(t, "inner"), 0, -1, 0);
    uint32_t read = tr_slice_add(t, ta, 1000, 2500000, tr_str_internz(t, "read"),
                                 tr_str_internz(t, "io"), 4096, args);
    tr_args_begin(t);
    tr_args_int(t, tr_str_internz(t, "seq"), 9);
    uint32_t mark = tr_instant_add(t, ta, 1500, tr_str_internz(t, "mark\nline"), 0,
                                   TR_SCOPE_PROCESS, -1, tr_args_end(t));
    tr_counter_add(t, tc, 4000, 2.0);
    tr_counter_add(t, tc, 3000, 1.5);

    tr_frame f = {
        .function = tr_str_internz(t, "main"), .file = tr_str_internz(t, "m.py"), .line = 1};
    uint32_t s = tr_stack_push(t, 0, tr_frame_intern(t, &f));
    f.function = tr_str_internz(t, "f");
    s = tr_stack_push(t, s, tr_frame_intern(t, &f));
    f.function = tr_str_internz(t, "g");
    f.line = 0;
    s = tr_stack_push(t, s, tr_frame_intern(t, &f));
    tr_args_begin(t);
    tr_args_int(t, tr_str_internz(t, "count"), 7);
    tr_sample_add(t, tw, 5000, s, tr_args_end(t));
    tr_sample_add(t, tw, 6000, 0, 0);

    tr_flow fl = {.from = TR_REF(TR_EV_SLICE, read),
                  .to = TR_REF(TR_EV_INSTANT, mark),
                  .name = tr_str_internz(t, "req"),
                  .id = 99};
    tr_flow_add(t, &fl);
    CHECK(inner != TR_NONE);
    tr_error e;
    CHECK_INT(tr_trace_status(t, &e), TR_OK);
    CHECK_INT(tr_trace_freeze(t, &e), TR_OK);
    return t;
}

static sqlite3 *mem_db(const tr_trace *t, const tr_write_opts *o)
{
    sqlite3 *db = NULL;
    CHECK_INT(sqlite3_open(":memory:", &db), SQLITE_OK);
    tr_error e = {0};
    int rc = tr_sqlite_load(db, t, o, &e);
    if (rc != TR_OK) fprintf(stderr, "  load: %s\n", e.msg);
    CHECK_INT(rc, TR_OK);
    return db;
}

/* The first column of the first row of SQL as text ("" for NULL, "(none)" without a row). */
static const char *q(sqlite3 *db, const char *sql)
{
    static char out[4096];
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "  %s: %s\n", sql, sqlite3_errmsg(db));
        tr_test_fail(__FILE__, __LINE__, "prepare");
        return "(error)";
    }
    snprintf(out, sizeof out, "(none)");
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        const unsigned char *v = sqlite3_column_text(st, 0);
        snprintf(out, sizeof out, "%s", v ? (const char *)v : "");
    } else if (rc != SQLITE_DONE) {
        fprintf(stderr, "  %s: %s\n", sql, sqlite3_errmsg(db));
        tr_test_fail(__FILE__, __LINE__, "step");
    }
    sqlite3_finalize(st);
    return out;
}

TR_TEST(schema_complete_and_typed)
{
    tr_trace *t = build();
    sqlite3 *db = mem_db(t, NULL);
    tr_error e = {0};
    CHECK_INT(tr_sqlite_check(db, &e), TR_OK);
    static const char *const tables[] = {"meta",
                                         "trace_input",
                                         "process",
                                         "thread",
                                         "track",
                                         "slice",
                                         "instant",
                                         "counter",
                                         "flow",
                                         "__intrinsic_args",
                                         "__intrinsic_arg_key",
                                         "__intrinsic_arg_pack",
                                         "__intrinsic_io",
                                         "stack_profile_frame",
                                         "stack_profile_callsite",
                                         "stack_sample"};
    static const char *const views[] = {
        "thread_track", "process_track", "counter_track", "cpu_profile_stack_sample",
        "io",           "gt_op",         "sample_stack",  "args"};
    char sql[300];
    for (size_t i = 0; i < sizeof tables / sizeof *tables; i++) {
        snprintf(sql, sizeof sql, "SELECT type FROM sqlite_schema WHERE name = '%s'", tables[i]);
        CHECK_STR(q(db, sql), "table");
    }
    for (size_t i = 0; i < sizeof views / sizeof *views; i++) {
        snprintf(sql, sizeof sql, "SELECT type FROM sqlite_schema WHERE name = '%s'", views[i]);
        CHECK_STR(q(db, sql), "view");
        snprintf(sql, sizeof sql, "SELECT count(*) >= 0 FROM %s", views[i]);
        CHECK_STR(q(db, sql), "1");
    }
    /* Declared types of the Perfetto-named columns. */
    static const char *const typed[][3] = {{"slice", "id", "INTEGER"},
                                           {"slice", "ts", "INTEGER"},
                                           {"slice", "dur", "INTEGER"},
                                           {"slice", "track_id", "INTEGER"},
                                           {"slice", "category", "TEXT"},
                                           {"slice", "name", "TEXT"},
                                           {"slice", "depth", "INTEGER"},
                                           {"slice", "parent_id", "INTEGER"},
                                           {"slice", "arg_set_id", "INTEGER"},
                                           {"slice", "bytes", "INTEGER"},
                                           {"counter", "value", "REAL"},
                                           {"args", "key", "TEXT"},
                                           {"args", "int_value", "INTEGER"},
                                           {"args", "string_value", "TEXT"},
                                           {"args", "real_value", "REAL"},
                                           {"args", "value_type", "TEXT"},
                                           {"args", "flat_key", "TEXT"},
                                           {"thread", "utid", "INTEGER"},
                                           {"process", "upid", "INTEGER"},
                                           {"process", "rank", "INTEGER"},
                                           {"stack_profile_callsite", "parent_id", "INTEGER"},
                                           {"stack_sample", "callsite_id", "INTEGER"}};
    for (size_t i = 0; i < sizeof typed / sizeof *typed; i++) {
        snprintf(sql, sizeof sql, "SELECT type FROM pragma_table_xinfo('%s') WHERE name = '%s'",
                 typed[i][0], typed[i][1]);
        CHECK_STR(q(db, sql), typed[i][2]);
    }
    /* Every index the README lists, and views' columns. */
    CHECK_STR(q(db, "SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL"),
              "4");
    CHECK_STR(q(db, "SELECT group_concat(name) FROM pragma_table_info('io')"),
              "slice_id,rank,thread,ts,dur,function,layer,path,offset,bytes,file_offset,module,"
              "excluded,failed");
    CHECK_STR(q(db, "SELECT group_concat(name) FROM pragma_table_info('args')"),
              "arg_set_id,id,flat_key,key,int_value,string_value,real_value,value_type,"
              "display_value");
    CHECK_STR(q(db, "SELECT group_concat(name) FROM pragma_table_info('args')"),
              "arg_set_id,id,flat_key,key,int_value,string_value,real_value,value_type,"
              "display_value");
    CHECK_STR(q(db, "SELECT group_concat(name) FROM pragma_table_info('gt_op')"),
              "instant_id,lane,seq,event,command,bytes,ts,dur,slice_id");
    sqlite3_close(db);
    tr_trace_free(t);
}

TR_TEST(content_of_each_table)
{
    tr_trace *t = build();
    sqlite3 *db = mem_db(t, NULL);
    CHECK_STR(q(db, "SELECT group_concat(name, '|') FROM (SELECT name FROM slice ORDER BY id)"),
              "read|inner");
    CHECK_STR(q(db, "SELECT ts || ' ' || dur || ' ' || category || ' ' || bytes || ' ' || depth"
                    " || ' ' || coalesce(parent_id, 'null') FROM slice WHERE name = 'read'"),
              "1000 2500000 io 4096 0 null");
    CHECK_STR(q(db, "SELECT depth || ' ' || parent_id || ' ' || coalesce(category, 'null')"
                    " || ' ' || coalesce(bytes, 'null') FROM slice WHERE name = 'inner'"),
              "1 0 null null");
    CHECK_STR(q(db, "SELECT group_concat(key || '=' || value_type || ':' || display_value, ' ')"
                    " FROM (SELECT a.* FROM args a JOIN slice s USING (arg_set_id)"
                    " WHERE s.name = 'read' ORDER BY a.id)"),
              "path=string:/tmp/x offset=int:-5 ratio=real:0.25 ok=bool:true "
              "big=uint:1.84467440737096e+19");
    CHECK_STR(q(db, "SELECT name || '/' || scope || '/' || ts FROM instant"),
              "mark\nline/process/1500");
    CHECK_STR(q(db, "SELECT group_concat(value, ',') FROM (SELECT value FROM counter ORDER BY id)"),
              "1.5,2.0");
    CHECK_STR(q(db, "SELECT name FROM counter_track"), "mem");
    CHECK_STR(q(db, "SELECT group_concat(kind || ':' || coalesce(utid, '-'), ' ')"
                    " FROM (SELECT * FROM track ORDER BY id)"),
              "thread:0 counter:- worker:2");
    CHECK_STR(q(db, "SELECT group_concat(coalesce(tid, '-') || ':' || name, ' ') FROM thread"),
              "7:MainThread -:worker 0");
    CHECK_STR(q(db, "SELECT pid || ' ' || name || ' ' || rank || ' ' || input_id"
                    " FROM process WHERE upid = 0"),
              "1234 main 3 0");
    CHECK_STR(q(db, "SELECT coalesce(pid, 'null') || coalesce(rank, 'null') FROM process"
                    " WHERE upid = 1"),
              "nullnull");
    CHECK_STR(q(db, "SELECT slice_out || ' ' || coalesce(slice_in, '-') || ' ' || instant_in"
                    " || ' ' || name || ' ' || flow_id FROM flow"),
              "0 - 0 req 99");
    CHECK_STR(q(db, "SELECT stack || ' ' || weight || ' ' || depth || ' ' || leaf"
                    " FROM sample_stack WHERE callsite_id IS NOT NULL"),
              "main;f;g 7 3 g");
    CHECK_STR(q(db, "SELECT count(*) || ' ' || sum(weight) FROM stack_sample"), "2 8");
    CHECK_STR(q(db, "SELECT group_concat(depth || ':' || coalesce(parent_id, '-'), ' ')"
                    " FROM stack_profile_callsite"),
              "0:- 1:1 2:2");
    CHECK_STR(q(db, "SELECT coalesce(line, 'null') FROM stack_profile_frame WHERE name = 'g'"),
              "null");
    CHECK_STR(q(db, "SELECT value FROM meta WHERE key = 'schema_version'"), "5");
    CHECK_STR(q(db, "SELECT value FROM meta WHERE key = 'input'"), "run.log");
    CHECK_STR(q(db, "SELECT format || ' ' || origin FROM trace_input"), "gt 2024-01-02 03:04:05");
    sqlite3_close(db);
    tr_trace_free(t);
}

static int only_slices(void *user, const tr_trace *t, const tr_event *ev)
{
    (void)user;
    (void)t;
    return ev->kind == TR_EV_SLICE && ev->row == 1;
}

TR_TEST(filter_drops_events_flows_and_args)
{
    tr_trace *t = build();
    tr_filter f = {only_slices, NULL};
    tr_write_opts o = {.filter = &f};
    sqlite3 *db = mem_db(t, &o);
    /* Only "inner" (row 1) is left: its parent was dropped, so parent_id is NULL. */
    CHECK_STR(q(db, "SELECT id || ' ' || name || ' ' || coalesce(parent_id, 'null') FROM slice"),
              "1 inner null");
    CHECK_STR(q(db, "SELECT (SELECT count(*) FROM instant) + (SELECT count(*) FROM counter)"
                    " + (SELECT count(*) FROM stack_sample) + (SELECT count(*) FROM flow)"
                    " + (SELECT count(*) FROM args)"),
              "0");
    sqlite3_close(db);
    tr_trace_free(t);
}

TR_TEST(check_names_what_is_missing)
{
    sqlite3 *db;
    CHECK_INT(sqlite3_open(":memory:", &db), SQLITE_OK);
    sqlite3_exec(db, "CREATE TABLE slice(x); CREATE TABLE meta(key, value);", NULL, NULL, NULL);
    tr_error e = {0};
    CHECK_INT(tr_sqlite_check(db, &e), TR_FAIL);
    CHECK_INT(e.code, TR_E_FORMAT);
    CHECK(strstr(e.msg, "not a tracecat database: no tables or views trace_input, process") !=
          NULL);
    CHECK(strstr(e.msg, "meta") == NULL);
    sqlite3_close(db);
}

TR_TEST(file_output_restores_pragmas)
{
    tr_trace *t = build();
    char path[4200];
    snprintf(path, sizeof path, "%s/run.db", tr_test_tmpdir());
    tr_output *out;
    tr_error e = {0};
    CHECK_INT(tr_output_open(&out, path, &e), TR_OK);
    CHECK(tr_output_temp_path(out) != NULL); /* the writer builds the database in it */
    tr_output_abort(out);
    CHECK_INT(tr_write_trace(&tr_writer_sqlite, t, path, NULL, &e), TR_OK);
    sqlite3 *db;
    CHECK_INT(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    CHECK_INT(tr_sqlite_check(db, &e), TR_OK);
    CHECK_STR(q(db, "SELECT count(*) FROM slice"), "2");
    /* The bulk-load settings are not left in the file. */
    CHECK_STR(q(db, "PRAGMA journal_mode"), "delete");
    CHECK_STR(q(db, "PRAGMA integrity_check"), "ok");
    sqlite3_close(db);
    /* A second load into an existing connection restores what it found. */
    CHECK_INT(sqlite3_open(":memory:", &db), SQLITE_OK);
    sqlite3_exec(db, "PRAGMA synchronous=1; PRAGMA cache_size=-1234", NULL, NULL, NULL);
    CHECK_INT(tr_sqlite_load(db, t, NULL, &e), TR_OK);
    CHECK_STR(q(db, "PRAGMA synchronous"), "1");
    CHECK_STR(q(db, "PRAGMA cache_size"), "-1234");
    CHECK_STR(q(db, "PRAGMA journal_mode"), "memory");
    sqlite3_close(db);
    tr_trace_free(t);
}

TR_TEST(compressed_output_and_save)
{
    tr_trace *t = build();
    char path[4200];
    snprintf(path, sizeof path, "%s/run.db.zst", tr_test_tmpdir());
    CHECK(tr_writer_for_path(path) == &tr_writer_sqlite);
    tr_output *out;
    tr_error e = {0};
    CHECK_INT(tr_output_open(&out, path, &e), TR_OK);
    CHECK(tr_output_temp_path(out) == NULL); /* compressed: built in memory and streamed */
    tr_output_abort(out);
    CHECK_INT(tr_write_trace(&tr_writer_sqlite, t, path, NULL, &e), TR_OK);
    char cmd[9000];
    snprintf(cmd, sizeof cmd, "zstd -dc '%s' | head -c 15 | grep -q 'SQLite format 3'", path);
    if (system("zstd --version >/dev/null 2>&1") == 0) CHECK_INT(system(cmd), 0);

    /* tr_sqlite_save copies an in-memory database into a file. */
    sqlite3 *db = mem_db(t, NULL);
    snprintf(path, sizeof path, "%s/saved.db", tr_test_tmpdir());
    CHECK_INT(tr_output_open(&out, path, &e), TR_OK);
    CHECK_INT(tr_sqlite_save(db, out, &e), TR_OK);
    CHECK_INT(tr_output_commit(out, &e), TR_OK);
    sqlite3_close(db);
    CHECK_INT(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    CHECK_STR(q(db, "SELECT count(*) FROM args"), "7");
    sqlite3_close(db);
    tr_trace_free(t);
}

TR_TEST(out_of_memory_is_clean)
{
    tr_trace *t = build();
    /* Fail the writer's own allocations one by one: each run errors cleanly or succeeds. */
    int ok = 0;
    for (uint64_t n = 1; n < 1000 && !ok; n++) {
        sqlite3 *db;
        CHECK_INT(sqlite3_open(":memory:", &db), SQLITE_OK);
        tr_error e = {0};
        tr_alloc_fail_after(n);
        int rc = tr_sqlite_load(db, t, NULL, &e);
        tr_alloc_fail_after(0);
        if (rc == TR_OK)
            ok = 1;
        else
            CHECK_INT(e.code, TR_E_NOMEM);
        sqlite3_close(db);
    }
    CHECK(ok);
    tr_trace_free(t);
}

/* ---- the samples of each format ---- */

static sqlite3 *load_sample(const char *rel)
{
    tr_trace *t = tr_trace_new();
    tr_error e;
    int rc = tr_test_load(t, tr_test_src(rel), NULL, &e);
    if (rc != TR_OK) fprintf(stderr, "  %s: %s\n", rel, e.msg);
    CHECK_INT(rc, TR_OK);
    sqlite3 *db = mem_db(t, NULL);
    tr_trace_free(t);
    return db;
}

TR_TEST(sample_gt)
{
    sqlite3 *db = load_sample("testdata/gt/gt-server-2workers.log");
    CHECK_STR(q(db, "SELECT count(*) FROM slice"), "965");
    CHECK_STR(q(db, "SELECT count(*) FROM instant"), "2454");
    CHECK_STR(q(db, "SELECT count(*) FROM gt_op"), "2454");
    CHECK_STR(q(db, "SELECT sum(bytes) FROM gt_op WHERE event = 'RECV'"),
              q(db, "SELECT sum(int_value) FROM args a JOIN instant i USING (arg_set_id)"
                    " WHERE i.name = 'RECV' AND a.key = 'bytes'"));
    /* The first request: RECV #1 at 3.588 s, SEND #2 at 3.589 s. */
    CHECK_STR(q(db, "SELECT s.ts || ' ' || s.dur || ' ' || s.name || ' ' || t.name || ' '"
                    " || s.bytes FROM slice s JOIN track t ON t.id = s.track_id ORDER BY s.id"
                    " LIMIT 1"),
              "3588000000 1000000 RegisterWorker client 006b8b4567 176");
    CHECK_STR(q(db, "SELECT group_concat(key || '=' || display_value, ' ') FROM args"
                    " WHERE arg_set_id = (SELECT arg_set_id FROM slice WHERE id = 0)"),
              "seq=1 send_seq=2 recv_bytes=85 send_bytes=91");
    /* The batch #9 on worker_1: its WORKER_SEND row carries the round trip's 9 ms. */
    CHECK_STR(q(db, "SELECT lane || ' ' || event || ' ' || command || ' ' || bytes || ' ' || dur"
                    " FROM gt_op WHERE seq = 9"),
              "worker worker_1 WORKER_SEND WorkerBatch 720282 9000000");
    CHECK_STR(q(db, "SELECT count(*) FROM thread"), "5");
    /* Schema 5: every set packed a row each, and args gives every arg back, bytes and details too.
     */
    CHECK_STR(q(db, "SELECT count(*) FROM __intrinsic_args"), "0");
    CHECK_STR(q(db, "SELECT count(*) || ' ' || count(DISTINCT arg_set_id) FROM args"),
              "17461 3419");
    CHECK_STR(q(db, "SELECT group_concat(key || '=' || display_value || ':' || typeof(int_value)"
                    " || typeof(string_value), ' ') FROM args WHERE arg_set_id ="
                    " (SELECT arg_set_id FROM instant WHERE id = 8)"),
              "seq=9:integernull command=WorkerBatch:nulltext bytes=720282:integernull"
              " details=[1 cmds: WorkerCreateTensor]:nulltext");
    CHECK_STR(q(db, "SELECT count(*) FROM gt_dropped_args"), "0");
    sqlite3_close(db);
}

TR_TEST(sample_recorder)
{
    sqlite3 *db = load_sample("testdata/recorder/iomix-2r/recorder.mt");
    CHECK_STR(q(db, "SELECT count(*) FROM io"), "60");
    CHECK_STR(q(db, "SELECT sum(bytes) FROM io"), "2146");
    CHECK_STR(q(db, "SELECT group_concat(rank || ':' || b, ' ') FROM (SELECT rank, sum(bytes) b"
                    " FROM io GROUP BY rank ORDER BY rank)"),
              "0:1073 1:1073");
    CHECK_STR(q(db, "SELECT count(*) FROM io WHERE layer = 'POSIX' AND function = 'write'"
                    " AND path = '/tmp/tracecat/iomix-2r/posix_rank0.dat' AND bytes = 100"),
              "4");
    CHECK_STR(q(db, "SELECT count(*) FROM gt_op"), "0");
    sqlite3_close(db);
}

TR_TEST(sample_pyspy)
{
    sqlite3 *db = load_sample("testdata/pyspy/12_raw_folded_gevent_pyspy179.txt");
    CHECK_STR(q(db, "SELECT count(*) || ' ' || sum(weight) FROM stack_sample"), "3 1000");
    CHECK_STR(q(db, "SELECT stack FROM sample_stack ORDER BY weight DESC LIMIT 1"),
              "_worker;get;wait");
    sqlite3_close(db);
    db = load_sample("testdata/pyspy/11_sglang_multiprocess_xargs_concat.txt");
    CHECK_STR(q(db, "SELECT count(*) FROM stack_sample"), "14");
    CHECK_STR(q(db, "SELECT f.name || ' ' || count(*) FROM stack_sample s"
                    " JOIN stack_profile_callsite c ON c.id = s.callsite_id"
                    " JOIN stack_profile_frame f ON f.id = c.frame_id"
                    " GROUP BY f.id ORDER BY count(*) DESC LIMIT 1"),
              "_recv_msg 4");
    CHECK_STR(q(db, "SELECT count(*) FROM process"), "4");
    sqlite3_close(db);
}

TR_TEST(sample_chrome)
{
    sqlite3 *db = load_sample("testdata/chrome/hta/amd_trace");
    CHECK_STR(q(db, "SELECT count(*) FROM slice WHERE category = 'kernel'"), "14");
    CHECK_STR(q(db, "SELECT count(*) FROM flow WHERE slice_out IS NOT NULL"
                    " AND slice_in IS NOT NULL"),
              "20");
    CHECK_STR(q(db, "SELECT count(*) FROM slice k JOIN flow f ON f.slice_in = k.id"
                    " JOIN slice r ON r.id = f.slice_out WHERE k.category = 'kernel'"
                    " AND r.category = 'cuda_runtime'"),
              "14");
    sqlite3_close(db);
    db = load_sample("testdata/chrome/catapult/instance_counters.json");
    CHECK_STR(q(db, "SELECT count(*) FROM counter"), "8");
    sqlite3_close(db);
}
