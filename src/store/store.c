/*
 * store.c - opening and closing the SQLite record; the statement table
 * (transactions are store_txn.c's; the binding and reading helpers the other
 * files of src/store/ share are in store_util.c; the schema and its migrations
 * in store_migrate.c).
 *
 * Opening sets WAL mode (writers), foreign keys, synchronous=NORMAL and a
 * busy timeout, checks that the file is an Arbiter database (or empty),
 * applies the migrations newer than its PRAGMA user_version (one transaction
 * each; an empty file gets the schema they leave in one, db/schema-fresh.sql)
 * and prepares every statement once.  WAL with synchronous=NORMAL
 * keeps every committed transaction across a killed process; only a power
 * failure may lose the last ones.  The records themselves are written by
 * store_put.c and store_runs.c and read by store_read.c.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "store_int.h"

#define BUSY_TIMEOUT_MS 5000

#define RUN_COLUMNS                                                                                \
    "r.id, r.created_at, r.status, r.suite_path, r.suite_name, r.suite_sha256, r.suite_json, "     \
    "r.systems_json, r.seed, r.version, r.judge_json, "                                            \
    "(SELECT count(*) FROM cases c WHERE c.run = r.id), r.scope_json, r.inputs_json, r.kind, "     \
    "r.procedure_hash "
/* A check record's columns, its text's, and for a text that lacks them, its output's text and
 * its case's expected value (migration 10); CROSS JOIN: the checks drive, in id order. */
#define CHECK_COLUMNS                                                                              \
    "c.case_id, c.system, c.kind, c.item, t.body, c.verdict, c.score, t.observed_at, "             \
    "CASE WHEN t.observed_at IS NOT NULL THEN (SELECT o.content FROM outputs o "                   \
    "WHERE o.run = c.run AND o.case_id = c.case_id AND o.system = c.system AND o.file = '' "       \
    "ORDER BY o.trial LIMIT 1) END, c.id, t.expected_at, "                                         \
    "CASE WHEN t.expected_at IS NOT NULL THEN (SELECT k.expected_json FROM cases k "               \
    "WHERE k.run = c.run AND k.case_id = c.case_id) END "                                          \
    "FROM checks c CROSS JOIN check_texts t ON t.id = c.record "
/* A verdict's columns and its comparison.json: its text's (migration 11), or the one stored in
 * its row before. */
#define VERDICT_COLUMNS                                                                            \
    "v.case_id, v.system_a, v.system_b, v.status, v.winner, v.score_a, v.score_b, "                \
    "v.pass_rate_a, v.pass_rate_b, coalesce(t.body, v.comparison_inline) FROM verdicts v "         \
    "LEFT JOIN cases c ON c.run = v.run AND c.case_id = v.case_id "                                \
    "LEFT JOIN verdict_texts t ON t.id = v.comparison "
#define VERDICT_INSERT                                                                             \
    "INSERT INTO verdicts (run, case_id, system_a, system_b, status, winner, score_a, score_b, "   \
    "pass_rate_a, pass_rate_b, comparison) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) "

/* Several check records in one statement (store_checks.c, store_put_checks): eight values a
 * row, numbered in order. */
#define CHECK_ROW   "(?, ?, ?, ?, ?, ?, ?, ?)"
#define CHECK_ROWS4 CHECK_ROW ", " CHECK_ROW ", " CHECK_ROW ", " CHECK_ROW

/* Every statement the store runs, indexed by enum store_stmt.  Values are always bound. */
static const char *const sql[Q_N] = {
    [Q_BEGIN] = "BEGIN IMMEDIATE",
    [Q_COMMIT] = "COMMIT",
    [Q_ROLLBACK] = "ROLLBACK",
    [Q_SAVEPOINT] = "SAVEPOINT arb_store",
    [Q_RELEASE] = "RELEASE arb_store",
    [Q_ROLLBACK_TO] = "ROLLBACK TO arb_store",
    [Q_GROUP_SAVEPOINT] = "SAVEPOINT arb_group",
    [Q_GROUP_RELEASE] = "RELEASE arb_group",
    [Q_GROUP_ROLLBACK_TO] = "ROLLBACK TO arb_group",
    [Q_RUN_CREATE] =
        "INSERT INTO runs (id, created_at, status, suite_path, suite_name, "
        "suite_sha256, suite_json, systems_json, seed, version, judge_json, scope_json, "
        "inputs_json, kind, procedure_hash) "
        "VALUES (?10, coalesce(?1, strftime('%Y-%m-%dT%H:%M:%SZ', 'now')), "
        "'running', ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?11, ?12, coalesce(?13, 'run'), "
        "?14)",
    [Q_RUN_SYSTEMS] = "INSERT INTO systems (run, name, path, position) "
                      "SELECT ?1, json_extract(value, '$.name'), json_extract(value, '$.path'), "
                      "CAST(key AS INTEGER) FROM json_each(?2) WHERE true "
                      "ON CONFLICT DO NOTHING",
    [Q_RUN_STATUS] = "UPDATE runs SET status = ?2 WHERE id = ?1",
    /* A calibration's run is not a run a user made: never "latest". */
    [Q_RUN_LATEST] = "SELECT max(id) FROM runs WHERE kind = 'run'",
    [Q_RUN_EXISTS] = "SELECT 1 FROM runs WHERE id = ?1",
    [Q_RUNS_ONE] = "SELECT " RUN_COLUMNS "FROM runs r WHERE r.id = ?1",
    [Q_RUNS_ALL] = "SELECT " RUN_COLUMNS "FROM runs r ORDER BY r.id DESC",
    [Q_PUT_CASE] = "INSERT INTO cases (run, case_id, seq, prompt, expected_json, case_json) "
                   "VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT DO NOTHING",
    [Q_PUT_OUTPUT] = "INSERT INTO outputs (run, case_id, system, file, content, size, binary, "
                     "sha256, meta_json, trial) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10) "
                     "ON CONFLICT DO NOTHING",
    [Q_PUT_TRIAL] = "INSERT INTO trials (run, case_id, system, trial, passed, n_pass, n_fail, "
                    "n_unresolved, records_json) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) "
                    "ON CONFLICT DO NOTHING",
    [Q_TRIALS_CASE] = "SELECT t.case_id, t.system, t.trial, t.passed, t.n_pass, t.n_fail, "
                      "t.n_unresolved, t.records_json FROM trials t "
                      "LEFT JOIN systems s ON s.run = t.run AND s.name = t.system "
                      "WHERE t.run = ?1 AND t.case_id = ?2 "
                      "ORDER BY s.position IS NULL, s.position, t.system, t.trial",
    [Q_HAS_TRIALS] = "SELECT EXISTS (SELECT 1 FROM outputs WHERE run = ?1 AND system = ?2 "
                     "AND trial <> (SELECT min(o.trial) FROM outputs o WHERE o.run = ?1 "
                     "AND o.case_id = outputs.case_id AND o.system = ?2))",
    [Q_TRIALS_ALL] = "SELECT t.case_id, t.system, t.trial, t.passed, t.n_pass, t.n_fail, "
                     "t.n_unresolved, NULL FROM trials t "
                     "LEFT JOIN systems s ON s.run = t.run AND s.name = t.system "
                     "WHERE t.run = ?1 "
                     "ORDER BY s.position IS NULL, s.position, t.system, t.case_id, t.trial",
    [Q_PUT_BLINDING] = "INSERT INTO blinding (run, case_id, system_a, system_b, hmac) "
                       "VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT DO NOTHING",
    [Q_PUT_PROBLEM] = "INSERT INTO problems (run, kind, case_id, system, message) "
                      "VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT DO NOTHING",
    [Q_PUT_CHECK] = "INSERT INTO checks (run, case_id, system, kind, item, verdict, score, "
                    "record) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) "
                    "ON CONFLICT DO NOTHING",
    [Q_SET_CHECK] = "UPDATE checks SET verdict = ?6, score = ?7, record = ?8 "
                    "WHERE run = ?1 AND case_id = ?2 AND system = ?3 AND kind = ?4 AND item = ?5",
    [Q_PUT_CHECKS4] = "INSERT INTO checks (run, case_id, system, kind, item, verdict, score, "
                      "record) VALUES " CHECK_ROWS4 " ON CONFLICT DO NOTHING",
    [Q_PUT_CHECKS8] = "INSERT INTO checks (run, case_id, system, kind, item, verdict, score, "
                      "record) VALUES " CHECK_ROWS4 ", " CHECK_ROWS4 " ON CONFLICT DO NOTHING",
    [Q_PUT_TEXT] = "INSERT INTO check_texts (run, expected_at, observed_at, body) "
                   "VALUES (?1, ?2, ?3, ?4)",
    [Q_SET_TEXT] = "UPDATE check_texts SET expected_at = ?2, observed_at = ?3, body = ?4 "
                   "WHERE id = ?1",
    [Q_DEL_TEXT] = "DELETE FROM check_texts WHERE id = ?1",
    [Q_CHECK_TEXT] = "SELECT record, verdict FROM checks WHERE run = ?1 AND case_id = ?2 "
                     "AND system = ?3 AND kind = ?4 AND item = ?5",
    [Q_PUT_VERDICT] = VERDICT_INSERT "ON CONFLICT DO NOTHING",
    [Q_VERDICT_TEXT] = "SELECT comparison, status FROM verdicts WHERE run = ?1 AND case_id = ?2 "
                       "AND system_a = ?3 AND system_b = ?4",
    [Q_PUT_VTEXT] = "INSERT INTO verdict_texts (run, body) VALUES (?1, ?2)",
    [Q_SET_VTEXT] = "UPDATE verdict_texts SET body = ?2 WHERE id = ?1",
    [Q_DEL_VTEXT] = "DELETE FROM verdict_texts WHERE id = ?1",
    [Q_OUTPUTS] = "SELECT o.case_id, o.system, o.file, o.content, o.size, o.binary, o.sha256, "
                  "o.meta_json, o.trial FROM outputs o "
                  "LEFT JOIN systems s ON s.run = o.run AND s.name = o.system "
                  "WHERE o.run = ?1 AND o.case_id = ?2 "
                  "ORDER BY s.position IS NULL, s.position, o.system, o.trial, o.file",
    /* The same in the order of the outputs' key, which needs no sort (a run's hot path). */
    [Q_OUTPUTS_BY_KEY] = "SELECT o.case_id, o.system, o.file, o.content, o.size, o.binary, "
                         "o.sha256, o.meta_json, o.trial FROM outputs o "
                         "WHERE o.run = ?1 AND o.case_id = ?2 ORDER BY o.system, o.trial, o.file",
    [Q_PROBLEMS] = "SELECT kind, case_id, system, message FROM problems WHERE run = ?1 "
                   "ORDER BY id",
    [Q_CHECKS_CASE] = "SELECT " CHECK_COLUMNS "WHERE c.run = ?1 AND c.case_id = ?2 ORDER BY c.id",
    [Q_CHECKS_ALL] = "SELECT " CHECK_COLUMNS "WHERE c.run = ?1 ORDER BY c.id",
    [Q_VERDICTS_CASE] = "SELECT " VERDICT_COLUMNS "WHERE v.run = ?1 AND v.case_id = ?2 "
                        "ORDER BY v.id",
    /* Driven by cases(run, seq) (CROSS JOIN fixes the loop order): rows come out in case
     * order without sorting the comparison texts through a temporary b-tree; within a case,
     * in the order of the verdicts' key (system_a, system_b). */
    [Q_VERDICTS_ALL] = "SELECT v.case_id, v.system_a, v.system_b, v.status, v.winner, "
                       "v.score_a, v.score_b, v.pass_rate_a, v.pass_rate_b, "
                       "coalesce(t.body, v.comparison_inline) "
                       "FROM cases c CROSS JOIN verdicts v ON v.run = c.run "
                       "AND v.case_id = c.case_id LEFT JOIN verdict_texts t ON t.id = v.comparison "
                       "WHERE c.run = ?1 ORDER BY c.seq",
    /* The same without comparison.json, for tallies: in the order of the verdicts' key (a
     * case's verdicts together), which a scan of it gives without a search per case (a third
     * of the time at 1,000,000 cases); SQLite never reads a text. */
    [Q_VERDICT_OUTCOMES] = "SELECT v.case_id, v.system_a, v.system_b, v.status, v.winner, "
                           "NULL, NULL, NULL, NULL, NULL "
                           "FROM verdicts v WHERE v.run = ?1 "
                           "ORDER BY v.case_id, v.system_a, v.system_b",
    [Q_CASE_DONE] = "SELECT EXISTS (SELECT 1 FROM verdicts WHERE run = ?1 AND case_id = ?2)",
    [Q_COUNT_CASES] = "SELECT count(*) FROM cases WHERE run = ?1",
    [Q_COUNT_SYSTEMS] = "SELECT count(*) FROM systems WHERE run = ?1",
    [Q_COUNT_OUTPUTS] = "SELECT count(*) FROM outputs WHERE run = ?1",
    [Q_COUNT_BLINDING] = "SELECT count(*) FROM blinding WHERE run = ?1",
    [Q_COUNT_CHECKS] = "SELECT count(*) FROM checks WHERE run = ?1",
    [Q_COUNT_VERDICTS] = "SELECT count(*) FROM verdicts WHERE run = ?1",
    [Q_COUNT_PROBLEMS] = "SELECT count(*) FROM problems WHERE run = ?1",
    [Q_COUNT_TRIALS] = "SELECT count(*) FROM trials WHERE run = ?1",
    [Q_COUNT_JUDGED_CASES] = "SELECT count(DISTINCT case_id) FROM judgments WHERE run = ?1",
    [Q_SET_VERDICT] =
        VERDICT_INSERT "ON CONFLICT (run, case_id, system_a, system_b) DO UPDATE SET "
                       "status = excluded.status, winner = excluded.winner, "
                       "score_a = excluded.score_a, score_b = excluded.score_b, "
                       "pass_rate_a = excluded.pass_rate_a, pass_rate_b = excluded.pass_rate_b, "
                       "comparison = excluded.comparison, comparison_inline = NULL",
    /* A stored valid reply is never replaced; a failed call is, by its next attempt, and so
     * is a reply that is not known to be valid (moved aside first: Q_REJECT_JUDGE_CALL).  The
     * request goes with its reply: a new attempt draws new fence codes. */
    [Q_PUT_JUDGE_CALL] =
        "INSERT INTO judge_calls (key, provider, model, request_json, "
        "reply_json, status, http_status, attempts, latency_s, prompt_tokens, "
        "completion_tokens, error, created_at, cached_tokens, valid, "
        "charged_usd, response_format, stop_reason, normalization, error_type, "
        "error_code, error_message) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
        "?10, ?11, ?12, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), ?13, ?14, ?15, "
        "?16, ?17, ?18, ?19, ?20, ?21) "
        "ON CONFLICT (key) DO UPDATE SET request_json = excluded.request_json, "
        "reply_json = excluded.reply_json, "
        "status = excluded.status, http_status = excluded.http_status, "
        "attempts = excluded.attempts, latency_s = excluded.latency_s, "
        "prompt_tokens = excluded.prompt_tokens, "
        "completion_tokens = excluded.completion_tokens, error = excluded.error, "
        "created_at = excluded.created_at, cached_tokens = excluded.cached_tokens, "
        "valid = excluded.valid, charged_usd = excluded.charged_usd, "
        "response_format = excluded.response_format, "
        "stop_reason = excluded.stop_reason, "
        "normalization = excluded.normalization, error_type = excluded.error_type, "
        "error_code = excluded.error_code, error_message = excluded.error_message "
        "WHERE judge_calls.status = 'failed' OR judge_calls.valid IS NOT 1",
    /* An invalid reply (or one of unknown validity) about to be replaced, kept for audit. */
    [Q_REJECT_JUDGE_CALL] = "INSERT INTO judge_calls_rejected (key, provider, model, "
                            "request_json, reply_json, http_status, attempts, latency_s, "
                            "prompt_tokens, completion_tokens, cached_tokens, valid, charged_usd, "
                            "error, created_at, rejected_at, response_format, stop_reason, "
                            "normalization, error_type, error_code, error_message) "
                            "SELECT key, provider, model, "
                            "request_json, reply_json, http_status, attempts, latency_s, "
                            "prompt_tokens, completion_tokens, cached_tokens, valid, charged_usd, "
                            "error, created_at, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), "
                            "response_format, stop_reason, normalization, error_type, error_code, "
                            "error_message "
                            "FROM judge_calls WHERE key = ?1 AND status = 'ok' AND valid IS NOT 1",
    [Q_GET_JUDGE_CALL] =
        "SELECT key, provider, model, request_json, reply_json, status, "
        "http_status, attempts, latency_s, prompt_tokens, completion_tokens, "
        "error, cached_tokens, valid, response_format, stop_reason, normalization, "
        "error_type, error_code, error_message FROM judge_calls WHERE key = ?1",
    /* A slot judged again (a resume) keeps the fence its run sent, unless it sent anew. */
    [Q_PUT_JUDGMENT] = "INSERT INTO judgments (run, case_id, system_a, system_b, ord, sample, "
                       "attempt, key, valid, cached, answer_json, error, fence, reply_sha256) "
                       "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14) "
                       "ON CONFLICT (run, case_id, system_a, system_b, ord, sample, attempt) "
                       "DO UPDATE SET key = excluded.key, valid = excluded.valid, "
                       "cached = min(judgments.cached, excluded.cached), "
                       "answer_json = excluded.answer_json, error = excluded.error, "
                       "fence = CASE WHEN excluded.cached THEN judgments.fence "
                       "ELSE excluded.fence END, reply_sha256 = excluded.reply_sha256",
    /* Two statements, not "(?2 IS NULL OR case_id = ?2)": SQLite cannot use the (run,
     * case_id) index through that OR, and one case's judgments were read by scanning the
     * run's (a 100,000-case report's case details took minutes). */
    [Q_JUDGMENTS_CASE] = "SELECT case_id, system_a, system_b, ord, sample, attempt, key, valid, "
                         "cached, answer_json, error, fence, reply_sha256 FROM judgments WHERE "
                         "run = ?1 AND case_id = ?2 ORDER BY id",
    [Q_JUDGMENTS_RUN] = "SELECT case_id, system_a, system_b, ord, sample, attempt, key, valid, "
                        "cached, answer_json, error, fence, reply_sha256 FROM judgments WHERE "
                        "run = ?1 ORDER BY id",
    [Q_RUN_DELETE] = "DELETE FROM runs WHERE id = ?1",
    [Q_CASES_ALL] = "SELECT case_id, seq, case_json FROM cases WHERE run = ?1 ORDER BY seq",
    [Q_OUTPUTS_SYSTEM] = "SELECT o.case_id, o.system, o.file, o.content, o.size, o.binary, "
                         "o.sha256, o.meta_json, o.trial FROM outputs o "
                         "JOIN cases c ON c.run = o.run AND c.case_id = o.case_id "
                         "WHERE o.run = ?1 AND o.system = ?2 ORDER BY c.seq, o.trial, o.file",
    [Q_JUDGE_TOTALS] = "SELECT count(*), coalesce(sum(j.cached), 0), "
                       "coalesce(sum(c.prompt_tokens), 0), coalesce(sum(c.completion_tokens), 0), "
                       "coalesce(sum(c.latency_s), 0), coalesce(sum(1 - j.valid), 0) "
                       "FROM judgments j LEFT JOIN judge_calls c ON c.key = j.key "
                       "WHERE j.run = ?1",
    /* What a run paid for, per case: the calls it sent itself (a cached answer was paid for
     * by whichever run sent it): what each was charged, and the tokens of those stored
     * without a charge (before migration 5), for the reader to price. */
    [Q_JUDGE_COSTS] = "SELECT j.case_id, count(*), coalesce(sum(c.prompt_tokens), 0), "
                      "coalesce(sum(c.cached_tokens), 0), coalesce(sum(c.completion_tokens), 0), "
                      "coalesce(sum(c.charged_usd), 0), "
                      "coalesce(sum(CASE WHEN c.charged_usd IS NULL THEN c.prompt_tokens END), "
                      "0), coalesce(sum(CASE WHEN c.charged_usd IS NULL THEN c.cached_tokens "
                      "END), 0), coalesce(sum(CASE WHEN c.charged_usd IS NULL THEN "
                      "c.completion_tokens END), 0) "
                      "FROM judgments j LEFT JOIN judge_calls c ON c.key = j.key "
                      "LEFT JOIN cases k ON k.run = j.run AND k.case_id = j.case_id "
                      "WHERE j.run = ?1 AND j.cached = 0 GROUP BY j.case_id ORDER BY min(k.seq)",
    [Q_PUT_CALIBRATION] = "INSERT INTO calibrations (judge_hash, created_at, labels_path, n, "
                          "kappa, accuracy, study_json, run, procedure_hash, source) VALUES (?1, "
                          "strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    /* The latest pairwise study of a procedure (?1) or, with ?1 NULL, of the judge config ?2's
     * own verdicts (calibrate LABELS: no procedure).  Pairwise only: an expectation study
     * measures another prompt, and a --tune result has no judge. */
    [Q_CALIBRATION_OF] =
        "SELECT id, created_at, coalesce(source, 'labels'), coalesce(procedure_hash, ''), "
        "coalesce(judge_hash, ''), labels_path, n, kappa, "
        "json_extract(study_json, '$.combined.bootstrap.kappa.lo'), "
        "json_extract(study_json, '$.combined.bootstrap.kappa.hi'), accuracy, coalesce(run, 0) "
        "FROM calibrations WHERE json_extract(study_json, '$.kind') = 'pairwise' AND "
        "(CASE WHEN ?1 IS NULL THEN judge_hash = ?2 AND procedure_hash IS NULL "
        "ELSE procedure_hash = ?1 END) ORDER BY id DESC LIMIT 1",
    /* What a run's judgment of one question slot used (store_recorded.c). */
    [Q_RECORDED_JUDGMENT] = "SELECT key, reply_sha256, error FROM judgments WHERE run = ?1 "
                            "AND case_id = ?2 AND system_a = ?3 AND system_b = ?4 AND ord = ?5 "
                            "AND sample = ?6 AND attempt = ?7",
    /* The replies a later request replaced under key, newest first. */
    /* The columns of Q_GET_JUDGE_CALL (store_call_row): only replies are moved aside. */
    [Q_REJECTED_CALLS] =
        "SELECT key, provider, model, request_json, reply_json, 'ok', "
        "http_status, attempts, latency_s, prompt_tokens, completion_tokens, "
        "error, cached_tokens, valid, response_format, stop_reason, normalization, "
        "error_type, error_code, error_message FROM judge_calls_rejected "
        "WHERE key = ?1 "
        "ORDER BY id DESC",
};

/* ---- the statement table's statements, lent out ---------------------------------------- */

enum arb_status store_acquire(struct arb_store *st, enum store_stmt q, sqlite3_stmt **out,
                              struct arb_err *err)
{
    int rc;

    *out = NULL;
    if (!st->in_use[q]) {
        if (!store_stmt(st, q))
            return store_fail(st, store_errcode(st), err, "prepare a query");
        st->in_use[q] = 1;
        *out = st->stmt[q];
        return ARB_OK;
    }
    rc = sqlite3_prepare_v2(st->db, sql[q], -1, out, NULL);
    if (rc != SQLITE_OK) {
        sqlite3_finalize(*out);
        *out = NULL;
        return store_fail(st, rc, err, "prepare a query");
    }
    return ARB_OK;
}

void store_release(struct arb_store *st, enum store_stmt q, sqlite3_stmt *s)
{
    if (!s)
        return;
    if (s != st->stmt[q]) {
        sqlite3_finalize(s);
        return;
    }
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
    st->in_use[q] = 0;
}

/* ---- opening ------------------------------------------------------------------------------ */

/* Run a statement with no parameters that returns at most one integer (PRAGMA x). */
int store_query_int(struct arb_store *st, const char *text, int64_t *v)
{
    sqlite3_stmt *s = NULL;
    int rc = sqlite3_prepare_v2(st->db, text, -1, &s, NULL);

    if (rc == SQLITE_OK)
        rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        if (v)
            *v = sqlite3_column_int64(s, 0);
        rc = SQLITE_OK;
    } else if (rc == SQLITE_DONE) {
        rc = SQLITE_OK;
    }
    sqlite3_finalize(s);
    return rc;
}

/* A failure while reading the file at open: "not a database" gets its own wording. */
enum arb_status store_open_fail(struct arb_store *st, int rc, struct arb_err *err, const char *what)
{
    if ((rc & 0xff) == SQLITE_NOTADB)
        return arb_err_set(err, ARB_EDB, "'%s' is not an Arbiter database (%s)", st->path,
                           sqlite3_errstr(rc));
    return store_fail(st, rc, err, "%s", what);
}

enum arb_status store_begin_immediate(struct arb_store *st, struct arb_err *err)
{
    int rc = SQLITE_BUSY;

    /* The busy timeout already waits; a few more attempts ride out a long writer. */
    for (int i = 0; i < STORE_BEGIN_ATTEMPTS && (rc & 0xff) == SQLITE_BUSY; i++) {
        rc = sqlite3_exec(st->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    }
    if (rc != SQLITE_OK)
        return store_fail(st, rc, err, "begin a transaction");
    return ARB_OK;
}

/*
 * The page caches of a run (issue 21: its memory flat in the number of cases).  The writer
 * appends to its tables and indexes, in case order but for the outputs' index (a second
 * system's outputs go between the first's); its cache keeps the pages it returns to.  A
 * stream reader (pass 3 of a run reading the outputs back, case by case) visits each page
 * about once.  The WAL is checkpointed every st->wal_pages pages instead of SQLite's 1,000: a
 * page written many times between two checkpoints is copied into the database once, and
 * each checkpoint's fsync is paid a fraction as often.  (A million-case run: 156 MB with
 * two caches of 32 MB at its peak; now 8 MB and 2 MB.)
 */
static int size_cache(struct arb_store *st)
{
    int rc;

    if (st->flags & ARB_STORE_READONLY)
        return st->flags & ARB_STORE_STREAM ? store_query_int(st, "PRAGMA cache_size = -2048", NULL)
                                            : SQLITE_OK;
    rc = store_query_int(st, "PRAGMA cache_size = -8192", NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_wal_autocheckpoint(st->db, st->wal_pages);
    return rc;
}

/* Connection settings; WAL only for writers (a reader cannot change the journal mode). */
static enum arb_status configure(struct arb_store *st, struct arb_err *err)
{
    int rc;

    sqlite3_busy_timeout(st->db, BUSY_TIMEOUT_MS);
    sqlite3_extended_result_codes(st->db, 1);
    if (!(st->flags & ARB_STORE_READONLY) && sqlite3_db_readonly(st->db, "main") == 1)
        return arb_err_set(err, ARB_EDB,
                           "cannot open '%s' for writing: read-only file or directory", st->path);
    rc = store_query_int(st, "PRAGMA foreign_keys = ON", NULL);
    if (rc != SQLITE_OK)
        return store_open_fail(st, rc, err, "enable foreign keys");
    /* Reports read every verdict: a larger page cache keeps them from re-reading pages
     * through the kernel (32 MB).  No memory-mapped reads: a mapping of up to 256 MB made a
     * report's resident memory grow with the run (every page it touched counted), 278 MB for
     * the markdown report of 100,000 cases against 55 MB without it, and was no faster
     * (0.31 s against 0.27 s; the statistical report 0.78 s / 354 MB against 0.66 s / 92 MB;
     * issue 21).  A read-only connection reads its rows in order, once: 4 MB serve it as well
     * (markdown of 100,000 cases 0.44 s / 16 MB against 0.50 s / 55 MB with 32 MB). */
    rc = store_query_int(st,
                         st->flags & ARB_STORE_READONLY ? "PRAGMA cache_size = -4096" /* 4 MB */
                                                        : "PRAGMA cache_size = -32768",
                         NULL);
    if (rc == SQLITE_OK)
        rc = size_cache(st);
    if (rc == SQLITE_OK && (st->flags & ARB_STORE_READONLY))
        rc = store_query_int(st, "PRAGMA mmap_size = 0", NULL);
    if (rc != SQLITE_OK)
        return store_open_fail(st, rc, err, "read the database");
    if (!(st->flags & ARB_STORE_READONLY)) {
        int64_t pages = -1;

        /* A file being made (empty) holds nothing to lose: no sync until its schema is in
         * (the switch to WAL and the first commit synced six times, a millisecond of a
         * judged run's start); open_db syncs as usual from there (sync_normally). */
        rc = store_query_int(st, "PRAGMA page_count", &pages);
        if (rc != SQLITE_OK)
            return store_open_fail(st, rc, err, "read the database");
        rc = store_query_int(st, pages ? "PRAGMA synchronous = NORMAL" : "PRAGMA synchronous = OFF",
                             NULL);
        if (rc != SQLITE_OK)
            return store_open_fail(st, rc, err, "set synchronous mode");
        rc = store_query_int(st, "PRAGMA journal_mode = WAL", NULL);
        if (rc != SQLITE_OK)
            return store_open_fail(st, rc, err, "set WAL mode");
    }
    return ARB_OK;
}

/* After the schema: WAL with synchronous=NORMAL (every commit kept across a killed process;
 * only a power failure may lose the last ones). */
static enum arb_status sync_normally(struct arb_store *st, struct arb_err *err)
{
    int rc;

    if (st->flags & ARB_STORE_READONLY)
        return ARB_OK;
    rc = store_query_int(st, "PRAGMA synchronous = NORMAL", NULL);
    return rc == SQLITE_OK ? ARB_OK : store_open_fail(st, rc, err, "set synchronous mode");
}

void store_foreign_keys(struct arb_store *st, int on)
{
    store_query_int(st, on ? "PRAGMA foreign_keys = ON" : "PRAGMA foreign_keys = OFF", NULL);
}

/* A rollback may take back check texts the store remembers having written: forget them. */
static void on_rollback(void *arg)
{
    store_texts_forget(arg);
}

/*
 * The statement table's q, prepared on its first use and kept (NULL when it cannot be: the
 * connection's error code says why).  A command uses a few of the table's statements, and
 * preparing all of them at every open was a third of what opening cost (6 M instructions).
 */
sqlite3_stmt *store_stmt(struct arb_store *st, enum store_stmt q)
{
    if (!st->stmt[q] && sqlite3_prepare_v3(st->db, sql[q], -1, SQLITE_PREPARE_PERSISTENT,
                                           &st->stmt[q], NULL) != SQLITE_OK) {
        sqlite3_finalize(st->stmt[q]);
        st->stmt[q] = NULL;
    }
    return st->stmt[q];
}

int store_errcode(struct arb_store *st)
{
    int rc = sqlite3_errcode(st->db);

    return rc == SQLITE_OK ? SQLITE_ERROR : rc;
}

/* The transactions' statements at open: a rollback must not fail for want of its own. */
static enum arb_status prepare_all(struct arb_store *st, struct arb_err *err)
{
    for (int q = 0; q <= Q_ROLLBACK_TO; q++)
        if (!store_stmt(st, (enum store_stmt)q))
            return store_fail(st, store_errcode(st), err, "prepare statement %d", q);
    return ARB_OK;
}

/* Open name (a path or a URI) into st and make it ready; on failure st->db is closed. */
static enum arb_status open_db(struct arb_store *st, const char *name, int oflags,
                               struct arb_err *err)
{
    enum arb_status ret;
    int rc = sqlite3_open_v2(name, &st->db, oflags, NULL);

    if (rc != SQLITE_OK) {
        ret = arb_err_set(err, (rc & 0xff) == SQLITE_NOMEM ? ARB_ENOMEM : ARB_EDB,
                          "cannot open database '%s': %s", st->path,
                          st->db ? sqlite3_errmsg(st->db) : sqlite3_errstr(rc));
    } else {
        ret = configure(st, err);
        if (ret == ARB_OK)
            ret = store_check_and_migrate(st, err);
        if (ret == ARB_OK)
            ret = sync_normally(st, err);
        if (ret == ARB_OK)
            ret = prepare_all(st, err);
        if (ret == ARB_OK)
            sqlite3_rollback_hook(st->db, on_rollback, st);
    }
    if (ret != ARB_OK) {
        for (int q = 0; q < Q_N; q++) {
            sqlite3_finalize(st->stmt[q]);
            st->stmt[q] = NULL;
        }
        sqlite3_close_v2(st->db);
        st->db = NULL;
    }
    return ret;
}

/* 1 when path's -wal file exists and is not empty, or cannot be checked. */
static int wal_has_content(const char *path)
{
    size_t n = strlen(path);
    char *wal = malloc(n + 5);
    struct stat sb;
    int r;

    if (!wal)
        return 1;
    memcpy(wal, path, n);
    memcpy(wal + n, "-wal", 5);
    r = stat(wal, &sb);
    free(wal);
    if (r != 0)
        return errno != ENOENT;
    return sb.st_size != 0;
}

/* 1 when the file system holding path is mounted read-only (nobody can write there). */
static int on_read_only_fs(const char *path)
{
    struct statvfs vfs;

    return statvfs(path, &vfs) == 0 && (vfs.f_flag & ST_RDONLY);
}

/*
 * "file:PATH?immutable=1" with the bytes a URI path cannot hold percent-encoded;
 * an absolute path gets an empty authority ("file:///x"), so "//x" is not one.
 */
static char *immutable_uri(const char *path)
{
    static const char tail[] = "?immutable=1";
    size_t n = strlen(path), at;
    char *u = malloc(7 + 3 * n + sizeof(tail));

    if (!u)
        return NULL;
    at = (size_t)snprintf(u, 8, "%s", path[0] == '/' ? "file://" : "file:");
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if (*p == '%' || *p == '?' || *p == '#' || *p < 0x20 || *p >= 0x7f) {
            snprintf(u + at, 4, "%%%02X", *p);
            at += 3;
        } else {
            u[at++] = (char)*p;
        }
    }
    memcpy(u + at, tail, sizeof(tail));
    return u;
}

const char *arb_store_path(const struct arb_store *st)
{
    return st->path;
}

enum arb_status arb_store_open(const char *path, unsigned flags, struct arb_store **out,
                               struct arb_err *err)
{
    struct arb_store *st;
    enum arb_status ret;
    int oflags;

    if (!out || !path || !path[0])
        return arb_err_set(err, ARB_EUSAGE, "arb_store_open: no database path");
    *out = NULL;
    if (flags & ~(unsigned)(ARB_STORE_READONLY | ARB_STORE_STREAM | ARB_STORE_UNSHARED))
        return arb_err_set(err, ARB_EUSAGE, "arb_store_open: unknown flags 0x%x", flags);
    st = calloc(1, sizeof(*st));
    if (!st)
        return arb_err_set(err, ARB_ENOMEM, "out of memory opening '%s'", path);
    st->flags = flags;
    st->wal_pages = STORE_WAL_PAGES;
    st->lock_fd = -1;
    arb_buf_init(&st->scratch, 0);
    st->path = malloc(strlen(path) + 1);
    if (!st->path) {
        free(st);
        return arb_err_set(err, ARB_ENOMEM, "out of memory opening '%s'", path);
    }
    memcpy(st->path, path, strlen(path) + 1);
    /* No mutex of its own when the caller promises one thread at a time (ARB_STORE_UNSHARED):
     * SQLite's locking of every call was a twentieth of the writer's time.  Otherwise
     * serialized: a report looks up a case's output on its thread while the verdicts are
     * read ahead on another (store_ahead.c). */
    oflags = (flags & ARB_STORE_READONLY) ? SQLITE_OPEN_READONLY
                                          : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    oflags |= (flags & ARB_STORE_UNSHARED) ? SQLITE_OPEN_NOMUTEX : SQLITE_OPEN_FULLMUTEX;
    ret = open_db(st, path, oflags, err);
    if (ret == ARB_EDB && (flags & ARB_STORE_READONLY) && on_read_only_fs(path) &&
        !wal_has_content(path)) {
        /* A WAL database on read-only media: SQLite cannot create the -shm file a reader
         * needs.  Nobody can write there, and with no -wal content the file is the whole
         * database: opened as immutable (no locks, no -shm) it reads exactly what is there. */
        struct arb_err retry_err = {{0}};
        char *uri = immutable_uri(path);

        if (uri && open_db(st, uri, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, &retry_err) == ARB_OK)
            ret = ARB_OK;
        free(uri);
    }
    if (ret != ARB_OK) {
        arb_store_close(st);
        return ret;
    }
    *out = st;
    return ARB_OK;
}

void arb_store_close(struct arb_store *st)
{
    if (!st)
        return;
    store_group_close(st);
    store_ckpt_stop(st);
    for (int q = 0; q < Q_N; q++)
        sqlite3_finalize(st->stmt[q]);
    if (st->db && !sqlite3_get_autocommit(st->db))
        sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_close_v2(st->db);
    store_lock_close(st);
    store_ci_search_free(st->ci_search);
    store_texts_free(st);
    free(st->path);
    free(st);
}
