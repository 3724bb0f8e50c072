/*
 * case_index_search.c - the cases of a run holding a text (case_index.h, the query's search):
 * a scan of their ids, prompts and outputs with LIKE, the text's \, % and _ escaped by \ (LIKE
 * compares ASCII letters without case and every other character as it is, as wanted).
 *
 * Measured on 100,000 cases with two 600-byte outputs each (bench/bench_view_index.c,
 * 120 MB of outputs): a new text costs 100 to 290 ms of CPU, least when its first letter is
 * rare (LIKE skips to it with strcspn).  A Horspool search registered as an SQL function did
 * no better (150 to 220 ms; 450 ms for two letters): reading the rows is most of it.  An FTS5
 * trigram index of the same texts answers in a few ms but costs about 10 s of CPU and 400 MB
 * of TEMP file to build (95 us a case, measured on 20,000), the price of some fifty scans:
 * not worth it for the few searches of a reading session.  A search's hits are kept, so its
 * other pages and stepping through its cases do not scan again.
 */
#include "case_index_int.h"

static const char sql_same_search[] =
    "SELECT EXISTS (SELECT 1 FROM temp.arb_ci_search WHERE run = ?1 AND text = ?2)";
static const char sql_forget_search[] = "DELETE FROM temp.arb_ci_search";
static const char sql_forget_hits[] = "DELETE FROM temp.arb_ci_hits";
static const char sql_set_search[] =
    "INSERT INTO temp.arb_ci_search (one, run, text) VALUES (1, ?1, ?2)";

/* ?2 as a LIKE pattern matching any text that holds it. */
#define LIKE_TEXT                                                                                  \
    " LIKE '%' || replace(replace(replace(?2, '\\', '\\\\'), '%', '\\%'), '_', '\\_') || '%'"      \
    " ESCAPE '\\'"

/* The seqs of run ?1's cases whose id, prompt or an output (any system's, any file) holds ?2. */
static const char sql_hits[] =
    "INSERT OR IGNORE INTO temp.arb_ci_hits (seq)"
    " SELECT seq FROM cases WHERE run = ?1 AND (case_id" LIKE_TEXT " OR prompt" LIKE_TEXT ")"
    " UNION ALL SELECT c.seq FROM outputs o JOIN cases c ON c.run = ?1 AND c.case_id = o.case_id"
    " WHERE o.run = ?1 AND o.content" LIKE_TEXT;

enum arb_status store_ci_search(struct arb_store *st, int64_t run, const char *text,
                                struct arb_err *err)
{
    struct store_ci_args a = {run, text, 0};
    int64_t same = 0;
    enum arb_status ret = store_ci_exec(st, sql_same_search, &a, &same, "look up a search", err);

    if (ret || same)
        return ret;
    /* Forgotten first: a scan that fails leaves no hits that claim to answer text. */
    ret = store_ci_exec(st, sql_forget_search, &a, NULL, "search the cases", err);
    if (!ret)
        ret = store_ci_exec(st, sql_forget_hits, &a, NULL, "search the cases", err);
    if (!ret)
        ret = store_ci_exec(st, sql_hits, &a, NULL, "search the cases", err);
    if (!ret)
        ret = store_ci_exec(st, sql_set_search, &a, NULL, "search the cases", err);
    return ret;
}
