/*
 * case_index_query.c - pages of the case index and stepping through it (case_index.h:
 * arb_case_index_query, arb_case_index_neighbor); the index itself is case_index.c's, the
 * search's hits case_index_search.c's.
 *
 * Every order is a key with NULLs (unknown) and the row's reading order n as tie-break:
 * the rows with a known key come first, by (key, n) ascending or, descending, (key, n)
 * descending; then the rows without one, in reading order.  Each sort but reading order has
 * an index (run, key, n, and what the filters read), so both parts are ranges of one index
 * read forwards or backwards: a page is an OFFSET into them that never reads a skipped row
 * from the table, and the row after or before a given row is a seek on the row value
 * (key, n), never a scan from the start.  SQLite seeks on a row value only over index
 * columns (not the rowid), hence n, the rowid again as a column.  Reading order is the
 * table's own, a range of rowids.
 *
 * A count of the matching rows comes with every page: from the run's tally without a
 * filter, else one pass over the run's rows (about 10 ms for 100,000).
 *
 * The statements are fixed strings, one set per sort, prepared per call: their TEMP tables
 * may not exist when the store opens, and preparing is a small part of a page's time (a
 * first page of 100,000 cases, with its count and its setup, takes 0.06 ms).
 */
#include <string.h>

#include "case_index_int.h"

/* The statements of one sort (sort_sql[sort][kind]). */
enum kind {
    KNOWN_ASC,   /* known keys, ascending: LIMIT ?6 OFFSET ?7 */
    KNOWN_DESC,  /* known keys, descending */
    NULL_ASC,    /* unknown keys, in reading order */
    NULL_DESC,   /* unknown keys, in reverse reading order */
    AFTER,       /* known keys with (key, n) > (?8, ?9), ascending */
    BEFORE,      /* known keys with (key, n) < (?8, ?9), descending */
    NULL_AFTER,  /* unknown keys with n > ?9, in reading order */
    NULL_BEFORE, /* unknown keys with n < ?9, in reverse reading order */
    FIRST_ASC,   /* the first row of case ?10 in the ascending order */
    FIRST_DESC,  /* the same in the descending order */
    N_KINDS
};

/* Columns of every statement: the entry's, then the sort key (column 13). */
#define COLS                                                                                       \
    "SELECT n, seq, case_id, system_a, system_b, status, winner, judge_winner, score_a,"           \
    " score_b, pass_rate_a, pass_rate_b, flags, "
#define COL_KEY 13

/* ?1 run, ?2 status ('pending': none yet), ?3 winner ('none'), ?4 flags, ?5 searching (the
 * search's hits answer this run and text: case_index_search.c). */
#define FILTER                                                                                     \
    " AND (?2 IS NULL OR status = ?2 OR (?2 = 'pending' AND status IS NULL))"                      \
    " AND (?3 IS NULL OR winner = ?3 OR (?3 = 'none' AND winner IS NULL))"                         \
    " AND flags & ?4 = ?4 AND (?5 = 0 OR arb_ci_hit(seq))"
#define PAGE " LIMIT ?6 OFFSET ?7"

/*
 * Reading order is the rowid: its rows are the table's, from the run's first rowid to its
 * last, and a row after another is a rowid range.
 */
#define SEQ_WHERE                                                                                  \
    " FROM temp.arb_ci NOT INDEXED WHERE rid BETWEEN"                                              \
    " (SELECT lo FROM temp.arb_ci_runs WHERE run = ?1)"                                            \
    " AND (SELECT hi FROM temp.arb_ci_runs WHERE run = ?1) AND run = ?1" FILTER
#define SEQ_FIRST COLS "rid FROM temp.arb_ci INDEXED BY arb_ci_case WHERE run = ?1" FILTER

/*
 * The other sorts read their index (run, key, n, and the columns FILTER reads), so rows
 * skipped by an OFFSET or a filter are never read from the table.
 */
#define WHERE(ix) " FROM temp.arb_ci INDEXED BY " ix " WHERE run = ?1" FILTER
#define SORT(k, ix, unknown)                                                                       \
    {                                                                                              \
        COLS k WHERE(ix) " AND " k " IS NOT NULL ORDER BY " k ", n" PAGE,                          \
            COLS k WHERE(ix) " AND " k " IS NOT NULL ORDER BY " k " DESC, n DESC" PAGE,            \
            COLS k WHERE(ix) unknown " ORDER BY n" PAGE,                                           \
            COLS k WHERE(ix) unknown " ORDER BY n DESC" PAGE,                                      \
            COLS k WHERE(ix) " AND (" k ", n) > (?8, ?9) ORDER BY " k ", n" PAGE,                  \
            COLS k WHERE(ix) " AND (" k ", n) < (?8, ?9) ORDER BY " k " DESC, n DESC" PAGE,        \
            COLS k WHERE(ix) unknown " AND n > ?9 ORDER BY n" PAGE,                                \
            COLS k WHERE(ix) unknown " AND n < ?9 ORDER BY n DESC" PAGE,                           \
            COLS k WHERE("arb_ci_case") " AND case_id = ?10 ORDER BY " k " IS NULL, " k ", n"      \
                                        " LIMIT 1",                                                \
            COLS k WHERE("arb_ci_case") " AND case_id = ?10 ORDER BY " k " IS NULL, " k " DESC,"   \
                                        " CASE WHEN " k " IS NULL THEN n ELSE -n END LIMIT 1",     \
    }
/* The unknown part of a sort: its key is NULL; none for a key that never is. */
#define IS_NULL(k) " AND " k " IS NULL"
#define NEVER      " AND 0"

/* Reading order has no unknown key either. */
static const char *const sort_sql[][N_KINDS] = {
    [ARB_CASE_SORT_SEQ] =
        {
            COLS "rid" SEQ_WHERE " ORDER BY rid" PAGE,
            COLS "rid" SEQ_WHERE " ORDER BY rid DESC" PAGE,
            COLS "rid" SEQ_WHERE " AND 0" PAGE,
            COLS "rid" SEQ_WHERE " AND 0" PAGE,
            COLS "rid" SEQ_WHERE " AND rid > ?9 ORDER BY rid" PAGE,
            COLS "rid" SEQ_WHERE " AND rid < ?9 ORDER BY rid DESC" PAGE,
            COLS "rid" SEQ_WHERE " AND 0" PAGE,
            COLS "rid" SEQ_WHERE " AND 0" PAGE,
            SEQ_FIRST " AND case_id = ?10 ORDER BY rid LIMIT 1",
            SEQ_FIRST " AND case_id = ?10 ORDER BY rid LIMIT 1",
        },
    [ARB_CASE_SORT_ID] = SORT("case_id", "arb_ci_case", NEVER),
    [ARB_CASE_SORT_STATUS] = SORT("status", "arb_ci_status", IS_NULL("status")),
    [ARB_CASE_SORT_WINNER] = SORT("winner", "arb_ci_winner", IS_NULL("winner")),
    [ARB_CASE_SORT_MARGIN] = SORT("margin", "arb_ci_margin", IS_NULL("margin")),
};
#define N_SORTS (sizeof(sort_sql) / sizeof(sort_sql[0]))

/* Made the first time a sort is asked for (reading order and the id's come with the index). */
static const char *const sort_index_sql[N_SORTS] = {
    [ARB_CASE_SORT_STATUS] = "CREATE INDEX IF NOT EXISTS temp.arb_ci_status"
                             " ON arb_ci (run, status, n, flags, winner, seq)",
    [ARB_CASE_SORT_WINNER] = "CREATE INDEX IF NOT EXISTS temp.arb_ci_winner"
                             " ON arb_ci (run, winner, n, flags, status, seq)",
    [ARB_CASE_SORT_MARGIN] = "CREATE INDEX IF NOT EXISTS temp.arb_ci_margin"
                             " ON arb_ci (run, margin, n, flags, status, winner, seq)",
};

/*
 * How many rows match, and how many of them have each sort's key (all of them for seq and
 * id); without a filter, the run's tally says it.
 */
static const char sql_count[] =
    "SELECT count(*), count(*), count(*), count(status), count(winner), count(margin)" SEQ_WHERE;
static const char sql_tally[] =
    "SELECT rows, rows, rows, with_status, with_winner, with_margin FROM temp.arb_ci_runs"
    " WHERE run = ?1";

/* Where a statement starts: its page, and the row it is relative to. */
struct at {
    int64_t limit, offset;
    sqlite3_value *key;  /* ?8, or NULL */
    int64_t n;           /* ?9 */
    const char *case_id; /* ?10, or NULL */
};

static const char *nonempty(const char *s)
{
    return s && s[0] ? s : NULL;
}

static int bind_at(sqlite3_stmt *s, const struct arb_case_query *q, const struct at *at)
{
    int n = sqlite3_bind_parameter_count(s);
    int rc = store_bind_int(SQLITE_OK, s, 1, q->run);

    rc = store_bind_text(rc, s, 2, nonempty(q->status));
    rc = store_bind_text(rc, s, 3, nonempty(q->winner));
    rc = store_bind_int(rc, s, 4, (int64_t)q->flags);
    rc = store_bind_int(rc, s, 5, nonempty(q->search) != NULL);
    if (n >= 7) {
        rc = store_bind_int(rc, s, 6, at->limit);
        rc = store_bind_int(rc, s, 7, at->offset);
    }
    if (n >= 9) {
        if (rc == SQLITE_OK && at->key)
            rc = sqlite3_bind_value(s, 8, at->key);
        rc = store_bind_int(rc, s, 9, at->n);
    }
    if (n >= 10)
        rc = store_bind_text(rc, s, 10, at->case_id);
    return rc;
}

/* Prepare and bind statement kind of q's sort. */
static enum arb_status open_kind(struct arb_store *st, const struct arb_case_query *q,
                                 enum kind kind, const struct at *at, sqlite3_stmt **s,
                                 struct arb_err *err)
{
    enum arb_status ret = store_ci_prepare(st, sort_sql[q->sort][kind], s, "page the cases", err);
    int rc;

    if (ret)
        return ret;
    rc = bind_at(*s, q, at);
    if (rc == SQLITE_OK)
        return ARB_OK;
    ret = store_fail(st, rc, err, "page the cases");
    sqlite3_finalize(*s);
    *s = NULL;
    return ret;
}

static void entry_of(sqlite3_stmt *s, struct arb_case_entry *e)
{
    e->seq = sqlite3_column_int64(s, 1);
    e->case_id = store_col_text(s, 2);
    e->system_a = store_col_text(s, 3);
    e->system_b = store_col_text(s, 4);
    e->status = store_col_text(s, 5);
    e->winner = store_col_text(s, 6);
    e->judge_winner = store_col_text(s, 7);
    e->score_a = store_col_real(s, 8);
    e->score_b = store_col_real(s, 9);
    e->pass_rate_a = store_col_real(s, 10);
    e->pass_rate_b = store_col_real(s, 11);
    e->flags = (unsigned)sqlite3_column_int64(s, 12);
}

static enum arb_status check_query(const struct arb_case_query *q, struct arb_err *err)
{
    if (!q)
        return arb_err_set(err, ARB_EUSAGE, "case index: no query");
    if ((unsigned)q->sort >= N_SORTS)
        return arb_err_set(err, ARB_EUSAGE, "case index: unknown sort %d", (int)q->sort);
    return ARB_OK;
}

/* The index of run, its search hits and the index of q's sort, made when missing. */
static enum arb_status prepare_query(struct arb_store *st, const struct arb_case_query *q,
                                     struct arb_err *err)
{
    enum arb_status ret = store_ci_build(st, q->run, err);
    const char *ix = sort_index_sql[q->sort];

    if (!ret && nonempty(q->search))
        ret = store_ci_search(st, q->run, q->search, err);
    if (!ret && ix) {
        int rc = sqlite3_exec(st->db, ix, NULL, NULL, NULL);

        if (rc != SQLITE_OK)
            ret = store_fail(st, rc, err, "index the cases for sorting");
    }
    return ret;
}

/* How many rows match q in all, and how many have a known key of its sort. */
static enum arb_status count(struct arb_store *st, const struct arb_case_query *q, int64_t *all,
                             int64_t *known, struct arb_err *err)
{
    sqlite3_stmt *s = NULL;
    struct at at = {0, 0, NULL, 0, NULL};
    int filtered = nonempty(q->status) || nonempty(q->winner) || q->flags || nonempty(q->search);
    enum arb_status ret =
        store_ci_prepare(st, filtered ? sql_count : sql_tally, &s, "count the cases", err);
    int rc;

    if (ret)
        return ret;
    rc = filtered ? bind_at(s, q, &at) : store_bind_int(SQLITE_OK, s, 1, q->run);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(s);
    *all = *known = 0;
    if (rc == SQLITE_ROW) {
        *all = sqlite3_column_int64(s, 0);
        *known = sqlite3_column_int64(s, 1 + (int)q->sort);
    } else if (rc != SQLITE_DONE) {
        ret = store_fail(st, rc, err, "count the cases");
    }
    sqlite3_finalize(s);
    return ret;
}

/* Hand fn each row of statement kind at at; *rows counts them, *stop says fn stopped. */
static enum arb_status page_part(struct arb_store *st, const struct arb_case_query *q,
                                 enum kind kind, const struct at *at,
                                 int (*fn)(void *ctx, const struct arb_case_entry *e), void *ctx,
                                 int64_t *rows, int *stop, struct arb_err *err)
{
    sqlite3_stmt *s = NULL;
    enum arb_status ret = open_kind(st, q, kind, at, &s, err);
    int rc = SQLITE_OK;

    while (!ret && (rc = sqlite3_step(s)) == SQLITE_ROW) {
        struct arb_case_entry e;

        entry_of(s, &e);
        ++*rows;
        if (fn(ctx, &e)) {
            *stop = 1;
            break;
        }
    }
    if (!ret && rc != SQLITE_ROW && rc != SQLITE_DONE)
        ret = store_fail(st, rc, err, "page the cases");
    sqlite3_finalize(s);
    return ret;
}

enum arb_status arb_case_index_query(struct arb_store *st, const struct arb_case_query *q,
                                     int (*fn)(void *ctx, const struct arb_case_entry *e),
                                     void *ctx, int64_t *total, struct arb_err *err)
{
    int64_t known = 0, all = 0, rows = 0;
    int stop = 0;
    enum arb_status ret = check_query(q, err);

    if (ret)
        return ret;
    if (!st || !fn || !total)
        return arb_err_set(err, ARB_EUSAGE, "arb_case_index_query: no store, callback or total");
    if (q->limit < 1 || q->limit > 1000 || q->offset < 0)
        return arb_err_set(err, ARB_EUSAGE,
                           "case index: a page holds 1 to 1000 rows from an offset >= 0");
    ret = prepare_query(st, q, err);
    if (!ret)
        ret = count(st, q, &all, &known, err);
    if (ret)
        return ret;
    *total = all;
    if (q->offset < known) {
        struct at at = {q->limit, q->offset, NULL, 0, NULL};

        ret = page_part(st, q, q->descending ? KNOWN_DESC : KNOWN_ASC, &at, fn, ctx, &rows, &stop,
                        err);
    }
    if (!ret && !stop && rows < q->limit && all > known) {
        struct at at = {q->limit - rows, q->offset > known ? q->offset - known : 0, NULL, 0, NULL};

        ret = page_part(st, q, NULL_ASC, &at, fn, ctx, &rows, &stop, err);
    }
    return ret;
}

/* ---- the neighbours of a case ------------------------------------------------------------ */

struct near {
    struct arb_store *st;
    const struct arb_case_query *q;
    sqlite3_stmt *first; /* FIRST_ASC or FIRST_DESC of q, bound but for ?10 */
    char *buf;
    size_t len;
    int found;
};

/*
 * The first row of case_id among the rows matching q, in q's order: *is 1 when there is one,
 * with its n in *first_n and, when key is not NULL, a copy of its sort key in *key (the
 * caller frees it).  A case of several pairs is reached at its first row only, so stepping
 * visits each case once, in the order of their first rows.
 */
static enum arb_status first_row(struct near *nr, const char *case_id, int64_t *first_n,
                                 sqlite3_value **key, int *is, struct arb_err *err)
{
    sqlite3_stmt *s = nr->first;
    int rc;

    sqlite3_reset(s);
    rc = store_bind_text(SQLITE_OK, s, 10, case_id);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(s);
    *is = rc == SQLITE_ROW;
    if (rc == SQLITE_ROW) {
        *first_n = sqlite3_column_int64(s, 0);
        if (key && !(*key = sqlite3_value_dup(sqlite3_column_value(s, COL_KEY))))
            rc = SQLITE_NOMEM;
    }
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return store_fail(nr->st, rc, err, "find a case in the index");
    return ARB_OK;
}

/* Step statement kind from at; the first row that is the first of its case answers. */
static enum arb_status walk(struct near *nr, enum kind kind, const struct at *at,
                            struct arb_err *err)
{
    sqlite3_stmt *s = NULL;
    enum arb_status ret = open_kind(nr->st, nr->q, kind, at, &s, err);
    int rc = SQLITE_OK;

    while (!ret && !nr->found && (rc = sqlite3_step(s)) == SQLITE_ROW) {
        const char *id = store_col_text(s, 2);
        int64_t n = sqlite3_column_int64(s, 0), first = -1;
        int is = 0;

        ret = first_row(nr, id, &first, NULL, &is, err);
        if (!ret && is && first == n) {
            size_t len = strlen(id) < nr->len - 1 ? strlen(id) : nr->len - 1;

            memcpy(nr->buf, id, len);
            nr->buf[len] = '\0';
            nr->found = 1;
        }
    }
    if (!ret && rc != SQLITE_ROW && rc != SQLITE_DONE)
        ret = store_fail(nr->st, rc, err, "step through the cases");
    sqlite3_finalize(s);
    return ret;
}

/*
 * The order is [known keys, ascending or descending] then [unknown keys, reading order]:
 * from a row with a known key, forward is the rest of its part then the unknown part from
 * its start; backward the rest of its part.  From a row without a key, forward is the rest
 * of the unknown part; backward the rest of it, then the known part from its end.
 */
static enum arb_status step_from(struct near *nr, sqlite3_value *key, int64_t n, int dir,
                                 struct arb_err *err)
{
    int desc = nr->q->descending, known = sqlite3_value_type(key) != SQLITE_NULL;
    struct at from = {-1, 0, key, n, NULL}, start = {-1, 0, NULL, 0, NULL};
    enum arb_status ret;

    if (dir > 0 && known) {
        ret = walk(nr, desc ? BEFORE : AFTER, &from, err);
        return ret || nr->found ? ret : walk(nr, NULL_ASC, &start, err);
    }
    if (dir > 0)
        return walk(nr, NULL_AFTER, &from, err);
    if (known)
        return walk(nr, desc ? AFTER : BEFORE, &from, err);
    ret = walk(nr, NULL_BEFORE, &from, err);
    return ret || nr->found ? ret : walk(nr, desc ? KNOWN_ASC : KNOWN_DESC, &start, err);
}

enum arb_status arb_case_index_neighbor(struct arb_store *st, const struct arb_case_query *q,
                                        const char *case_id, int dir, char *buf, size_t n,
                                        struct arb_err *err)
{
    struct near nr = {st, q, NULL, buf, n, 0};
    struct at at = {1, 0, NULL, 0, NULL};
    sqlite3_value *key = NULL;
    int64_t first = 0;
    int is = 0;
    enum arb_status ret = check_query(q, err);

    if (ret)
        return ret;
    if (!st || !case_id || !buf || n == 0 || dir == 0)
        return arb_err_set(err, ARB_EUSAGE,
                           "arb_case_index_neighbor: no store, case, buffer or direction");
    buf[0] = '\0';
    ret = prepare_query(st, q, err);
    if (!ret)
        ret = open_kind(st, q, q->descending ? FIRST_DESC : FIRST_ASC, &at, &nr.first, err);
    if (!ret)
        ret = first_row(&nr, case_id, &first, &key, &is, err);
    if (!ret && is)
        ret = step_from(&nr, key, first, dir, err);
    sqlite3_value_free(key);
    sqlite3_finalize(nr.first);
    return ret;
}
