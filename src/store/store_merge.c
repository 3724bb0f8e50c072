/*
 * store_merge.c - one run made of the runs of shard databases (arbiter merge): store.h,
 * arb_store_merge.  Whether the shards belong together is the caller's to check
 * (src/run/merge.c); this file only copies.
 *
 * SQLite attaches at most 10 databases at once, and a database read inside a transaction
 * cannot be detached before it ends, so one transaction cannot read 1,024 shards in turn.
 * The copy is therefore made in two steps.  First each shard is attached in turn (ATTACH
 * with its file name bound) and its run's rows are copied, in a read transaction of the
 * shard, into a staging database (ATTACH of an empty name: a private temporary file that
 * SQLite deletes when it is detached or the connection closes, so nothing of it reaches the
 * database file and a kill leaves nothing behind), each row with its shard's number and its
 * case's seq.  Then one transaction creates the run and copies every staged row into it
 * with INSERT ... SELECT: a kill at any moment leaves the database without the run or with
 * all of it.  Detaching the staging database frees its space at once (dropping its tables
 * one by one took as long as filling them).
 *
 * The rows go in in the order the unsharded run would have written them, so their ids
 * (which some readers order by: problems, checks, judgments) follow the same order: per
 * case by seq, within a case as its shard wrote them; outputs by system in the order they
 * were loaded, then by seq.  Problems are in the order found while loading the outputs:
 * those of cases the suite lacks (and of no case) were found by every shard, in the same
 * order, and anchor the others, which fall between the anchors by system and case order
 * (the order found, as long as a system's outputs list its cases in the suite's order).
 *
 * The judge cache (judge_calls, keyed by request; judge_calls_rejected, the replies moved
 * aside) is shared by every run of a database, so every shard's entries come along under
 * the store's rule: a stored valid reply is never replaced; a key's entry that is not valid
 * gives way to a valid one (moved aside first, as Q_REJECT_JUDGE_CALL does); a reply that
 * does not end up under its key (a second answer to the same request from another shard)
 * is kept among the rejected rows, where a replay finds every reply a judgment used.
 *
 * Every statement is a fixed string with its values bound, prepared here (it runs once per
 * merge or once per shard) rather than in store.c's table.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "store_int.h"

#define NOW "strftime('%Y-%m-%dT%H:%M:%SZ', 'now')"

/* Each table's columns but id and run, in the order the staging tables keep them. */
#define CASE_COLS     "case_id, seq, prompt, expected_json, case_json"
#define OUTPUT_COLS   "case_id, system, trial, file, content, size, binary, sha256, meta_json"
#define BLINDING_COLS "case_id, system_a, system_b, hmac"
#define CHECK_COLS    "case_id, system, kind, item, verdict, score"
#define TEXT_COLS     "expected_at, observed_at, body"
#define VERDICT_COLS                                                                               \
    "case_id, system_a, system_b, status, winner, score_a, score_b, pass_rate_a, pass_rate_b, "    \
    "comparison_inline"
#define PROBLEM_COLS "kind, case_id, system, message"
#define TRIAL_COLS   "case_id, system, trial, passed, n_pass, n_fail, n_unresolved, records_json"
#define JUDGMENT_COLS                                                                              \
    "case_id, system_a, system_b, ord, sample, attempt, key, valid, cached, answer_json, error, "  \
    "fence, reply_sha256"
#define LABEL_COLS                                                                                 \
    "case_id, system_a, system_b, annotator, shown_first, choice, winner, criteria_json, note, "   \
    "created_at, updated_at"
#define CALL_TAIL                                                                                  \
    "response_format, stop_reason, normalization, error_type, error_code, error_message"
#define CALL_COLS                                                                                  \
    "key, provider, model, request_json, reply_json, status, http_status, attempts, latency_s, "   \
    "prompt_tokens, completion_tokens, error, created_at, cached_tokens, valid, "                  \
    "charged_usd, " CALL_TAIL
/* A judge_calls_rejected row but its rejected_at, from a judge_calls row (its status is ok). */
#define REJECTED_HEAD                                                                              \
    "key, provider, model, request_json, reply_json, http_status, attempts, latency_s, "           \
    "prompt_tokens, completion_tokens, cached_tokens, valid, charged_usd, error, created_at"
#define REJECTED_COLS REJECTED_HEAD ", rejected_at, " CALL_TAIL

/* A row's case order in the shard (x: the row), and its system's position. */
#define SEQ_OF "(SELECT c.seq FROM arb_shard.cases c WHERE c.run = x.run AND c.case_id = x.case_id)"
#define POS_OF                                                                                     \
    "(SELECT s.position FROM arb_shard.systems s WHERE s.run = x.run AND s.name = x.system)"

/*
 * The staging tables: k is the shard's number, seq its case's, id (or rid, the rowid of a
 * table without id) the row's in its shard; the primary key is the order the rows go in.
 * Untyped columns keep every value exactly as read.
 */
static const char *const stage_sql[] = {
    /* A staging database of nothing but copies: no journal, no syncing. */
    "PRAGMA arb_stage.journal_mode = OFF",
    "PRAGMA arb_stage.synchronous = OFF",
    "CREATE TABLE arb_stage.arb_merge_cases (k, " CASE_COLS ", PRIMARY KEY (seq, k))",
    "CREATE TABLE arb_stage.arb_merge_outputs (k, pos, seq, id, " OUTPUT_COLS
    ", PRIMARY KEY (pos, seq, k, id))",
    "CREATE TABLE arb_stage.arb_merge_blinding (k, seq, rid, " BLINDING_COLS
    ", PRIMARY KEY (seq, k, rid))",
    "CREATE TABLE arb_stage.arb_merge_checks (k, seq, id, record, " CHECK_COLS
    ", PRIMARY KEY (seq, k, id))",
    /* A check's text goes in as main's largest text id so far (?2) + rid. */
    "CREATE TABLE arb_stage.arb_merge_texts (rid INTEGER PRIMARY KEY, k, id, " TEXT_COLS
    ", UNIQUE (k, id))",
    /* A verdict's text goes in as main's largest verdict text id (vt, read in the merge's
     * transaction) + rid. */
    "CREATE TABLE arb_stage.arb_merge_vtexts (rid INTEGER PRIMARY KEY, k, id, body, "
    "UNIQUE (k, id))",
    "CREATE TABLE arb_stage.arb_merge_base (vt)",
    "CREATE TABLE arb_stage.arb_merge_verdicts (k, seq, id, comparison, " VERDICT_COLS
    ", PRIMARY KEY (seq, k, id))",
    "CREATE TABLE arb_stage.arb_merge_problems (k, seg, own, pos, seq, id, " PROBLEM_COLS
    ", PRIMARY KEY (seg, own, pos, seq, k, id))",
    "CREATE TABLE arb_stage.arb_merge_trials (k, seq, rid, " TRIAL_COLS
    ", PRIMARY KEY (seq, k, rid))",
    "CREATE TABLE arb_stage.arb_merge_judgments (k, seq, id, " JUDGMENT_COLS
    ", PRIMARY KEY (seq, k, id))",
    "CREATE TABLE arb_stage.arb_merge_labels (k, seq, id, " LABEL_COLS
    ", PRIMARY KEY (seq, k, id))",
    "CREATE TABLE arb_stage.arb_merge_calls (k, " CALL_COLS ")",
    "CREATE INDEX arb_stage.arb_merge_calls_key ON arb_merge_calls (key)",
    "CREATE TABLE arb_stage.arb_merge_rejected (k, id, " REJECTED_COLS ")",
    /* Per key, the staged entry that goes under it: a valid reply first, then shard order. */
    "CREATE TABLE arb_stage.arb_merge_best (key PRIMARY KEY, rid)",
};

/* An empty file name: a private temporary database, deleted when detached. */
static const char sql_stage_attach[] = "ATTACH ?1 AS arb_stage";
static const char sql_stage_detach[] = "DETACH arb_stage";
static const char sql_attach[] = "ATTACH ?1 AS arb_shard";
static const char sql_detach[] = "DETACH arb_shard";
/* A transaction of its own: one snapshot of the shard (only the staging database is written). */
static const char sql_read_begin[] = "BEGIN";
static const char sql_read_end[] = "COMMIT";
static const char sql_read_undo[] = "ROLLBACK";

/* One shard's rows into the staging tables: ?1 its run, ?2 its number. */
static const char *const copy_sql[] = {
    "INSERT INTO arb_stage.arb_merge_cases (k, " CASE_COLS ") SELECT ?2, " CASE_COLS
    " FROM arb_shard.cases WHERE run = ?1",
    "INSERT INTO arb_stage.arb_merge_outputs (k, pos, seq, id, " OUTPUT_COLS ") SELECT ?2, " POS_OF
    ", " SEQ_OF ", id, " OUTPUT_COLS " FROM arb_shard.outputs x WHERE run = ?1",
    "INSERT INTO arb_stage.arb_merge_blinding (k, seq, rid, " BLINDING_COLS ") SELECT ?2, " SEQ_OF
    ", rowid, " BLINDING_COLS " FROM arb_shard.blinding x WHERE run = ?1",
    "INSERT INTO arb_stage.arb_merge_checks (k, seq, id, record, " CHECK_COLS ") SELECT ?2, " SEQ_OF
    ", id, record, " CHECK_COLS " FROM arb_shard.checks x WHERE run = ?1",
    "INSERT INTO arb_stage.arb_merge_texts (k, id, " TEXT_COLS ") SELECT ?2, id, " TEXT_COLS
    " FROM arb_shard.check_texts WHERE run = ?1",
    "INSERT INTO arb_stage.arb_merge_vtexts (k, id, body) SELECT ?2, id, body "
    "FROM arb_shard.verdict_texts WHERE run = ?1",
    "INSERT INTO arb_stage.arb_merge_verdicts (k, seq, id, comparison, " VERDICT_COLS
    ") SELECT ?2, " SEQ_OF ", id, comparison, " VERDICT_COLS " FROM arb_shard.verdicts x "
    "WHERE run = ?1",
    /* seg: how many problems of no case of this shard (found by every shard) came before,
     * this one included; own: the problem is of a case of this shard. */
    "INSERT INTO arb_stage.arb_merge_problems (k, seg, own, pos, seq, id, " PROBLEM_COLS
    ") SELECT ?2, sum(seq IS NULL) OVER (ORDER BY id ROWS UNBOUNDED PRECEDING), seq IS NOT NULL, "
    "pos, seq, id, " PROBLEM_COLS " FROM (SELECT " SEQ_OF " AS seq, " POS_OF
    " AS pos, id, " PROBLEM_COLS " FROM arb_shard.problems x WHERE run = ?1)",
    "INSERT INTO arb_stage.arb_merge_trials (k, seq, rid, " TRIAL_COLS ") SELECT ?2, " SEQ_OF
    ", rowid, " TRIAL_COLS " FROM arb_shard.trials x WHERE run = ?1",
    "INSERT INTO arb_stage.arb_merge_judgments (k, seq, id, " JUDGMENT_COLS ") SELECT ?2, " SEQ_OF
    ", id, " JUDGMENT_COLS " FROM arb_shard.judgments x WHERE run = ?1",
    "INSERT INTO arb_stage.arb_merge_labels (k, seq, id, " LABEL_COLS ") SELECT ?2, " SEQ_OF
    ", id, " LABEL_COLS " FROM arb_shard.labels x WHERE run = ?1",
    /* The cache is the database's, not the run's: all of it. */
    "INSERT INTO arb_stage.arb_merge_calls (k, " CALL_COLS ") SELECT ?2, " CALL_COLS
    " FROM arb_shard.judge_calls",
    "INSERT INTO arb_stage.arb_merge_rejected (k, id, " REJECTED_COLS
    ") SELECT ?2, id, " REJECTED_COLS " FROM arb_shard.judge_calls_rejected",
};

static const char sql_best[] =
    "INSERT INTO arb_stage.arb_merge_best (key, rid) SELECT key, rid FROM (SELECT key, rowid AS "
    "rid, "
    "row_number() OVER (PARTITION BY key ORDER BY (status = 'ok' AND valid = 1) DESC, k) AS r "
    "FROM arb_stage.arb_merge_calls) WHERE r = 1";

/* Into the new run ?1, inside the transaction, in the order of the unsharded run. */
static const char *const insert_sql[] = {
    "INSERT INTO main.cases (run, " CASE_COLS ") SELECT ?1, " CASE_COLS
    " FROM arb_stage.arb_merge_cases ORDER BY seq, k",
    "INSERT INTO main.outputs (run, " OUTPUT_COLS ") SELECT ?1, " OUTPUT_COLS
    " FROM arb_stage.arb_merge_outputs ORDER BY pos, seq, k, id",
    "INSERT INTO main.blinding (run, " BLINDING_COLS ") SELECT ?1, " BLINDING_COLS
    " FROM arb_stage.arb_merge_blinding ORDER BY seq, k, rid",
    "INSERT INTO main.check_texts (id, run, " TEXT_COLS ") SELECT ?2 + rid, ?1, " TEXT_COLS
    " FROM arb_stage.arb_merge_texts ORDER BY rid",
    "INSERT INTO main.checks (run, record, " CHECK_COLS ") SELECT ?1, ?2 + (SELECT t.rid FROM "
    "arb_stage.arb_merge_texts t WHERE t.k = x.k AND t.id = x.record), " CHECK_COLS
    " FROM arb_stage.arb_merge_checks x ORDER BY seq, k, id",
    "INSERT INTO arb_stage.arb_merge_base (vt) SELECT coalesce(max(id), 0) FROM "
    "main.verdict_texts",
    "INSERT INTO main.verdict_texts (id, run, body) SELECT (SELECT b.vt FROM "
    "arb_stage.arb_merge_base b) + rid, ?1, body FROM arb_stage.arb_merge_vtexts ORDER BY rid",
    "INSERT INTO main.verdicts (run, comparison, " VERDICT_COLS ") SELECT ?1, (SELECT b.vt FROM "
    "arb_stage.arb_merge_base b) + (SELECT t.rid FROM arb_stage.arb_merge_vtexts t WHERE "
    "t.k = x.k AND t.id = x.comparison), " VERDICT_COLS
    " FROM arb_stage.arb_merge_verdicts x ORDER BY seq, k, id",
    /* A problem every shard found goes in once, where the first shard had it. */
    "INSERT INTO main.problems (run, " PROBLEM_COLS ") SELECT ?1, " PROBLEM_COLS
    " FROM arb_stage.arb_merge_problems WHERE true ORDER BY seg, own, pos, seq, k, id "
    "ON CONFLICT DO NOTHING",
    "INSERT INTO main.trials (run, " TRIAL_COLS ") SELECT ?1, " TRIAL_COLS
    " FROM arb_stage.arb_merge_trials ORDER BY seq, k, rid",
    "INSERT INTO main.judgments (run, " JUDGMENT_COLS ") SELECT ?1, " JUDGMENT_COLS
    " FROM arb_stage.arb_merge_judgments ORDER BY seq, k, id",
    "INSERT INTO main.labels (run, " LABEL_COLS ") SELECT ?1, " LABEL_COLS
    " FROM arb_stage.arb_merge_labels ORDER BY seq, k, id",
    /* The judge cache.  The shards' rejected replies, once each. */
    "INSERT INTO main.judge_calls_rejected (" REJECTED_COLS ") SELECT " REJECTED_COLS
    " FROM arb_stage.arb_merge_rejected r WHERE rowid IN (SELECT min(rowid) FROM "
    "arb_stage.arb_merge_rejected GROUP BY key, reply_json, created_at, rejected_at) AND NOT "
    "EXISTS "
    "(SELECT 1 FROM main.judge_calls_rejected x WHERE x.key = r.key AND x.reply_json IS "
    "r.reply_json AND x.created_at = r.created_at AND x.rejected_at = r.rejected_at) "
    "ORDER BY k, id",
    /* A stored reply not known to be valid, about to give way to a valid one: moved aside. */
    "INSERT INTO main.judge_calls_rejected (" REJECTED_COLS ") SELECT " REJECTED_HEAD ", " NOW
    ", " CALL_TAIL " FROM main.judge_calls WHERE status = 'ok' AND valid IS "
    "NOT 1 AND key IN (SELECT b.key FROM arb_stage.arb_merge_best b JOIN arb_stage.arb_merge_calls "
    "m ON "
    "m.rowid = b.rid WHERE m.status = 'ok' AND m.valid = 1)",
    "INSERT INTO main.judge_calls (" CALL_COLS ") SELECT " CALL_COLS
    " FROM arb_stage.arb_merge_calls WHERE rowid IN (SELECT rid FROM "
    "arb_stage.arb_merge_best) ORDER BY k, rowid ON CONFLICT (key) DO UPDATE SET "
    "provider = excluded.provider, model = excluded.model, "
    "request_json = excluded.request_json, reply_json = excluded.reply_json, "
    "status = excluded.status, http_status = excluded.http_status, "
    "attempts = excluded.attempts, latency_s = excluded.latency_s, "
    "prompt_tokens = excluded.prompt_tokens, completion_tokens = excluded.completion_tokens, "
    "error = excluded.error, created_at = excluded.created_at, "
    "cached_tokens = excluded.cached_tokens, valid = excluded.valid, "
    "charged_usd = excluded.charged_usd, response_format = excluded.response_format, "
    "stop_reason = excluded.stop_reason, normalization = excluded.normalization, "
    "error_type = excluded.error_type, error_code = excluded.error_code, "
    "error_message = excluded.error_message "
    "WHERE (judge_calls.status = 'failed' OR judge_calls.valid IS NOT 1) "
    "AND excluded.status = 'ok' AND excluded.valid = 1",
    /* A reply no key holds now (another shard's answer to the same request): kept aside, so
     * the judgments made from it still find it. */
    "INSERT INTO main.judge_calls_rejected (" REJECTED_COLS ") SELECT " REJECTED_HEAD ", " NOW
    ", " CALL_TAIL " FROM arb_stage.arb_merge_calls m WHERE status = 'ok' "
    "AND rowid IN (SELECT min(rowid) FROM arb_stage.arb_merge_calls GROUP BY key, reply_json, "
    "created_at) AND reply_json IS NOT (SELECT j.reply_json FROM main.judge_calls j "
    "WHERE j.key = m.key) AND NOT EXISTS (SELECT 1 FROM main.judge_calls_rejected x "
    "WHERE x.key = m.key AND x.reply_json IS m.reply_json AND x.created_at = m.created_at) "
    "ORDER BY k, rowid",
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Prepare sql, bind ?1 (text t when not NULL, else the integer a) and ?2 (the integer b) as
 * far as the statement has them (a statement of ?2 alone has ?1 too, unused), step it to
 * completion and finalize it.
 */
static enum arb_status exec_bound(struct arb_store *st, const char *sql, const char *t, int64_t a,
                                  int64_t b, const char *what, struct arb_err *err)
{
    sqlite3_stmt *s = NULL;
    int rc = sqlite3_prepare_v2(st->db, sql, -1, &s, NULL), n;
    enum arb_status ret;

    if (rc != SQLITE_OK) {
        ret = store_fail(st, rc, err, "prepare to %s", what);
        sqlite3_finalize(s);
        return ret;
    }
    n = sqlite3_bind_parameter_count(s);
    if (n >= 1)
        rc = t ? store_bind_text(rc, s, 1, t) : store_bind_int(rc, s, 1, a);
    if (n >= 2)
        rc = store_bind_int(rc, s, 2, b);
    ret = store_exec(st, s, rc, err, what);
    sqlite3_finalize(s);
    return ret;
}

static enum arb_status exec_all(struct arb_store *st, const char *const *sql, size_t n, int64_t a,
                                int64_t b, const char *what, struct arb_err *err)
{
    enum arb_status ret = ARB_OK;

    for (size_t i = 0; !ret && i < n; i++)
        ret = exec_bound(st, sql[i], NULL, a, b, what, err);
    return ret;
}

/* Shard k's rows into the staging tables, in one read transaction of the shard. */
static enum arb_status stage_shard(struct arb_store *st, const struct arb_store_shard *sh, size_t k,
                                   struct arb_err *err)
{
    char what[300];
    enum arb_status ret, detached;

    snprintf(what, sizeof(what), "attach the shard '%s'", sh->path);
    ret = exec_bound(st, sql_attach, sh->path, 0, 0, what, err);
    if (ret)
        return ret;
    snprintf(what, sizeof(what), "copy the records of the shard '%s'", sh->path);
    ret = exec_bound(st, sql_read_begin, NULL, 0, 0, what, err);
    if (!ret) {
        ret = exec_all(st, copy_sql, COUNT(copy_sql), sh->run, (int64_t)k, what, err);
        if (!ret)
            ret = exec_bound(st, sql_read_end, NULL, 0, 0, what, err);
        else
            exec_bound(st, sql_read_undo, NULL, 0, 0, "end a read", NULL);
    }
    /* Detached whatever happened: the next merge on this connection attaches again. */
    detached = exec_bound(st, sql_detach, NULL, 0, 0, "detach a shard", ret ? NULL : err);
    return ret ? ret : detached;
}

/* The largest id of main.check_texts, 0 when it has none. */
static enum arb_status last_text_id(struct arb_store *st, int64_t *last, struct arb_err *err)
{
    sqlite3_stmt *s = NULL;
    int rc = sqlite3_prepare_v2(st->db, "SELECT coalesce(max(id), 0) FROM main.check_texts", -1, &s,
                                NULL);

    if (rc == SQLITE_OK)
        rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        *last = sqlite3_column_int64(s, 0);
        rc = SQLITE_DONE;
    }
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? ARB_OK : store_fail(st, rc, err, "read the check texts");
}

/* The new run and every staged row, in one transaction. */
static enum arb_status insert_run(struct arb_store *st, const struct arb_run_row *row, int64_t *run,
                                  struct arb_err *err)
{
    int64_t id = 0, last = 0;
    enum arb_status ret = arb_store_begin(st, err);

    if (ret)
        return ret;
    ret = arb_store_run_create(st, row, &id, err);
    if (!ret)
        ret = last_text_id(st, &last, err);
    if (!ret)
        ret =
            exec_all(st, insert_sql, COUNT(insert_sql), id, last, "copy the shards' records", err);
    if (!ret)
        ret = arb_store_run_set_status(st, id, "complete", err);
    if (!ret)
        ret = arb_store_commit(st, err);
    if (ret) {
        arb_store_rollback(st);
        return ret;
    }
    *run = id;
    return ARB_OK;
}

enum arb_status arb_store_merge(struct arb_store *st, const struct arb_run_row *row,
                                const struct arb_store_shard *shards, size_t n, int64_t *run,
                                struct arb_err *err)
{
    enum arb_status ret, detached;

    *run = 0;
    if (st->flags & ARB_STORE_READONLY)
        return arb_err_set(err, ARB_EUSAGE, "cannot merge into '%s': opened read-only", st->path);
    if (!sqlite3_get_autocommit(st->db))
        return arb_err_set(err, ARB_EUSAGE, "cannot merge into '%s' inside a transaction",
                           st->path);
    ret = exec_bound(st, sql_stage_attach, "", 0, 0, "create the merge's staging database", err);
    if (ret)
        return ret;
    ret = exec_all(st, stage_sql, COUNT(stage_sql), 0, 0, "set up the merge", err);
    for (size_t i = 0; !ret && i < n; i++)
        ret = stage_shard(st, &shards[i], i + 1, err);
    if (!ret)
        ret = exec_bound(st, sql_best, NULL, 0, 0, "choose the judge cache's entries", err);
    if (!ret)
        ret = insert_run(st, row, run, err);
    /* The staging database goes, whatever happened: its file with it, at once. */
    detached = exec_bound(st, sql_stage_detach, NULL, 0, 0, "drop the merge's staging database",
                          ret ? NULL : err);
    return ret ? ret : detached;
}
