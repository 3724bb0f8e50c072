/*
 * case_index.h - the cases of a run as a browsable, filterable table (src/store/case_index.c,
 * case_index_query.c), for `arbiter view`: one row per case and pair of systems, with what a
 * reader filters on (status, winner, the judge's position inconsistency and failures, checks
 * and judge disagreeing, a failed expectation) worked out once from the stored records.
 *
 * The index lives in TEMP tables of st's connection (nothing is written to the database file,
 * so st may be read-only) and is built once per run and connection: the first call for a run
 * reads its verdicts, blindings, checks and judgments in one statement; later calls page
 * through the index in SQL (WHERE, ORDER BY, LIMIT / OFFSET over an index per sort), so a
 * page of a 100,000-case run never reads every case.  Measured (bench/bench_view_index.c,
 * 100,000 cases, 2 cores): the build 0.4 to 0.6 s of CPU; a page, filtered, deep or sorted,
 * under 20 ms; the first page of a sort other than reading order or id about 65 ms (it makes
 * the sort's index); a neighbour under 0.1 ms; a new search text 15 to 45 ms once the run's
 * texts are in memory (see search below).
 *
 * A run's index is a snapshot: rows a run still running adds later are seen by another
 * connection, not by this one.  A store scoped to some cases (arb_store_scope) indexes only
 * those when the scope is set before the run is first indexed; a scope set later is not seen.
 *
 * Strings handed to callbacks are borrowed for the duration of the callback only.  A callback
 * must not call these functions (they may change the TEMP tables the running query reads).
 */
#ifndef ARBITER_CASE_INDEX_H
#define ARBITER_CASE_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "arbiter/status.h"
#include "arbiter/store.h"

/*
 * What a case row can be filtered on besides status and winner.  "The judge" is the "judge"
 * member of the verdict's comparison_json (src/run/decide.c); a row has no judge member when
 * the pair was never escalated.
 */
enum arb_case_flags {
    ARB_CASE_JUDGED = 1 << 0,                /* the judge answered about the pair: a judge
                                                member without "error" */
    ARB_CASE_POSITION_INCONSISTENT = 1 << 1, /* its two orders named different winners: the
                                                judge's position_inconsistent is true, or the
                                                status is position_inconsistent */
    ARB_CASE_JUDGE_FAILED = 1 << 2,          /* status judge_failed or judge_refused, a judge
                                                member with "error", or a question slot of the
                                                pair's (its own, or an llm_judge check's about
                                                one of its two outputs) without an attempt
                                                valid with no error (as store_failures.c) */
    ARB_CASE_DISAGREE = 1 << 3,              /* judge_winner (below) is known and is not the
                                                rubric's: the system with the higher overall
                                                score, TIE when the scores are equal; no flag
                                                when either score is unknown */
    ARB_CASE_EXPECTATION_FAILED = 1 << 4     /* a checks row of kind expectation with verdict
                                                fail for either system of the pair */
};

/*
 * Every sort puts the rows whose key is unknown (NULL) last, in reading order, whichever the
 * direction; the rows with a key come first, by key then reading order, and descending
 * reverses them (equal keys then in reverse reading order).  Reading order and id have no
 * unknown key, so descending reverses them whole.
 */
enum arb_case_sort {
    ARB_CASE_SORT_SEQ = 0, /* reading order (the default) */
    ARB_CASE_SORT_ID,      /* case id, bytewise */
    ARB_CASE_SORT_STATUS,  /* status, bytewise (no verdict yet last), then reading order */
    ARB_CASE_SORT_WINNER,  /* winner, bytewise (undecided last), then reading order */
    ARB_CASE_SORT_MARGIN   /* |score_a - score_b| (unknown last), then reading order */
};

/* A query: which rows of one run, in which order, which page. */
struct arb_case_query {
    int64_t run;
    const char *status; /* NULL or "": any; else "decided", "pending_judge", "missing_output",
                           "judge_failed", "judge_refused" ... (the verdict's status), or
                           "pending": no verdict yet (status NULL) */
    const char *winner; /* NULL or "": any; a system name, "TIE", or "none" (no winner) */
    unsigned flags;     /* enum arb_case_flags: every flag set here must be set on the row */
    const char *search; /* NULL or "": none; else text that the case id, the case's prompt or
                           one of its text outputs (any system's, any file) contains, within
                           one of them, bytewise but for ASCII letters, compared without case
                           (as SQL LIKE: %, _ and \ are literal; no Unicode case folding; a
                           text ends at a NUL byte).  The run's texts are read into memory by
                           its first search on the connection, unless arb_case_index_build
                           read them (0.2 to 0.3 s and 150 MB for 100,000 cases with two
                           600-byte outputs); then a new text scans them (5 to 30 ms).  Its
                           hits are kept, so the next pages and neighbours of that text do not */
    enum arb_case_sort sort;
    int descending;
    int64_t offset; /* rows to skip, >= 0 */
    int64_t limit;  /* rows of the page, 1 to 1000 */
};

/*
 * One row of the index: a case and pair.  A case with no verdict yet has a row per pair it
 * was blinded for, or, before that, per pair of the run's systems in the suite's order.
 */
struct arb_case_entry {
    int64_t seq; /* the case's reading order, from 0 */
    const char *case_id;
    const char *system_a; /* the pair's A (shown first in the judge's order AB) */
    const char *system_b;
    /* The verdict's status, NULL when there is no verdict yet (a run still running or
     * stopped): the filter "pending". */
    const char *status;
    const char *winner; /* a system, "TIE", or NULL when undecided */
    /* The judge's winner when its orders agree (a system, "TIE"): from order_winners (the
     * one order's when it did not swap), else its winner; NULL when not judged, failed,
     * inconsistent or naming none. */
    const char *judge_winner;
    double score_a, score_b;         /* overall rubric scores, NaN when unknown */
    double pass_rate_a, pass_rate_b; /* expectation pass rates, NaN when unknown */
    unsigned flags;                  /* enum arb_case_flags */
};

/*
 * Build the index of run on st's connection unless it is there already, and read the texts
 * its search looks through (arb_case_index_load_search), so that a viewer that builds a run
 * before serving it answers its first search as fast as the next.  ARB_OK, ARB_ENOMEM, a
 * database failure with err set, or ARB_EUSAGE when run does not exist.  The queries below
 * build the index themselves when needed, but not the texts: the first search reads them.
 */
enum arb_status arb_case_index_build(struct arb_store *st, int64_t run, struct arb_err *err);

/*
 * Read the texts a search of run looks through (its case ids, prompts and text outputs) into
 * memory on st's connection unless they are there: the first search of run does it
 * otherwise.  They are a snapshot, as the index is.  One run's texts are held at a time
 * (reading another's replaces them), owned by st and freed by arb_store_close; *bytes (when
 * not NULL) receives what they take (about the texts' size: 149 MB for the bench's 100,000
 * cases), 0 for a run whose texts pass 512 MB, which are not held (its searches scan the
 * rows with LIKE, 0.1 to 0.3 s each at 100,000 cases).  ARB_ENOMEM, a database failure with
 * err set, or ARB_EUSAGE when run does not exist.
 */
enum arb_status arb_case_index_load_search(struct arb_store *st, int64_t run, size_t *bytes,
                                           struct arb_err *err);

/*
 * Call fn for each row of one page of q (building the index first when needed), in q's order,
 * until fn returns non-zero; *total receives how many rows match q over every page.
 * ARB_EUSAGE for a limit outside 1 to 1000, a negative offset or an unknown sort (and for a
 * run that does not exist); a database failure with err set.
 */
enum arb_status arb_case_index_query(struct arb_store *st, const struct arb_case_query *q,
                                     int (*fn)(void *ctx, const struct arb_case_entry *e),
                                     void *ctx, int64_t *total, struct arb_err *err);

/*
 * The case after (dir > 0) or before (dir < 0) case_id among the rows matching q, in q's order
 * (q's offset and limit are ignored), into buf (NUL-terminated, cut to n - 1 bytes); "" when
 * there is none or case_id does not match q.  With several pairs per case, a case stands at
 * its first row in q's order: the answer is the case whose first row comes next (before), so
 * stepping visits every matching case once.  A seek on the sort key, not a scan.  ARB_EUSAGE
 * for dir 0, n 0 or an unknown sort.
 */
enum arb_status arb_case_index_neighbor(struct arb_store *st, const struct arb_case_query *q,
                                        const char *case_id, int dir, char *buf, size_t n,
                                        struct arb_err *err);

/*
 * How many rows of run have each flag (counts[i] for flag 1 << i, i < 5) and how many in all
 * (building the index first when needed; read from its tally, not counted again).
 */
enum arb_status arb_case_index_counts(struct arb_store *st, int64_t run, int64_t counts[5],
                                      int64_t *all, struct arb_err *err);

#endif
