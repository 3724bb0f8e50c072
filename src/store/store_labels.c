/*
 * store_labels.c - human labels of a run's pairs (labels.h): storing one, after checking it
 * names a pair of the run as its blinding row does and deriving the system it chose;
 * reading them back; the annotators; the next pair an annotator has not labelled.  The
 * JSONL that `arbiter calibrate --run` reads is labels_jsonl.c's.
 *
 * The statements are prepared per call, like store_case_view.c's: a label is stored once
 * per click, and preparing after arb_store_scope's TEMP views exist makes the readers follow
 * a selection of cases.  Each is a fixed string with its values bound.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/json.h"
#include "arbiter/labels.h"
#include "arbiter/unicode.h"
#include "store_int.h"

#define ANNOTATOR_MAX 100   /* bytes */
#define CRITERION_MAX 200   /* bytes of a criterion's name */
#define NOTE_MAX      65536 /* bytes */
#define NOW           "strftime('%Y-%m-%dT%H:%M:%SZ', 'now')"

/* Which of the run, the case and the pair (in its blind order, or the other) exist. */
static const char sql_pair[] =
    "SELECT EXISTS (SELECT 1 FROM runs WHERE id = ?1), "
    "EXISTS (SELECT 1 FROM cases WHERE run = ?1 AND case_id = ?2), "
    "EXISTS (SELECT 1 FROM blinding WHERE run = ?1 AND case_id = ?2 AND system_a = ?3 "
    "AND system_b = ?4), "
    "EXISTS (SELECT 1 FROM blinding WHERE run = ?1 AND case_id = ?2 AND system_a = ?4 "
    "AND system_b = ?3)";

/* Labelling again replaces what was chosen and keeps when it was first chosen.  main.: a
 * selection's TEMP view named labels (store_scope.c) is for readers. */
static const char sql_put[] =
    "INSERT INTO main.labels (run, case_id, system_a, system_b, annotator, shown_first, choice, "
    "winner, criteria_json, note, created_at, updated_at) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, " NOW ", " NOW ") "
    "ON CONFLICT (run, case_id, system_a, system_b, annotator) DO UPDATE SET "
    "shown_first = excluded.shown_first, choice = excluded.choice, winner = excluded.winner, "
    "criteria_json = excluded.criteria_json, note = excluded.note, "
    "updated_at = excluded.updated_at";

/*
 * Pairs in the suite's order of pairs (the order run.c blinds them in), whichever system is
 * A: the positions of the systems of the labels l (LABEL_SYSTEMS) or blinding rows b.
 */
#define PAIR_ORDER "min(sa.position, sb.position), max(sa.position, sb.position)"
#define LABEL_SYSTEMS                                                                              \
    "LEFT JOIN systems sa ON sa.run = l.run AND sa.name = l.system_a "                             \
    "LEFT JOIN systems sb ON sb.run = l.run AND sb.name = l.system_b "
#define BLIND_SYSTEMS                                                                              \
    "LEFT JOIN systems sa ON sa.run = b.run AND sa.name = b.system_a "                             \
    "LEFT JOIN systems sb ON sb.run = b.run AND sb.name = b.system_b "

/* ?2 NULL: every case; ?3 NULL: every annotator.  Driven by the cases, in their order. */
static const char sql_labels[] =
    "SELECT l.run, l.case_id, l.system_a, l.system_b, l.annotator, l.shown_first, l.choice, "
    "l.criteria_json, l.note, l.winner, l.created_at, l.updated_at "
    "FROM cases c CROSS JOIN labels l ON l.run = c.run AND l.case_id = c.case_id " LABEL_SYSTEMS
    "WHERE c.run = ?1 AND (?2 IS NULL OR c.case_id = ?2) AND (?3 IS NULL OR l.annotator = ?3) "
    "ORDER BY c.seq, " PAIR_ORDER ", l.system_a, l.system_b, l.annotator";

static const char sql_annotators[] =
    "SELECT annotator, count(*) FROM labels WHERE run = ?1 GROUP BY annotator ORDER BY annotator";

/* The first pair after seq ?2 with both outputs that annotator ?3 has not labelled. */
static const char sql_next[] =
    "SELECT c.seq, c.case_id, b.system_a, b.system_b "
    "FROM cases c CROSS JOIN blinding b ON b.run = c.run AND b.case_id = c.case_id " BLIND_SYSTEMS
    "WHERE c.run = ?1 AND c.seq > ?2 "
    "AND EXISTS (SELECT 1 FROM outputs o WHERE o.run = b.run AND o.case_id = b.case_id "
    "AND o.system = b.system_a) "
    "AND EXISTS (SELECT 1 FROM outputs o WHERE o.run = b.run AND o.case_id = b.case_id "
    "AND o.system = b.system_b) "
    "AND NOT EXISTS (SELECT 1 FROM labels l WHERE l.run = b.run AND l.case_id = b.case_id "
    "AND l.system_a = b.system_a AND l.system_b = b.system_b AND l.annotator = ?3) "
    "ORDER BY c.seq, " PAIR_ORDER ", b.system_a, b.system_b LIMIT 1";

/* The pairs of one case, in the order of sql_next. */
static const char sql_pairs[] =
    "SELECT b.system_a, b.system_b FROM blinding b " BLIND_SYSTEMS
    "WHERE b.run = ?1 AND b.case_id = ?2 ORDER BY " PAIR_ORDER ", b.system_a, b.system_b";

static enum arb_status prepare(struct arb_store *st, const char *sql, sqlite3_stmt **s,
                               struct arb_err *err, const char *what)
{
    int rc = sqlite3_prepare_v2(st->db, sql, -1, s, NULL);

    if (rc == SQLITE_OK)
        return ARB_OK;
    sqlite3_finalize(*s);
    *s = NULL;
    return store_fail(st, rc, err, "prepare the query of %s", what);
}

/* ---- checking a label ------------------------------------------------------------------- */

/* Offset of the first control character (C0, DEL, C1) of valid UTF-8 s[0..n), or n. */
static size_t control_at(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;

    for (size_t i = 0; i < n; i++)
        if (u[i] < 0x20 || u[i] == 0x7f || (u[i] == 0xc2 && i + 1 < n && u[i + 1] < 0xa0))
            return i;
    return n;
}

static enum arb_status check_annotator(const char *a, struct arb_err *err)
{
    size_t n = a ? strlen(a) : 0, bad = 0;

    if (n == 0)
        return arb_err_set(err, ARB_EUSAGE,
                           "label: the annotator's name is empty (1 to %d "
                           "bytes of UTF-8)",
                           ANNOTATOR_MAX);
    if (n > ANNOTATOR_MAX)
        return arb_err_set(err, ARB_EUSAGE,
                           "label: the annotator's name is %zu bytes long, more than %d", n,
                           ANNOTATOR_MAX);
    if (!arb_utf8_valid(a, n, &bad))
        return arb_err_set(err, ARB_EUSAGE,
                           "label: the annotator's name is not valid UTF-8 (byte %zu)", bad + 1);
    bad = control_at(a, n);
    if (bad < n)
        return arb_err_set(err, ARB_EUSAGE,
                           "label: the annotator's name holds a control character (byte %zu)",
                           bad + 1);
    return ARB_OK;
}

static int is_choice(const char *c)
{
    return c && (strcmp(c, "A") == 0 || strcmp(c, "B") == 0 || strcmp(c, "tie") == 0);
}

/* One member of criteria: a name of 1 to CRITERION_MAX bytes, a choice as shown. */
static enum arb_status check_criterion(const cJSON *x, struct arb_err *err)
{
    size_t n = strlen(x->string);

    if (n == 0 || n > CRITERION_MAX || control_at(x->string, n) < n)
        return arb_err_set(err, ARB_EUSAGE,
                           "label: criteria: a criterion's name must be 1 to %d bytes without "
                           "control characters",
                           CRITERION_MAX);
    if (!cJSON_IsString(x) || !is_choice(x->valuestring))
        return arb_err_set(err, ARB_EUSAGE,
                           "label: criteria: '%.200s' must be \"A\", \"B\" or \"tie\" (as shown)",
                           x->string);
    return ARB_OK;
}

/*
 * criteria_json as stored: NULL for none or an empty object, else its RFC 8785 text (the
 * names sorted), in *canon (the caller frees).
 */
static enum arb_status check_criteria(const char *json, char **canon, struct arb_err *err)
{
    struct arb_err perr = {{0}};
    const cJSON *x;
    cJSON *o = NULL;
    enum arb_status rs = ARB_OK;

    *canon = NULL;
    if (!json)
        return ARB_OK;
    rs = arb_json_parse(json, strlen(json), ARB_JSON_NO_DUPLICATES, &o, &perr);
    if (rs == ARB_ENOMEM)
        return arb_err_set(err, rs, "out of memory");
    if (rs)
        return arb_err_set(err, ARB_EUSAGE, "label: criteria: %s", perr.msg);
    if (!cJSON_IsObject(o))
        rs = arb_err_set(err, ARB_EUSAGE,
                         "label: criteria: expected an object {\"NAME\": \"A\" | \"B\" | \"tie\"}");
    for (x = o->child; !rs && x; x = x->next)
        rs = check_criterion(x, err);
    if (!rs && o->child)
        rs = arb_jcs_string(o, canon, NULL, err);
    cJSON_Delete(o);
    return rs;
}

/* What can be checked without the database; *canon as check_criteria's. */
static enum arb_status check_label(const struct arb_label_row *l, char **canon, struct arb_err *err)
{
    size_t bad = 0;
    enum arb_status rs;

    *canon = NULL;
    if (!l->case_id || !l->system_a || !l->system_b)
        return arb_err_set(err, ARB_EUSAGE, "label: no case or pair given");
    rs = check_annotator(l->annotator, err);
    if (rs)
        return rs;
    if (!l->shown_first ||
        (strcmp(l->shown_first, l->system_a) != 0 && strcmp(l->shown_first, l->system_b) != 0))
        return arb_err_set(err, ARB_EUSAGE,
                           "label: the system shown first ('%.100s') is not '%.100s' or "
                           "'%.100s', the pair's",
                           l->shown_first ? l->shown_first : "", l->system_a, l->system_b);
    if (!is_choice(l->choice))
        return arb_err_set(err, ARB_EUSAGE,
                           "label: choice '%.20s' is not \"A\", \"B\" or \"tie\" (as shown)",
                           l->choice ? l->choice : "");
    if (l->note && strlen(l->note) > NOTE_MAX)
        return arb_err_set(err, ARB_EUSAGE, "label: the note is %zu bytes long, more than %d",
                           strlen(l->note), NOTE_MAX);
    if (l->note && !arb_utf8_valid(l->note, strlen(l->note), &bad))
        return arb_err_set(err, ARB_EUSAGE, "label: the note is not valid UTF-8 (byte %zu)",
                           bad + 1);
    return check_criteria(l->criteria_json, canon, err);
}

/* The case and the pair must be a blinding row of the run, in its order. */
static enum arb_status check_pair(struct arb_store *st, const struct arb_label_row *l,
                                  struct arb_err *err)
{
    sqlite3_stmt *s = NULL;
    enum arb_status rs = prepare(st, sql_pair, &s, err, "a label's pair");
    int rc, run = 0, kase = 0, pair = 0, swapped = 0;

    if (rs)
        return rs;
    rc = store_bind_int(SQLITE_OK, s, 1, l->run);
    rc = store_bind_text(rc, s, 2, l->case_id);
    rc = store_bind_text(rc, s, 3, l->system_a);
    rc = store_bind_text(rc, s, 4, l->system_b);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        run = sqlite3_column_int(s, 0);
        kase = sqlite3_column_int(s, 1);
        pair = sqlite3_column_int(s, 2);
        swapped = sqlite3_column_int(s, 3);
    } else {
        rs = store_fail(st, rc, err, "read a label's pair");
    }
    sqlite3_finalize(s);
    if (rs || pair)
        return rs;
    if (!run)
        return arb_err_set(err, ARB_EUSAGE, "label: no run %lld in '%s'", (long long)l->run,
                           st->path);
    if (!kase)
        return arb_err_set(err, ARB_EUSAGE, "label: case '%.200s' is not a case of run %lld",
                           l->case_id, (long long)l->run);
    if (swapped)
        return arb_err_set(err, ARB_EUSAGE,
                           "label: case '%.200s' of run %lld blinds the pair as '%.100s' vs "
                           "'%.100s', not '%.100s' vs '%.100s'",
                           l->case_id, (long long)l->run, l->system_b, l->system_a, l->system_a,
                           l->system_b);
    return arb_err_set(err, ARB_EUSAGE,
                       "label: '%.100s' vs '%.100s' is not a pair of case '%.200s' of run %lld",
                       l->system_a, l->system_b, l->case_id, (long long)l->run);
}

/* ---- storing ------------------------------------------------------------------------------ */

/* The system the choice means: A the one shown first, B the other, a tie "TIE". */
static const char *winner_of(const struct arb_label_row *l)
{
    const char *other = strcmp(l->shown_first, l->system_a) == 0 ? l->system_b : l->system_a;

    if (strcmp(l->choice, "tie") == 0)
        return "TIE";
    return strcmp(l->choice, "A") == 0 ? l->shown_first : other;
}

static enum arb_status put_row(struct arb_store *st, const struct arb_label_row *l,
                               const char *criteria, struct arb_err *err)
{
    sqlite3_stmt *s = NULL;
    enum arb_status rs = prepare(st, sql_put, &s, err, "storing a label");
    int rc;

    if (rs)
        return rs;
    rc = store_bind_int(SQLITE_OK, s, 1, l->run);
    rc = store_bind_text(rc, s, 2, l->case_id);
    rc = store_bind_text(rc, s, 3, l->system_a);
    rc = store_bind_text(rc, s, 4, l->system_b);
    rc = store_bind_text(rc, s, 5, l->annotator);
    rc = store_bind_text(rc, s, 6, l->shown_first);
    rc = store_bind_text(rc, s, 7, l->choice);
    rc = store_bind_text(rc, s, 8, winner_of(l));
    rc = store_bind_text(rc, s, 9, criteria);
    rc = store_bind_text(rc, s, 10, l->note && l->note[0] ? l->note : NULL);
    rs = store_exec(st, s, rc, err, "store a label");
    sqlite3_finalize(s);
    return rs;
}

enum arb_status arb_store_put_label(struct arb_store *st, const struct arb_label_row *l,
                                    struct arb_err *err)
{
    char *criteria = NULL;
    enum arb_status rs;

    if (!st || !l)
        return arb_err_set(err, ARB_EUSAGE, "arb_store_put_label: no store or label");
    rs = check_label(l, &criteria, err);
    if (!rs)
        rs = arb_store_begin(st, err);
    if (rs) {
        free(criteria);
        return rs;
    }
    rs = check_pair(st, l, err);
    if (!rs)
        rs = put_row(st, l, criteria, err);
    if (!rs)
        rs = arb_store_commit(st, err);
    if (rs)
        arb_store_rollback(st);
    free(criteria);
    return rs;
}

/* ---- reading ------------------------------------------------------------------------------ */

enum arb_status arb_store_labels(struct arb_store *st, int64_t run, const char *case_id,
                                 const char *annotator,
                                 int (*fn)(void *ctx, const struct arb_label_row *l), void *ctx,
                                 struct arb_err *err)
{
    sqlite3_stmt *s = NULL;
    enum arb_status rs = prepare(st, sql_labels, &s, err, "the labels");
    int rc;

    if (rs)
        return rs;
    rc = store_bind_int(SQLITE_OK, s, 1, run);
    rc = store_bind_text(rc, s, 2, case_id);
    rc = store_bind_text(rc, s, 3, annotator);
    while (rc == SQLITE_OK || rc == SQLITE_ROW) {
        struct arb_label_row l;

        rc = sqlite3_step(s);
        if (rc != SQLITE_ROW)
            break;
        l.run = sqlite3_column_int64(s, 0);
        l.case_id = store_col_text(s, 1);
        l.system_a = store_col_text(s, 2);
        l.system_b = store_col_text(s, 3);
        l.annotator = store_col_text(s, 4);
        l.shown_first = store_col_text(s, 5);
        l.choice = store_col_text(s, 6);
        l.criteria_json = store_col_text(s, 7);
        l.note = store_col_text(s, 8);
        l.winner = store_col_text(s, 9);
        l.created_at = store_col_text(s, 10);
        l.updated_at = store_col_text(s, 11);
        if (fn(ctx, &l)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    if (rc != SQLITE_DONE)
        rs = store_fail(st, rc, err, "read the labels");
    sqlite3_finalize(s);
    return rs;
}

enum arb_status arb_store_label_annotators(struct arb_store *st, int64_t run,
                                           int (*fn)(void *ctx, const char *annotator,
                                                     int64_t n_labels),
                                           void *ctx, struct arb_err *err)
{
    sqlite3_stmt *s = NULL;
    enum arb_status rs = prepare(st, sql_annotators, &s, err, "the annotators");
    int rc;

    if (rs)
        return rs;
    rc = store_bind_int(SQLITE_OK, s, 1, run);
    while (rc == SQLITE_OK || rc == SQLITE_ROW) {
        rc = sqlite3_step(s);
        if (rc != SQLITE_ROW)
            break;
        if (fn(ctx, store_col_text(s, 0), sqlite3_column_int64(s, 1))) {
            rc = SQLITE_DONE;
            break;
        }
    }
    if (rc != SQLITE_DONE)
        rs = store_fail(st, rc, err, "read the annotators");
    sqlite3_finalize(s);
    return rs;
}

/* A copy of column i ("" for NULL), or NULL when out of memory. */
static char *copy_col(sqlite3_stmt *s, int i)
{
    const char *t = store_col_text(s, i);
    size_t n = t ? (size_t)sqlite3_column_bytes(s, i) : 0;
    char *c = malloc(n + 1);

    if (c && n)
        memcpy(c, t, n);
    if (c)
        c[n] = '\0';
    return c;
}

void arb_label_next_release(struct arb_label_next *n)
{
    if (!n)
        return;
    free(n->case_id);
    free(n->system_a);
    free(n->system_b);
    n->case_id = n->system_a = n->system_b = NULL;
    n->found = 0;
}

enum arb_status arb_store_label_next(struct arb_store *st, int64_t run, const char *annotator,
                                     int64_t after_seq, struct arb_label_next *out,
                                     struct arb_err *err)
{
    sqlite3_stmt *s = NULL;
    enum arb_status rs;
    int rc;

    if (!out || !annotator)
        return arb_err_set(err, ARB_EUSAGE, "arb_store_label_next: no annotator or result");
    memset(out, 0, sizeof(*out));
    rs = prepare(st, sql_next, &s, err, "the next pair to label");
    if (rs)
        return rs;
    rc = store_bind_int(SQLITE_OK, s, 1, run);
    rc = store_bind_int(rc, s, 2, after_seq);
    rc = store_bind_text(rc, s, 3, annotator);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        out->seq = sqlite3_column_int64(s, 0);
        out->case_id = copy_col(s, 1);
        out->system_a = copy_col(s, 2);
        out->system_b = copy_col(s, 3);
        out->found = out->case_id && out->system_a && out->system_b;
        if (!out->found)
            rs = arb_err_set(err, ARB_ENOMEM, "out of memory");
    } else if (rc != SQLITE_DONE) {
        rs = store_fail(st, rc, err, "find the next pair to label");
    }
    sqlite3_finalize(s);
    if (!out->found)
        arb_label_next_release(out);
    return rs;
}

enum arb_status arb_store_label_pairs(struct arb_store *st, int64_t run, const char *case_id,
                                      int (*fn)(void *ctx, const char *system_a,
                                                const char *system_b),
                                      void *ctx, struct arb_err *err)
{
    sqlite3_stmt *s = NULL;
    enum arb_status rs = prepare(st, sql_pairs, &s, err, "a case's pairs");
    int rc;

    if (rs)
        return rs;
    rc = store_bind_int(SQLITE_OK, s, 1, run);
    rc = store_bind_text(rc, s, 2, case_id);
    while (rc == SQLITE_OK || rc == SQLITE_ROW) {
        rc = sqlite3_step(s);
        if (rc != SQLITE_ROW)
            break;
        if (fn(ctx, store_col_text(s, 0), store_col_text(s, 1))) {
            rc = SQLITE_DONE;
            break;
        }
    }
    if (rc != SQLITE_DONE)
        rs = store_fail(st, rc, err, "read a case's pairs");
    sqlite3_finalize(s);
    return rs;
}
