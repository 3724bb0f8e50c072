/*
 * case_index.c - building the case index of `arbiter view` (case_index.h): one row per case
 * and pair with what a reader filters on, worked out from the stored records in one INSERT ...
 * SELECT, and its tally (arb_case_index_counts).  Searching is case_index_search.c's, paging
 * and stepping through the index case_index_query.c's.
 *
 * The index lives in TEMP tables (case_index_int.h) and the search's state in memory, so
 * nothing reaches the database file and a read-only store works.  The records are read by
 * their unqualified names, like every reader of the store, so a store scoped to some cases
 * (store_scope.c) indexes only those: the scope in force when a run is first indexed is the
 * one its index keeps.  The index of a run is a snapshot: a run still running gains rows in
 * the file, not in an index already built on this connection (a new connection sees them).
 *
 * These statements name TEMP tables that do not exist when the store opens and run a few
 * times per connection, so they are prepared when used, each a fixed string with its values
 * bound, as store_scope.c does.
 */
#include "case_index_int.h"

static const char *const setup_sql[] = {
    "CREATE TEMP TABLE IF NOT EXISTS arb_ci (rid INTEGER PRIMARY KEY, run INTEGER NOT NULL,"
    " n INTEGER AS (rid) VIRTUAL, seq INTEGER NOT NULL, case_id TEXT NOT NULL,"
    " system_a TEXT NOT NULL, system_b TEXT NOT NULL, status TEXT, winner TEXT,"
    " judge_winner TEXT, score_a REAL, score_b REAL, pass_rate_a REAL, pass_rate_b REAL,"
    " margin REAL, flags INTEGER NOT NULL)",
    "CREATE INDEX IF NOT EXISTS temp.arb_ci_case ON arb_ci (run, case_id, n, flags, status,"
    " winner, seq)",
    "CREATE TEMP TABLE IF NOT EXISTS arb_ci_runs (run INTEGER PRIMARY KEY, lo INTEGER NOT NULL,"
    " hi INTEGER NOT NULL, rows INTEGER NOT NULL, with_status INTEGER NOT NULL,"
    " with_winner INTEGER NOT NULL, with_margin INTEGER NOT NULL, judged INTEGER NOT NULL,"
    " inconsistent INTEGER NOT NULL, judge_failed INTEGER NOT NULL, disagree INTEGER NOT NULL,"
    " expectation_failed INTEGER NOT NULL)",
};

static const char sql_is_built[] = "SELECT EXISTS (SELECT 1 FROM temp.arb_ci_runs WHERE run = ?1)";
static const char sql_run_exists[] = "SELECT EXISTS (SELECT 1 FROM runs WHERE id = ?1)";

/* Judgment j's slot (case, pair, order, sample) has no attempt valid with no error. */
#define FAILED_SLOT                                                                                \
    " NOT (j.valid <> 0 AND coalesce(j.error, '') = '')"                                           \
    " AND NOT EXISTS (SELECT 1 FROM judgments k WHERE k.run = ?1 AND k.case_id = j.case_id"        \
    " AND k.system_a = j.system_a AND k.system_b = j.system_b AND k.ord = j.ord"                   \
    " AND k.sample = j.sample AND k.valid <> 0 AND coalesce(k.error, '') = '')"

/* A check of kind expectation failed for system a (b) of the pair of row x, when its pass rate
 * leaves room for one. */
#define EXPECTATION_FAILED(side)                                                                   \
    " WHEN coalesce(x.p" side ", 0) < 1 AND EXISTS (SELECT 1 FROM checks k WHERE k.run = ?1"       \
    " AND k.case_id = x.case_id AND k.system = x." side " AND k.kind = 'expectation'"              \
    " AND k.verdict = 'fail') THEN 1"
#define A_EXPECTATION_FAILED EXPECTATION_FAILED("a")
#define B_EXPECTATION_FAILED EXPECTATION_FAILED("b")

/*
 * The rows of run ?1, inserted in reading order (seq, then the pair), which numbers them: n
 * is the rowid.  pairs: each verdict, then each pair blinded but not yet decided, then each
 * case with neither (a run still running: the suite's pairs of systems).  The verdict's
 * "judge" member is read only when its text names one (a LIKE costs a tenth of parsing the
 * JSON); the JSON functions keep the last documents they parsed, so reading several members
 * parses it once.  pairs stays a compound query so that it is not flattened into its
 * readers, which would repeat that LIKE.  The flags are enum arb_case_flags, defined in
 * case_index.h; a judge slot failed as store_failures.c decides it.  A failed expectation
 * check makes its side's pass rate lower than 1 (decide.c counts it as not passed), so the
 * checks of a side are looked up only when its pass rate is below 1 or unknown.
 */
/* A verdict's comparison.json: its text's, or the one stored in its row before migration 11. */
#define CMP_JSON "coalesce(t.body, v.comparison_inline)"

static const char sql_build[] =
    "WITH pairs AS ("
    " SELECT c.seq AS seq, v.case_id AS case_id, v.system_a AS a, v.system_b AS b,"
    " v.status AS status, v.winner AS winner, v.score_a AS sa, v.score_b AS sb,"
    " v.pass_rate_a AS pa, v.pass_rate_b AS pb,"
    " CASE WHEN " CMP_JSON " LIKE '%\"judge\"%' AND json_valid(" CMP_JSON ")"
    " THEN json_extract(" CMP_JSON ", '$.judge') END AS jd"
    " FROM cases c JOIN verdicts v ON v.run = ?1 AND v.case_id = c.case_id"
    " LEFT JOIN verdict_texts t ON t.id = v.comparison WHERE c.run = ?1"
    " UNION ALL"
    " SELECT c.seq, b.case_id, b.system_a, b.system_b, NULL, NULL, NULL, NULL, NULL, NULL, NULL"
    " FROM cases c JOIN blinding b ON b.run = ?1 AND b.case_id = c.case_id WHERE c.run = ?1"
    " AND NOT EXISTS (SELECT 1 FROM verdicts v WHERE v.run = ?1 AND v.case_id = b.case_id"
    " AND v.system_a = b.system_a AND v.system_b = b.system_b)"
    " UNION ALL"
    " SELECT c.seq, c.case_id, x.name, y.name, NULL, NULL, NULL, NULL, NULL, NULL, NULL"
    " FROM cases c JOIN systems x ON x.run = ?1 JOIN systems y ON y.run = ?1"
    " AND y.position > x.position WHERE c.run = ?1"
    " AND NOT EXISTS (SELECT 1 FROM verdicts v WHERE v.run = ?1 AND v.case_id = c.case_id)"
    " AND NOT EXISTS (SELECT 1 FROM blinding b WHERE b.run = ?1 AND b.case_id = c.case_id)),"
    " said AS ("
    " SELECT p.*, coalesce(json_type(p.jd) = 'object', 0) AS judged,"
    " json_extract(p.jd, '$.error') AS jerr,"
    " coalesce(json_extract(p.jd, '$.position_inconsistent') = 1, 0) AS pinc,"
    " coalesce(json_extract(p.jd, '$.order_winners[0]'),"
    " json_extract(p.jd, '$.order_winners[1]'), json_extract(p.jd, '$.winner')) AS jword"
    " FROM pairs p),"
    " named AS ("
    " SELECT s.*, (SELECT EXISTS (SELECT 1 FROM judgments WHERE run = ?1)) AS judgments,"
    " CASE WHEN s.judged AND s.jerr IS NULL AND NOT s.pinc THEN"
    " CASE s.jword WHEN 'A' THEN s.a WHEN 'B' THEN s.b WHEN 'TIE' THEN 'TIE' END END AS jw,"
    " CASE WHEN s.sa > s.sb THEN s.a WHEN s.sb > s.sa THEN s.b"
    " WHEN s.sa = s.sb THEN 'TIE' END AS rw FROM said s)"
    " INSERT INTO temp.arb_ci (run, seq, case_id, system_a, system_b, status, winner,"
    " judge_winner, score_a, score_b, pass_rate_a, pass_rate_b, margin, flags)"
    " SELECT ?1, x.seq, x.case_id, x.a, x.b, x.status, x.winner, x.jw, x.sa, x.sb, x.pa, x.pb,"
    " abs(x.sa - x.sb),"
    " (x.judged AND x.jerr IS NULL)"
    " + 2 * (x.pinc OR x.status IS 'position_inconsistent')"
    " + 4 * (CASE WHEN x.status IS 'judge_failed' OR x.status IS 'judge_refused'"
    " OR (x.judged AND x.jerr IS NOT NULL)"
    " OR (x.judgments AND EXISTS (SELECT 1 FROM judgments j WHERE j.run = ?1"
    " AND j.case_id = x.case_id AND ((j.system_a = x.a AND j.system_b = x.b)"
    " OR (j.system_a IN (x.a, x.b) AND j.system_b >= 'llm_judge:'"
    " AND j.system_b < 'llm_judge;')) AND" FAILED_SLOT ")) THEN 1 ELSE 0 END)"
    " + 8 * (x.jw IS NOT NULL AND x.rw IS NOT NULL AND x.jw <> x.rw)"
    " + 16 * (CASE" A_EXPECTATION_FAILED B_EXPECTATION_FAILED " ELSE 0 END)"
    " FROM named x ORDER BY x.seq, x.a, x.b";

/* The rows of run were inserted last: they are the rowids after the previous maximum. */
static const char sql_tally[] =
    "INSERT INTO temp.arb_ci_runs (run, lo, hi, rows, with_status, with_winner, with_margin,"
    " judged, inconsistent, judge_failed, disagree, expectation_failed)"
    " SELECT ?1, coalesce(min(rid), 0), coalesce(max(rid), -1), count(*), count(status),"
    " count(winner), count(margin), total(flags & 1 <> 0), total(flags & 2 <> 0),"
    " total(flags & 4 <> 0), total(flags & 8 <> 0), total(flags & 16 <> 0)"
    " FROM temp.arb_ci WHERE rid > ?2";

static const char sql_last_rid[] = "SELECT coalesce(max(rid), 0) FROM temp.arb_ci";

static const char sql_counts[] =
    "SELECT rows, judged, inconsistent, judge_failed, disagree, expectation_failed"
    " FROM temp.arb_ci_runs WHERE run = ?1";

/* A savepoint of its own, so a failed build leaves no half of its rows (and nests inside a
 * caller's transaction). */
static const char sql_savepoint[] = "SAVEPOINT arb_case_index";
static const char sql_release[] = "RELEASE arb_case_index";
static const char sql_rollback[] = "ROLLBACK TO arb_case_index";

enum arb_status store_ci_prepare(struct arb_store *st, const char *sql, sqlite3_stmt **s,
                                 const char *what, struct arb_err *err)
{
    int rc = sqlite3_prepare_v2(st->db, sql, -1, s, NULL);

    if (rc == SQLITE_OK)
        return ARB_OK;
    sqlite3_finalize(*s);
    *s = NULL;
    return store_fail(st, rc, err, "prepare %s", what);
}

enum arb_status store_ci_exec(struct arb_store *st, const char *sql, const struct store_ci_args *a,
                              int64_t *row, const char *what, struct arb_err *err)
{
    sqlite3_stmt *s = NULL;
    enum arb_status ret = store_ci_prepare(st, sql, &s, what, err);
    int n = s ? sqlite3_bind_parameter_count(s) : 0, rc = SQLITE_OK;

    if (ret)
        return ret;
    if (n >= 1)
        rc = store_bind_int(rc, s, 1, a->run);
    if (n >= 2)
        rc = a->text ? store_bind_text(rc, s, 2, a->text) : store_bind_int(rc, s, 2, a->num);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(s);
    if (row)
        *row = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        ret = store_fail(st, rc, err, "%s", what);
    sqlite3_finalize(s);
    return ret;
}

/* The TEMP tables, and the search's state with the function the query's filter calls. */
static enum arb_status setup(struct arb_store *st, struct arb_err *err)
{
    struct store_ci_args none = {0, NULL, 0};
    enum arb_status ret = store_ci_search_setup(st, err);

    for (size_t i = 0; !ret && i < sizeof(setup_sql) / sizeof(setup_sql[0]); i++)
        ret = store_ci_exec(st, setup_sql[i], &none, NULL, "set up the case index", err);
    return ret;
}

/* The rows of run and their tally, inside the savepoint. */
static enum arb_status fill(struct arb_store *st, int64_t run, struct arb_err *err)
{
    struct store_ci_args a = {run, NULL, 0};
    enum arb_status ret = store_ci_exec(st, sql_last_rid, &a, &a.num, "index the cases", err);

    if (!ret)
        ret = store_ci_exec(st, sql_build, &a, NULL, "index the cases", err);
    if (!ret)
        ret = store_ci_exec(st, sql_tally, &a, NULL, "count the indexed cases", err);
    return ret;
}

enum arb_status store_ci_need_run(struct arb_store *st, int64_t run, struct arb_err *err)
{
    struct store_ci_args a = {run, NULL, 0};
    int64_t yes = 0;
    enum arb_status ret = store_ci_exec(st, sql_run_exists, &a, &yes, "look up a run", err);

    if (!ret && !yes)
        return arb_err_set(err, ARB_EUSAGE, "no run %lld in '%s'", (long long)run, st->path);
    return ret;
}

enum arb_status store_ci_build(struct arb_store *st, int64_t run, struct arb_err *err)
{
    struct store_ci_args a = {run, NULL, 0};
    int64_t yes = 0;
    enum arb_status ret = setup(st, err);

    if (!ret)
        ret = store_ci_exec(st, sql_is_built, &a, &yes, "look up the case index", err);
    if (ret || yes)
        return ret;
    ret = store_ci_need_run(st, run, err);
    if (!ret)
        ret = store_ci_exec(st, sql_savepoint, &a, NULL, "index the cases", err);
    if (ret)
        return ret;
    ret = fill(st, run, err);
    if (ret) {
        /* Undo the half-built rows; the error already says what failed. */
        sqlite3_exec(st->db, sql_rollback, NULL, NULL, NULL);
        sqlite3_exec(st->db, sql_release, NULL, NULL, NULL);
        return ret;
    }
    return store_ci_exec(st, sql_release, &a, NULL, "index the cases", err);
}

enum arb_status arb_case_index_build(struct arb_store *st, int64_t run, struct arb_err *err)
{
    enum arb_status ret;

    if (!st)
        return arb_err_set(err, ARB_EUSAGE, "arb_case_index_build: no store");
    ret = store_ci_build(st, run, err);
    return ret ? ret : arb_case_index_load_search(st, run, NULL, err);
}

enum arb_status arb_case_index_counts(struct arb_store *st, int64_t run, int64_t counts[5],
                                      int64_t *all, struct arb_err *err)
{
    sqlite3_stmt *s = NULL;
    enum arb_status ret;
    int rc;

    if (!st || !counts || !all)
        return arb_err_set(err, ARB_EUSAGE, "arb_case_index_counts: no store or counts");
    ret = store_ci_build(st, run, err);
    if (!ret)
        ret = store_ci_prepare(st, sql_counts, &s, "count the indexed cases", err);
    if (ret)
        return ret;
    rc = store_bind_int(SQLITE_OK, s, 1, run);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        *all = sqlite3_column_int64(s, 0);
        for (int i = 0; i < 5; i++)
            counts[i] = sqlite3_column_int64(s, i + 1);
    } else {
        /* Built above, so its row is there: no row is a failure too. */
        ret = store_fail(st, rc == SQLITE_DONE ? SQLITE_INTERNAL : rc, err,
                         "count the indexed cases");
    }
    sqlite3_finalize(s);
    return ret;
}
