/*
 * run_int.h - what the files of src/run/ share: one system's evaluated
 * output on a case, and the pairwise decision.
 */
#ifndef ARBITER_RUN_INT_H
#define ARBITER_RUN_INT_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "arbiter/compare.h"
#include "arbiter/select.h"
#include "arbiter/strset.h"
#include "arbiter/suite.h"
#include "../util/jtext.h"

/*
 * What the sentences of output_quality say of the suite's checks ("name: expected \"Acme\""),
 * described once per run from their check_json (feedback.c) rather than parsed per sentence.
 * crit[i] for criterion i, exp[i] for the suite's expectation i; NULL where there is no check.
 */
struct check_words {
    char **crit;
    char **exp;
    const char **anchor; /* 3 per criterion: what its scores 1, 3 and 5 mean (static or the
                            suite's) */
    size_t n_crit, n_exp;
    /* What comparison.json repeats for every pair, written once (JSON text, jtext's bytes):
     * per criterion its name as a member's key ("name":) and its sentences for the whole
     * scores 1, 2, 4 and 5 (SCORE_SLOT; NULL: none), per suite expectation the head of its
     * details item ({"id":...,"text":...,"passed":). */
    char **crit_key;
    char **crit_said; /* 4 per criterion */
    char **exp_head;
    char **exp_said; /* 2 per suite expectation: its words in a sentence ('text', then 'text'
                        (check) for a failed one), escaped as in a JSON string, no quotes */
};

/* The slot of crit_said for a criterion's score v, or -1 when it has none. */
int check_words_slot(double v);

enum arb_status check_words_init(struct check_words *w, const struct arb_suite *s);
void check_words_release(struct check_words *w);

/* The items of one case: the suite's expectations, then the case's own. */
struct items {
    const struct arb_suite *suite;
    const struct arb_case *kase;
    size_t n_exp;
    const struct check_words *words; /* the suite's checks described; NULL: each when needed */
};


const struct arb_expectation *item_expectation(const struct items *it, size_t i);

/* One stored output file of one system for the current case. */
struct file_row {
    char *file;
    char *content;
    size_t len;
    int binary;
    int64_t trial;
};

/*
 * The file a check reads among files[0..n): the one it names, else the only
 * one.  NULL when there is none, with the reason in note (as the record's
 * note: file_not_found, output_is_a_directory); binary files are returned
 * with the note binary_output.
 */
const struct file_row *pick_file(const struct file_row *files, size_t n, const char *want,
                                 char *note, size_t note_size);

/*
 * The trials of one system on a case (trials.c): files[0..n) ordered by
 * trial.  When the system has trials (has_trials: several outputs of some
 * case in this run) or this case has several, run every expectation check on
 * each trial, deterministically, and store one trials row per trial.  res
 * and rec are scratch space.
 */
struct arb_store;
struct arb_store_writer;
enum arb_status evaluate_trials(struct arb_store_writer *w, int64_t run, const struct items *it,
                                const char *system, int has_trials, const struct file_row *files,
                                size_t n, struct arb_result *res, struct arb_buf *rec,
                                struct arb_err *err);

/* An llm_judge check left unresolved on one output: what its question needs (owned). */
struct llmj_ask {
    const struct arb_check *check;
    int criterion; /* index is a criterion's (1) or an expectation's (0) */
    size_t index;
    char *item;     /* the criterion's name or the expectation's id */
    char *output;   /* the observed text after extract */
    char *expected; /* what {expected_output} reads */
    char *record;   /* the record as stored */
};

struct llmj_list {
    struct llmj_ask *v;
    size_t n, cap;
};

/* One system's output on a case, as the checks judged it. */
struct side {
    const char *system;
    int missing;           /* no output for this case */
    double *crit;          /* per criterion: 1-5, or NAN when unresolved */
    enum arb_verdict *exp; /* per expectation */
    struct llmj_list llmj; /* its llm_judge checks left for the judge (escalate_llmj.c) */
};

/* The policy's decision on one pair (a is the system shown as A). */
struct decision {
    const char *status;              /* "decided", "pending_judge", "missing_output" */
    char winner;                     /* 'A', 'B', 'T' (tie) or 0 when not decided */
    const char *decided_by;          /* "rubric", "judge", "position_inconsistent" or NULL */
    double score_a, score_b;         /* overall scores, NAN when unknown */
    double pass_rate_a, pass_rate_b; /* expectation pass rates, NAN when none */
};

/*
 * Pairs decided before, by what decides them: without a judge and without the case's own
 * expectations, a pair's comparison text and decision are a function of the two sides' missing
 * flags, criterion scores and expectation verdicts (the rest is the suite's), and most pairs
 * of a run repeat one of a few.  A slot holds the key, then the text.
 */
#define DECIDE_MEMO   16
#define DECIDE_PROBES 4

struct decide_memo {
    struct arb_buf key;               /* the pair being decided */
    struct arb_buf kept[DECIDE_MEMO]; /* a decided pair's key, then its text */
    size_t key_len[DECIDE_MEMO];      /* 0: an empty slot */
    struct decision d[DECIDE_MEMO];
    size_t evict; /* which of a full home's slots goes next */
};

/* Scratch space for decide_write (the sentences of a side, the memo), kept from pair to pair. */
struct decide_scratch {
    struct arb_buf sentence, good, bad;
    struct jtext_nums nums;
    struct decide_memo memo;
};

void decide_scratch_init(struct decide_scratch *ds);
void decide_scratch_release(struct decide_scratch *ds);

struct judged;

/*
 * Decide a pair by the verdict policy (j: what the judge answered, as decide_judged; NULL: no
 * judge) and append the seed's comparison.json (without system names) to out, as one line,
 * the bytes cJSON_PrintUnformatted prints of decide_judged's tree.  ARB_ENOMEM, ARB_ETOOBIG.
 */
enum arb_status decide_write(const struct items *it, const struct side *a, const struct side *b,
                             const struct judged *j, struct decision *d,
                             struct decide_scratch *ds, struct arb_buf *out);

/*
 * Decide a pair by the verdict policy and build the seed's comparison.json
 * (without system names) into *comparison.  ARB_ENOMEM.
 */
enum arb_status decide_pair(const struct items *it, const struct side *a, const struct side *b,
                            struct decision *d, cJSON **comparison);

/* What the judge answered on a pair, as the decision and comparison.json take it. */
struct judged {
    int failed;                /* no valid reply in some order: judge_failed */
    int refused;               /* with failed: an order was refused: judge_refused */
    const char *error;         /* why, when failed */
    const char *reasoning;     /* the judge's, replacing the policy's own (NULL: kept) */
    const char *winner;        /* the judge's own winner: "A", "B", "TIE" or "none" */
    int position_inconsistent; /* the orders disagreed on the winner */
    int n_orders;              /* orders asked: 2, or 1 when the judge does not swap */
    char order_winner[2];      /* per order (0: A shown first, 1: B first) its majority winner:
                                  'A', 'B', 'T', or 0 (no winner) */
    double sample_agreement;
    int n_judgments;
    const cJSON *feedback; /* the judge's sentences when it was asked for them: {"A":
                              {"strengths": [...], "weaknesses": [...]}, "B": ...} in the
                              pair's A/B (arb_judge_answer.feedback); NULL: not asked */
};

/*
 * output_quality's strengths and weaknesses of side x, appended to good and bad (JSON arrays,
 * borrowed) as sentences (feedback.c): fb's (the judge's {"strengths", "weaknesses"} for this
 * side) when given, else built from the side's rubric scores and expectation verdicts.
 * 1, or 0 when out of memory.
 */
int quality_sentences(const struct items *it, const struct side *x, const cJSON *fb, cJSON *good,
                      cJSON *bad);

/*
 * Where quality_each tells each sentence (s[0..n), a strength when good): 1, or 0 to stop.
 * put_json, when set, takes a sentence already written as a JSON string (check_words).
 */
struct sentence_sink {
    int (*put)(void *ctx, int good, const char *s, size_t n);
    int (*put_json)(void *ctx, int good, const char *json);
    void *ctx;
};

/*
 * quality_sentences without cJSON: each sentence, in order, to sink; b is scratch space.
 * 1, or 0 when out of memory or the sink stopped.
 */
int quality_each(const struct items *it, const struct side *x, const cJSON *fb,
                 const struct sentence_sink *sink, struct arb_buf *b);

/*
 * decide_pair for a pair the judge answered (the sides already hold its
 * scores and expectation verdicts): the rubric rule, then policy.decide_by
 * (the judge's consistent winner decides, or breaks the rubric's tie), then
 * the judge's failure, or its orders' disagreement
 * (policy.position_inconsistent), adjust status and winner; comparison.json
 * is built once, whole, with its "judge" member and the policy.  d->status and d->winner are the final ones ('T' for a
 * tie, 0 for none).  ARB_ENOMEM.
 */
enum arb_status decide_judged(const struct items *it, const struct side *a, const struct side *b,
                              const struct judged *j, struct decision *d, cJSON **comparison);

/* ---- escalation to the judge (escalate.c) ---------------------------------------------- */

struct arb_judge_config;
struct arb_store;
struct arb_store_writer;
struct escalation;

/*
 * replies: the store whose stored replies answer the judge; NULL: st.  Judgments go to run.
 * recorded: the run in replies (or st) whose judgments answer their slots first (a replay's,
 * a resume's); 0: none.
 */
enum arb_status escalation_new(struct arb_store *st, int64_t run, const struct arb_suite *s,
                               const struct arb_judge_config *cfg, const char *api_key,
                               int use_cache, struct arb_store *replies, int64_t recorded,
                               struct escalation **out, struct arb_err *err);
void escalation_free(struct escalation *e);

/* The run's writer, through which the judged pairs' final verdicts are written (unthreaded:
 * with a judge the writer runs on the caller's connection). */
void escalation_set_writer(struct escalation *e, struct arb_store_writer *w);

/*
 * Ask the judge about the unresolved items of one pair (a is shown as A).
 * it (and the case behind it) must stay valid until escalation_drain; the
 * sides and texts are copied; texts are redacted here.
 */
enum arb_status escalation_ask(struct escalation *e, const struct items *it, const struct side *a,
                               const struct side *b, const char *text_a, const char *text_b,
                               struct arb_err *err);

/*
 * Get every answer and replace the pairs' verdicts (each in its own
 * transaction: none may be open).  Adds to *unreachable the judge calls that
 * got no reply after every retry.
 */
enum arb_status escalation_drain(struct escalation *e, size_t *unreachable, struct arb_err *err);

/*
 * Overlapping batches: escalation_mark notes the pairs asked so far; a later
 * escalation_drain_marked answers those pairs only (each in its own
 * transaction: none may be open) and frees them, while the pairs asked after
 * the mark keep their requests in flight (they may be asked inside a
 * transaction).  Their items and cases must stay valid until their own drain.
 */
void escalation_mark(struct escalation *e);
enum arb_status escalation_drain_marked(struct escalation *e, size_t *unreachable,
                                        struct arb_err *err);

/* The judge behind an escalation (for its budget and progress hooks). */
struct arb_judge *escalation_judge(struct escalation *e);

/* ---- llm_judge checks (escalate_llmj.c) ------------------------------------------------ */

/* Whether c is an llm_judge check (its item is asked on its own, not in the pair's question). */
int llmj_is(const struct arb_check *c);

/* Keep what c's question needs, from its unresolved record res (stored as record). */
enum arb_status llmj_keep(struct llmj_list *l, const struct arb_check *c, int criterion,
                          size_t index, const char *item, const struct arb_result *res,
                          const char *record);
void llmj_list_clear(struct llmj_list *l);   /* free the kept checks, keep the storage */
void llmj_list_release(struct llmj_list *l); /* free everything */

/* What the questions of an escalation share (borrowed from it). */
struct llmj_env {
    struct arb_judge *judge;
    const char *const *redact; /* the suite's strings and the system names */
    size_t n_redact;
    struct arb_store *st; /* where the judged records go (no transaction open in a drain) */
    int64_t run;
    enum arb_status st_cb; /* the first failure inside an answer */
    struct arb_err *err;   /* the drain's */
};

struct llmj_asked;

/*
 * Ask the judge every llm_judge check the sides src_a and src_b kept, one question each;
 * the answers set the items of a and b (the pair's copies, which must outlive the drain) and
 * replace the checks' records.  *out (free with llmj_asked_free after the drain; NULL when
 * there was nothing to ask) is set even when asking fails.
 */
enum arb_status llmj_ask(struct llmj_env *env, const struct items *it, struct side *a,
                         struct side *b, const struct side *src_a, const struct side *src_b,
                         struct llmj_asked **out, struct arb_err *err);

/* After the answers: the failure that leaves a check unresolved (on_error "unresolved"), which
 * makes the pair judge_failed; NULL when none. */
const char *llmj_error(const struct llmj_asked *lj);

void llmj_asked_free(struct llmj_asked *lj);

/* ---- a run's row and its selection of cases (setup.c) ---------------------------------- */

struct arb_run_opts;

/* Which cases a run keeps (arb_case_select, then a shard), as they stream by in suite order. */
struct run_scope {
    int on;                    /* a selection or a shard applies */
    size_t limit;              /* keep at most this many; 0: no limit */
    size_t picked;             /* selected so far (in any shard) */
    size_t found;              /* of the named ids, how many the suite had */
    int named;                 /* only the ids in want */
    struct arb_strset want;    /* the named ids */
    unsigned shard_k, shard_n; /* of the selected cases, only bucket shard_k of shard_n; n 0:
                                  every one */
};

/* The selection of a new run (sel may be NULL), then shard shard_k of shard_n (n 0: none). */
enum arb_status run_scope_init(struct run_scope *sc, const struct arb_case_select *sel,
                               unsigned shard_k, unsigned shard_n);

/* The selection a run was started with (runs.scope_json), for --resume; json NULL: none. */
enum arb_status run_scope_from_json(struct run_scope *sc, const char *json, struct arb_err *err);

/*
 * Whether the case with this id (the next in suite order) is kept: *keep 1 or 0.  b is the
 * run's blinder (its seed decides the bucket of a shard).  ARB_EINTERNAL if hashing fails.
 */
struct arb_blinder;
enum arb_status run_scope_pick(struct run_scope *sc, const char *id, struct arb_blinder *b,
                               int *keep);

/*
 * The shard a stored scope_json names (*k of *n; both 0 when it names none, json NULL
 * included), and the scope without it in *rest (RFC 8785 text, caller frees; NULL when
 * nothing else is left): the scope of the unsharded run.  ARB_EPARSE for a malformed one.
 */
enum arb_status run_scope_shard(const char *json, unsigned *k, unsigned *n, char **rest,
                                struct arb_err *err);

/*
 * After every case has streamed by: ARB_EUSAGE naming the first id that the
 * suite (whose ids' fingerprints are in all) does not have.
 */
struct arb_fpset;
enum arb_status run_scope_check(const struct run_scope *sc, const struct arb_fpset *all,
                                const char *suite_path, struct arb_err *err);

void run_scope_release(struct run_scope *sc);

/*
 * Create the run's row (status running): the suite, its systems (absolute
 * paths), the judge config with its hash, and the selection (sel, NULL for
 * every case).  *run receives its id.
 */
enum arb_status run_create(struct arb_store *st, const struct arb_suite *s,
                           const struct arb_run_opts *opts, int64_t *run, struct arb_err *err);

/* ---- the identity of a run's inputs (inputs.c) ------------------------------------------ */

/*
 * Identify the suite's cases file (when its cases are one) and every system's
 * outputs into *out (runs.inputs_json, RFC 8785 text; caller frees).  Errors
 * name the input (ARB_EIO: cannot be read, or not a regular file or directory).
 */
enum arb_status run_inputs_json(const struct arb_suite *s, char **out, struct arb_err *err);

/*
 * Before run is resumed: identify its inputs again and compare them with its
 * recorded inputs_json.  ARB_EUSAGE naming the first input that changed (which
 * file, and whether its size or only its content did), or that the record
 * lacks.  A run recorded without inputs_json is not checked: ARB_OK.
 */
enum arb_status run_inputs_check(struct arb_store *st, int64_t run, const struct arb_suite *s,
                                 struct arb_err *err);

/* Read back the scope_json of an existing run into *out (caller frees; NULL: none). */
enum arb_status run_stored_scope(struct arb_store *st, int64_t run, char **out,
                                 struct arb_err *err);

#endif
