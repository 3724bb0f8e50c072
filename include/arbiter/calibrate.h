/*
 * calibrate.h - judge calibration studies: how well does a judge (model +
 * prompt + parameters), or a run's whole decision procedure, agree with human
 * labels, and how biased is it?
 *
 * Input is a JSONL file of labelled items, one a line, of one of two kinds:
 *   pairwise     {"id", "prompt"?, "output_1", "output_2",
 *                 "human": "1"|"2"|"tie" or a list of them (one per annotator),
 *                 "judge"?: {"order_12"?: v, "order_21"?: v},
 *                 "criteria"?: {NAME: "1"|"2"|"tie" or a list of them},
 *                 "expected"?: any JSON (kept as is, for the caller)}
 *                v is "1", "2", "tie" or null (an unparsable verdict), always in the
 *                original numbering: order_21 shows output_2 first, and its "1" still
 *                means output_1.
 *   expectation  {"id", "output", "expectation", "human": true|false, "judge"?: true|false|null}
 * "prompt", "output_1", "output_2" and "output" may be any JSON value: a string is
 * the text itself, anything else is used as its RFC 8785 canonical text (true is
 * "true", {"b": 1, "a": 2} is "{\"a\":2,\"b\":1}"), as `arbiter check --batch` does.
 * Items with "judge" are studied offline on those recorded verdicts; the others
 * are put to the configured judge (arb_calib_judge) first: pairs in both orders,
 * expectations as a single-output question.  The kind of the file is set by its
 * first line.
 *
 * Labels for a finished run (arb_calib_load_named) name its systems instead:
 *   {"id": CASE, "human": SYSTEM|"tie" or a list of them,
 *    "criteria"?: {NAME: SYSTEM|"tie" or a list}, "note"?: string (ignored)}
 * System names match exactly (case-sensitive, as a suite spells them); the tie
 * word is "tie" or "TIE" (a suite cannot name a system "TIE").  Such lines carry
 * no outputs; the caller fills in the run's verdicts (has_final, crit[].verdict).
 *
 * Definitions (pairwise; the markdown output repeats them):
 *   human label     the majority of the annotators' labels; equal top counts -> "tie"
 *   verdict         what is measured against the human label, one per item: either the
 *                   procedure's verdict (has_final: the verdict a run's whole decision
 *                   procedure stored for the case, deterministic checks and judge alike;
 *                   the study says "verdict": "procedure"), or the judge's orders combined
 *                   under a policy ("verdict": "judge_orders", below)
 *   unresolved      an order whose verdict is null (unless unparsed_tie: then a tie);
 *                   an item is unresolved when any of its orders is.  A procedure verdict
 *                   of null (no verdict: judge failed, pending, unresolved) is unresolved
 *                   whatever unparsed_tie says
 *   combined        the item's verdict: the procedure's when given; else inconsistent-tie
 *                   (MT-Bench): the orders' common verdict, else tie; net-vote
 *                   (JudgeBench): each order votes for a side (a tie votes for none), more
 *                   votes wins, equal -> tie; one order: it
 *   accuracy        correct / items counted (per order: items with that order; combined:
 *                   all items, unresolved ones counting as wrong)
 *   S1              agreement_with_ties: combined == human over all items (= combined accuracy)
 *   S2              agreement_without_ties: over items where neither the human label nor the
 *                   combined verdict is a tie, the share that agree (MT-Bench's "w/o tie")
 *   consistent      both orders present, parsed and equal; consistency over items with both
 *                   orders parsed, and kappa_between_orders (3 categories) over the same
 *                   (items the procedure decided without a judge have no orders: they count
 *                   in S1, S2, kappa, confusion and F1, not here)
 *   first_biased    order_12 "1" and order_21 "2": both orders picked the answer shown first;
 *                   second_biased: order_12 "2" and order_21 "1"
 *   kappa           Cohen's kappa of combined vs human over resolved items (3 x 3)
 *   macro_f1        mean F1 over the classes 1, 2, tie that occur in the human labels or the
 *                   verdicts; recall counts unresolved items as misses
 *   bootstrap       percentile intervals (95%) of combined accuracy and kappa, items
 *                   resampled with replacement, fixed seed (reproducible)
 *   length          among items with both outputs, of different lengths (code points), how
 *                   often a decisive human label / combined verdict picks the longer one
 *   criteria        per criterion NAME, over items with a human label for it and a known
 *                   verdict (crit[].verdict not ABSENT): S1, S2, kappa and the confusion as
 *                   above, a null verdict counting as wrong
 *   annotators      with several labels on some item: Cohen's kappa between each pair of
 *                   annotators (annotator i is the i-th label of every line), each
 *                   annotator against the verdict, and one inter-annotator figure: with
 *                   two annotators at most, Cohen's kappa over items labelled by both; with
 *                   more, Fleiss' kappa over the items with the most common number (>= 2)
 *                   of labels (kappa_kind says which); and Krippendorff's alpha (nominal)
 *                   over every item with at least 2 labels, however many
 * Expectation studies: accuracy, Cohen's kappa over {true, false}, the 2 x 2 confusion; the
 * verdict is final when has_final, else order_12.
 *
 * Ownership: arb_calib_load's set is freed with arb_calib_set_free; study
 * objects are the caller's (cJSON_Delete).  The library never prints.
 */
#ifndef ARBITER_CALIBRATE_H
#define ARBITER_CALIBRATE_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "arbiter/buf.h"
#include "arbiter/compare.h"
#include "arbiter/judge.h"
#include "arbiter/status.h"
#include "arbiter/store.h"

enum arb_calib_kind { ARB_CALIB_PAIRWISE = 0, ARB_CALIB_EXPECTATION };

/* A verdict or label.  Expectation items use ARB_V_FALSE / ARB_V_TRUE. */
enum arb_calib_verdict {
    ARB_V_ABSENT = -2, /* the order was not asked (or not recorded) */
    ARB_V_NULL = -1,   /* asked, but no parsable verdict */
    ARB_V_1 = 0,       /* output_1 is better */
    ARB_V_2 = 1,       /* output_2 is better */
    ARB_V_TIE = 2,
    ARB_V_FALSE = 0,
    ARB_V_TRUE = 1
};

#define ARB_CALIB_MAX_ANNOTATORS 64

/* One criterion's labels on an item, and the procedure's verdict on it. */
struct arb_calib_crit {
    char *name;                          /* owned */
    int human[ARB_CALIB_MAX_ANNOTATORS]; /* ARB_V_1, ARB_V_2, ARB_V_TIE, one per annotator */
    size_t n_human;                      /* 0: no human label for this criterion */
    int verdict; /* the procedure's: ARB_V_1/2/TIE, ARB_V_NULL (no verdict) or ARB_V_ABSENT
                  * (unknown; the loaders leave it so, the caller fills it in) */
};

/*
 * One labelled item.  Every pointer is owned by the set that holds it (freed by
 * arb_calib_set_free); items a caller builds for arb_calib_study are only read.
 */
struct arb_calib_item {
    char *id;
    char *prompt;                        /* may be NULL */
    char *output_1, *output_2;           /* expectation items: output_1 is "output", output_2 NULL;
                                          * NULL in labels for a run (arb_calib_load_named) */
    char *expectation;                   /* expectation items only */
    int human[ARB_CALIB_MAX_ANNOTATORS]; /* labels, one per annotator */
    size_t n_human;
    int recorded;                /* "judge" was in the file: no need to ask */
    int order_12, order_21;      /* pairwise verdicts (expectation: order_12 is the verdict) */
    int has_final;               /* final is the item's verdict (the run's procedure) */
    int final;                   /* ARB_V_1, ARB_V_2, ARB_V_TIE or ARB_V_NULL (expectations:
                                  * ARB_V_TRUE, ARB_V_FALSE or ARB_V_NULL); orders are then only
                                  * for position figures and may be ARB_V_ABSENT */
    cJSON *expected;             /* a pairwise line's "expected", a copy; NULL when absent */
    struct arb_calib_crit *crit; /* per-criterion labels, n_crit of them (may be NULL) */
    size_t n_crit;
};

struct arb_calib_set {
    enum arb_calib_kind kind;
    struct arb_calib_item *items;
    size_t n, cap;
    char sha256[65]; /* of the file's bytes */
};

/*
 * Read a labels file.  Errors are located: "FILE:LINE:COL: /human: expected
 * ..." (ARB_EPARSE for malformed JSON, ARB_ESCHEMA for a wrong shape, a
 * duplicate id or an empty file; ARB_EIO when it cannot be read).
 */
enum arb_status arb_calib_load(const char *path, struct arb_calib_set **out, struct arb_err *err);

/*
 * Read labels for a finished run: lines {"id", "human", "criteria"?, "note"?}
 * whose labels name systems[0] (ARB_V_1), systems[1] (ARB_V_2) or "tie"/"TIE"
 * (ARB_V_TIE), or lists of them, one per annotator.  The set is pairwise, its
 * items have no outputs, no orders (ARB_V_ABSENT), has_final 0 and every
 * crit[].verdict ARB_V_ABSENT: the caller fills in the run's verdicts.
 * Errors are located as arb_calib_load's, e.g. "FILE:LINE:COL: /human: 'x' is
 * not a system of this run (expected \"baseline\", \"candidate\" or \"tie\")"
 * (ARB_ESCHEMA).  ARB_EUSAGE when systems are missing, equal, or one is named
 * "tie" (it could not be told from a tie).  The set is freed with arb_calib_set_free.
 */
enum arb_status arb_calib_load_named(const char *path, const char *const systems[2],
                                     struct arb_calib_set **out, struct arb_err *err);

/*
 * The same over text[0..len) (JSONL; the last line may lack its LF; text is only read),
 * errors located as "NAME:LINE:COL: ..." with name standing for the file, e.g. "labels of run
 * 3 in arbiter.db" (arb_labels_jsonl, labels.h, makes such text).  set->sha256 is of the text.
 */
enum arb_status arb_calib_load_named_text(const char *text, size_t len, const char *name,
                                          const char *const systems[2], struct arb_calib_set **out,
                                          struct arb_err *err);

void arb_calib_set_free(struct arb_calib_set *set);

/* How many items have neither a recorded verdict nor has_final (they need a judge). */
size_t arb_calib_unjudged(const struct arb_calib_set *set);

enum arb_calib_policy { ARB_CALIB_INCONSISTENT_TIE = 0, ARB_CALIB_NET_VOTE };

struct arb_calib_opts {
    enum arb_calib_policy policy;
    int unparsed_tie;       /* null verdicts count as ties (default: unresolved) */
    size_t bootstrap;       /* resamples; 0 means 1000 */
    const char *judge_hash; /* added to the study when given */
};

/*
 * The study of items[0..n) (n > 0) as a JSON object (schemas/calibration.schema.json),
 * per-item verdicts included.  A pure function of its arguments: the same
 * input gives the same output, bootstrap intervals included.  Either every
 * item has has_final (the study measures the procedure: "verdict": "procedure")
 * or none has (it combines the orders: "verdict": "judge_orders"); a mix is
 * ARB_EUSAGE.  Without has_final an item needs a verdict or ARB_V_NULL in at
 * least one order.  Pairwise items may lack outputs (length then counts
 * nothing).  ARB_EUSAGE, ARB_ENOMEM.
 */
enum arb_status arb_calib_study(const struct arb_calib_item *items, size_t n,
                                enum arb_calib_kind kind, const struct arb_calib_opts *opts,
                                cJSON **out, struct arb_err *err);

/*
 * Majority of labels[0..n) over k categories (3 pairwise: a tie between the
 * top counts is ARB_V_TIE; 2 for expectations: a tie is ARB_V_NULL).
 */
int arb_calib_majority(const int *labels, size_t n, int k);

/*
 * Put every item without recorded verdicts to the judge, blind and cached:
 * the judge records its calls under run (a run row the caller created).
 * A pair is asked in both orders (swap is forced on; samples as configured;
 * "output_1" and "output_2" are record names only) and fills order_12 and
 * order_21.  An expectation item is asked as a single-output question (one
 * order, the majority of the samples; judge.h) whose one item is the
 * expectation, and fills order_12 with ARB_V_TRUE or ARB_V_FALSE.  A verdict
 * without a valid reply is ARB_V_NULL.  *unreachable counts requests that
 * got no reply after every retry (their verdicts are ARB_V_NULL too).
 * ARB_EDB, ARB_ENOMEM, ARB_EREMOTE as arb_judge_drain.
 */
enum arb_status arb_calib_judge(struct arb_calib_set *set, const struct arb_judge_config *cfg,
                                const char *api_key, struct arb_store *st, int64_t run,
                                int use_cache, size_t *unreachable, struct arb_err *err);

/*
 * The same, calling progress (when not NULL) as the judge's counters move, and notice (when
 * not NULL) with what the user should see as it happens (a provider's error, a switch of
 * response format, a refusal; arb_judge_set_notice), both with progress_ctx (judge.h).
 */
struct arb_judge_progress;
enum arb_status
arb_calib_judge_progress(struct arb_calib_set *set, const struct arb_judge_config *cfg,
                         const char *api_key, struct arb_store *st, int64_t run, int use_cache,
                         size_t *unreachable,
                         void (*progress)(void *ctx, const struct arb_judge_progress *p),
                         void *progress_ctx, void (*notice)(void *ctx, const char *msg),
                         struct arb_err *err);

/*
 * Fill every item of set (pairwise; labels by case id) from run's stored verdicts, asking
 * no judge: has_final and final (the verdict the run's whole procedure stored for the pair
 * of systems[0] (output_1) and systems[1] (output_2): its winner, null when it has none),
 * order_12 and order_21 (each judge order's own winner, comparison.json's
 * judge.order_winners; ARB_V_ABSENT for a pair the checks decided alone, ARB_V_NULL when
 * the judge gave no verdict), crit[].verdict (the side with the higher rubric score, a tie
 * when equal, null when unscored, ARB_V_ABSENT for a criterion the rubric lacks), and
 * output_1 / output_2 from the run's outputs when the labels carried none.  Items whose
 * case has no such pair in the run are counted in *unmatched and left without has_final.
 * ARB_EDB, ARB_ENOMEM.
 */
enum arb_status arb_calib_from_run(struct arb_store *st, int64_t run, const char *const systems[2],
                                   struct arb_calib_set *set, size_t *unmatched,
                                   struct arb_err *err);

/* Append the study as markdown (with the definitions above) to out. */
enum arb_status arb_calib_markdown(const cJSON *study, struct arb_buf *out);

/*
 * ---- tuning a check's grey band (tune_load.c, tune.c, tune_markdown.c) ----
 *
 * Where should a graded check (levenshtein, name, json_match, json_distance,
 * fields, top_k, weighted_mean) put threshold and fail_below so that what it
 * decides on its own agrees with people, and as little as possible goes to
 * the judge?  Input is a JSONL file of outputs labelled by a person:
 *   {"id", "output": text (other JSON is compared as its RFC 8785 text),
 *    "expected"?: the case's expected value (used when the check has none),
 *    "human": true (it should pass) | false}
 * Definitions (the markdown output repeats them):
 *   score        what the check's operator gives the output; the check's own
 *                threshold and fail_below are ignored
 *   band         (fail_below <= threshold): auto-pass when score >= threshold,
 *                auto-fail when score < fail_below, else escalated (to the judge)
 *   agreement    of the auto-decided items, the share whose decision is the
 *                human label (escalated items are left to the judge)
 *   escalation   escalated items / all items
 *   cut points   only where a cut falls between two neighbouring distinct scores
 *                matters; the value reported there is the shortest decimal
 *                strictly between them, nearest their midpoint.  A threshold can
 *                also sit above the highest score (nothing auto-passes) when it
 *                is below 1, and fail_below at 0 (nothing auto-fails)
 *   chosen band  among bands with agreement >= target: the least escalation,
 *                then the higher agreement, then the narrower band, then the
 *                higher threshold.  When none reaches the target: the highest
 *                agreement, then the least escalation, narrower, higher
 *   single       the best band with fail_below = threshold (no grey band): the
 *                highest agreement, then the higher threshold
 * A band that escalates every item decides nothing and is never chosen.
 * weighted_mean is tuned on its score; a child with a grey band of its own can
 * still leave it unresolved in a run (the tuning does not see that).
 *
 * Ownership: arb_tune_load's set is freed with arb_tune_set_free; the tuning
 * object is the caller's (cJSON_Delete).  The library never prints.
 */

struct arb_tune_item {
    char *id;
    char *output; /* NUL-terminated; output_len bytes */
    size_t output_len;
    cJSON *expected; /* NULL when the line has none */
    int human;       /* 1: should pass, 0: should fail */
    size_t line;     /* in the labels file */
};

struct arb_tune_set {
    char *path;
    struct arb_tune_item *items;
    size_t n, cap;
    char sha256[65]; /* of the file's bytes */
};

/*
 * Read check labels.  Errors are located: "FILE:LINE:COL: /human: expected
 * true or false" (ARB_EPARSE for malformed JSON, ARB_ESCHEMA for a wrong shape,
 * an unknown key, a duplicate id or an empty file; ARB_EIO when it cannot be
 * read; ARB_ENOMEM).
 */
enum arb_status arb_tune_load(const char *path, struct arb_tune_set **out, struct arb_err *err);

void arb_tune_set_free(struct arb_tune_set *set);

/* One band and what it does to the labelled items. */
struct arb_tune_band {
    double threshold, fail_below;
    size_t pass[2];      /* auto-passed items by human label: [1] human pass, [0] human fail */
    size_t fail[2];      /* auto-failed */
    size_t escalated[2]; /* between fail_below and threshold */
    double agreement;    /* (pass[1] + fail[0]) / auto-decided */
    double escalation;   /* escalated / n */
};

struct arb_tune_result {
    size_t n, human_pass, human_fail;
    double target;
    int reached;                 /* some band reaches the target */
    struct arb_tune_band band;   /* the chosen band (see the definitions above) */
    struct arb_tune_band single; /* the best single threshold */
};

/*
 * The search over scores[0..n) labelled human[0..n) (1 pass, 0 fail), n > 0,
 * every score in [0, 1], target in (0, 1].  A pure function: O(n log n + k^2)
 * for k distinct scores.  ARB_EUSAGE for bad arguments, ARB_ENOMEM.
 */
enum arb_status arb_tune_search(const double *scores, const int *human, size_t n, double target,
                                struct arb_tune_result *out, struct arb_err *err);

/*
 * Compile check (a check object as in a suite; copts as arb_check_compile's),
 * score every item of set with it and search (target in (0, 1]).  *out is the
 * tuning as JSON (schemas/tune.schema.json): counts, the chosen band and the
 * best single threshold with their confusion counts, the suggested check (check
 * with threshold and fail_below filled in) and every item's score and decision.
 * A check whose operator gives only 1 or 0 (exact, regex, ..., levenshtein with
 * max_distance) or that is negated ("not") is ARB_EUSAGE naming the operator;
 * compile errors as arb_check_compile's; an item the check cannot run on is
 * ARB_ESCHEMA "FILE:LINE: id 'x': ...".  ARB_ENOMEM.
 */
enum arb_status arb_tune_run(const cJSON *check, const struct arb_check_opts *copts,
                             const struct arb_tune_set *set, double target, cJSON **out,
                             struct arb_err *err);

/* Append the tuning (arb_tune_run's JSON) as markdown, with the definitions, to out. */
enum arb_status arb_tune_markdown(const cJSON *tune, struct arb_buf *out);

#endif
