/*
 * report.h - a run's report, computed from the database only (never from the
 * inputs), as JSON or markdown.
 *
 * Per system: wins, losses, ties and win rate (ties count half; also with
 * ties dropped), expectation pass rates overall and per expectation, mean
 * rubric scores per criterion and dimension; per run: decided,
 * pending_judge and missing_output cases, and the problems found while
 * loading.  Each (case, system) counts once, however many pairs it is in.
 */
#ifndef ARBITER_REPORT_H
#define ARBITER_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "arbiter/buf.h"
#include "arbiter/status.h"
#include "arbiter/store.h"

/* Build the report of run as a JSON object into *out (the caller frees it). */
enum arb_status arb_report_build(struct arb_store *st, int64_t run, cJSON **out,
                                 struct arb_err *err);

/*
 * The same with "case_pass_rates": expectation counts and pass rate per case
 * and per system: "items", each {"case", "systems": {name: counts}}.  case_limit
 * SIZE_MAX lists every case with expectations in case order, and so does a
 * limit at least their number; a smaller limit lists the cases some system
 * failed, lowest pass rate first, at most that many; 0 adds nothing.
 */
enum arb_status arb_report_build_cases(struct arb_store *st, int64_t run, size_t case_limit,
                                       cJSON **out, struct arb_err *err);

struct arb_report_opts {
    size_t resamples;     /* bootstrap resamples (1000; COMPARE_BOOTSTRAP_ITERATIONS overrides) */
    uint64_t seed;        /* seeds every resampling: the same report every time */
    const char *baseline; /* paired tests only against this system; NULL: every pair */
};

/*
 * The report with the parts that read the verdicts too, all from one pass
 * over them (each comparison.json parsed once):
 *   case_limit    "case_pass_rates", as arb_report_build_cases; 0: none
 *   win_matrix    add "win_matrix": the run's systems, and for each ordered
 *                 pair (row, column) the row's wins, losses and ties against
 *                 the column over their decided cases, and its win rate with
 *                 ties counted half (null on the diagonal and for pairs that
 *                 never met)
 *   statistics    when not NULL, the statistical strategy: 95% bootstrap
 *                 intervals for each system: "intervals" with win_rate,
 *                 pass_rate, overall_score and latency_ms (the mean duration
 *                 of its compared outputs, "latency_ms" {"mean", "cases"}),
 *                 and the median of each one's resamples ("bootstrap_median");
 *                 per pair of systems the exact sign test, a paired bootstrap
 *                 of score differences and a one-line "reasoning" ("pairs";
 *                 with a baseline only the pairs with it), McNemar's exact test
 *                 per expectation ("mcnemar", the same pairs), Bradley-Terry
 *                 ratings for three or more systems ("bradley_terry"), and
 *                 "statistics" naming the methods
 */
struct arb_report_parts {
    size_t case_limit;
    int win_matrix;
    const struct arb_report_opts *statistics;
    /*
     * NULL, or with case_limit SIZE_MAX (borrowed, open for reading and
     * writing): each listed case's entry is written here as the report goes
     * instead of being kept, and "items" holds a placeholder that
     * arb_report_json replaces with them, so memory does not grow with the
     * cases.  The report object is then for arb_report_json only.
     */
    FILE *case_spill;
};

enum arb_status arb_report_compose(struct arb_store *st, int64_t run,
                                   const struct arb_report_parts *parts, cJSON **out,
                                   struct arb_err *err);

/*
 * Add "trials" when the run has several trials per case for some system:
 * per system the cases and trials, and for k = 1 up to the most trials of a
 * case (at most 10) the mean "pass@k" and "pass^k" over the cases with at
 * least k decided trials; per system the trials' "quality" (avgScore,
 * medianScore, p25Score, p75Score, when some trial has a score) and
 * "performance" (latency p50, p90, p99, mean, min, max; totalDuration), read
 * from the trials' outputs and checks; with opts, 95% bootstrap intervals
 * ("pass@k_ci", "pass^k_ci", confidenceIntervals avgScore and latencyMean)
 * and the medians of the resamples beside them, all from one resampling of
 * the cases.  Without trials the report is left as it is.
 */
enum arb_status arb_report_add_trials(struct arb_store *st, int64_t run, cJSON *report,
                                      const struct arb_report_opts *opts, struct arb_err *err);

/*
 * Add "against": how run's verdicts differ from other's, matched by case and
 * pair of systems: compared, changed, unchanged, verdicts found in only one
 * of the runs, "transitions" (e.g. "baseline -> TIE": how many), and the
 * first 1000 "changes" one by one (case, pair, before and after).
 */
enum arb_status arb_report_add_against(struct arb_store *st, int64_t run, int64_t other,
                                       cJSON *report, struct arb_err *err);

/*
 * Add "judge_health": escalated cases and rate, requests, cache hits,
 * invalid replies, tokens, position-inconsistent rate, first-position win
 * rate, tie rate, how often the longer output won, sample agreement,
 * judge_failed, judge_refused, the judge config hash and its calibration
 * status, and why the judge failed ("judge_failures", as
 * arb_report_add_judge_failures: at most 100 reasons, 5 case ids each).
 */
enum arb_status arb_report_add_judge_health(struct arb_store *st, int64_t run, cJSON *report,
                                            struct arb_err *err);

/*
 * Add "calibration" (one line: the study of the run's procedure, "uncalibrated:
 * WHY", or "no judge") and "calibration_study" (the study: id, procedure_hash,
 * source, labels, n, kappa with kappa_lo and kappa_hi, accuracy, created_at,
 * run; or null) to health.  procedure_hash NULL: a run stored before
 * procedures had an identity; judge_hash NULL: no judge.  Called by
 * arb_report_add_judge_health.
 */
enum arb_status arb_report_add_calibration(struct arb_store *st, const char *procedure_hash,
                                           const char *judge_hash, cJSON *health,
                                           struct arb_err *err);

/*
 * Add "judge_failures" to parent: the distinct reasons the judge failed run's
 * judgments (store.h, arb_store_judge_failures: a question slot left without
 * a valid answer, its reason the error of its last attempt), most frequent
 * first, at most max_reasons of them, each {"reason", "count" (the failed
 * judgments), "cases" (how many cases they are in), "case_ids" (the first
 * max_ids of those, at most 1000, in case order)}; an empty array when none
 * failed.  When reasons are left off, "judge_failures_more": {"reasons",
 * "count"} says how many, and how many judgments they hold.  Reads the store
 * as arb_store_scope left it.  ARB_ENOMEM, or the store's failure.
 */
enum arb_status arb_report_add_judge_failures(struct arb_store *st, int64_t run, cJSON *parent,
                                              size_t max_reasons, size_t max_ids,
                                              struct arb_err *err);

/*
 * Add "judge_cost" when the run's judge config has a price: what the
 * requests the run sent itself cost (a reply from the cache costs it
 * nothing), in US dollars: "total", "requests", the tokens, "judged_cases",
 * "mean_per_judged_case", the price, and "cases" (per case in case order:
 * requests, tokens, "cost").  Called by arb_report_add_judge_health.
 */
enum arb_status arb_report_add_judge_cost(struct arb_store *st, int64_t run, cJSON *report,
                                          struct arb_err *err);

/*
 * Add "cases_detail": per verdict (at most limit), both outputs (each cut at
 * 20,000 bytes), every check record, the reasoning and, for a pair the judge
 * failed or refused, why ("judge_error") (for HTML).
 */
enum arb_status arb_report_add_cases(struct arb_store *st, int64_t run, cJSON *report, size_t limit,
                                     struct arb_err *err);

/* The same for one case (every pair of it), as `arbiter view` shows a case. */
enum arb_status arb_report_case_detail(struct arb_store *st, int64_t run, const char *case_id,
                                       cJSON *report, struct arb_err *err);

/*
 * The weighted strategy: add "weights" and "weighted" (per system quality,
 * mean duration, latency, reliability and score = quality * w[0] + latency
 * * w[1] + reliability * w[2]); see weighted.c for the definitions.
 */
enum arb_status arb_report_add_weighted(struct arb_store *st, int64_t run, cJSON *report,
                                        const double weights[3], struct arb_err *err);

/*
 * A comparison grader (seeds/comparison-graders.md, "Grader Interface"): argv
 * (borrowed, NULL-terminated; argv[0] the program, searched in PATH, run
 * without a shell) is run once per case with the case's runs on its standard
 * input, killed after timeout_s seconds.  The command is shown (in the report and
 * in errors) with what looks like a credential redacted: the value of an option
 * or NAME=VALUE whose name arb_judge_credential_name takes ("--api-key X",
 * "--token=X", "Authorization: Bearer X"), a URL's user-info, and anywhere any
 * of the n_secrets strings secrets (borrowed; e.g. the values of credential
 * variables in the environment).
 */
struct arb_grader {
    char *const *argv;
    double timeout_s;
    const char *const *secrets;
    size_t n_secrets;
};

/*
 * The custom strategy: add "custom" {"grader" (argv), "timeout_s", "cases"
 * (per case with outputs, in case order: "case", "rankings" [{"run", "rank",
 * "score"}] and "reasoning" as the grader answered them), "systems" (per
 * system: "cases" ranked in, "mean_score", "mean_rank", "firsts")}; see
 * custom.c for the grader's input.  The first case the grader fails stops it:
 * ARB_EREMOTE with err naming the grader, the case and what went wrong (could
 * not start, timed out, exit status, empty answer, not JSON, the JSON path of
 * a missing or wrong member); else ARB_ENOMEM or the store's failure.
 */
enum arb_status arb_report_add_custom(struct arb_store *st, int64_t run, cJSON *report,
                                      const struct arb_grader *g, struct arb_err *err);

/*
 * The hybrid strategy, after the weighted and custom parts: add "hybrid"
 * {"weighted_weight" (1 - custom_weight), "custom_weight", "systems": per
 * system "weighted" (its weighted score), "custom" (its mean grader score, or
 * null when never ranked) and "score" = weighted x (1 - custom_weight) +
 * custom x custom_weight (null without a custom part)}.  ARB_ENOMEM.
 */
enum arb_status arb_report_add_hybrid(cJSON *report, double custom_weight, struct arb_err *err);

/*
 * Append run's verdicts to out as one CSV table (RFC 4180: CRLF line ends,
 * fields with a comma, quote, CR or LF quoted, quotes doubled; NULL empty):
 * a header row, then one row per case and pair of systems in case order,
 * with the columns
 *   run, case_id, seq (the case's place in the suite, from 0),
 *   system_a, system_b (system_a is the one shown to the judge as A),
 *   status (decided, pending_judge, missing_output, judge_failed,
 *   judge_refused, position_inconsistent), winner (a system, TIE, or empty),
 *   score_a, score_b (overall rubric scores), pass_rate_a, pass_rate_b
 *   (expectation pass rates), judged (1 when the pair went to the judge),
 *   position_inconsistent (1 or 0 from the judge's answer; empty when it
 *   gave none), unresolved (items neither the checks nor the judge settled).
 * Numbers take the shortest digits that read back as the same double; text
 * is written as stored.  Reads the store as arb_store_scope left it.
 * ARB_ENOMEM / ARB_ETOOBIG from out, or the store's failure (err set).
 */
enum arb_status arb_report_csv(struct arb_store *st, int64_t run, struct arb_buf *out,
                               struct arb_err *err);

/*
 * Where a long output goes while it is rendered: write(ctx, data, len)
 * takes the bytes and returns 0, or -1 (the renderer then fails with
 * ARB_EIO).  A renderer given a sink hands over out's contents whenever
 * they pass ARB_REPORT_FLUSH bytes, and resets out; what is left in out at
 * its end is the caller's to write.
 */
struct arb_report_sink {
    int (*write)(void *ctx, const void *data, size_t len);
    void *ctx;
};

#define ARB_REPORT_FLUSH 65536

/* Hand out's contents to sink (NULL: keep them) when they are at least min bytes; reset out. */
enum arb_status arb_report_flush(struct arb_buf *out, const struct arb_report_sink *sink,
                                 size_t min);

/* arb_report_csv through a sink (NULL: everything in out). */
enum arb_status arb_report_csv_to(struct arb_store *st, int64_t run, struct arb_buf *out,
                                  const struct arb_report_sink *sink, struct arb_err *err);

/*
 * Render a report object as JSON (cJSON's formatted print and a newline)
 * into out, through sink (NULL: everything in out).  case_spill: the file
 * given to arb_report_compose (arb_report_parts), whose entries take the
 * place of the placeholder, indented as cJSON would have printed them;
 * NULL when it was not given.  ARB_ENOMEM, ARB_EIO (reading the spill or
 * from the sink), or out's status.
 */
enum arb_status arb_report_json(const cJSON *report, FILE *case_spill, struct arb_buf *out,
                                const struct arb_report_sink *sink);

/* Render a report object (from arb_report_build) as markdown into out. */
enum arb_status arb_report_markdown(const cJSON *report, struct arb_buf *out);

/*
 * Render a report object as one self-contained HTML page into out: inline
 * style and SVG charts, no script, no external resource.  Members the report
 * lacks are left out.  All text from the report is escaped; case anchors are
 * "case-" and the id encoded to [A-Za-z0-9_-].  Returns ARB_EUSAGE when report
 * is not an object, else the buffer's status (ARB_ENOMEM, ARB_ETOOBIG).
 */
enum arb_status arb_report_html(const cJSON *report, struct arb_buf *out);

/* The same through a sink (NULL: everything in out); ARB_EIO from the sink. */
enum arb_status arb_report_html_to(const cJSON *report, struct arb_buf *out,
                                   const struct arb_report_sink *sink);

#endif
