/*
 * compare.h - the named comparator family.
 *
 * A check is a JSON object ({"op": "regex", "expected": "^INV-\\d+$", ...}),
 * the same in a suite, on the command line and in a batch file.  It is
 * compiled once (arb_check_compile: the operator looked up, its parameters
 * validated, patterns compiled, expected_file read) and then run on any number
 * of observed texts (arb_check_run).  Each run fills one result record:
 *
 *   operator, expected, observed (after extract), normalization, compared,
 *   notes, score, threshold, fail_below, verdict (+ children for aggregates)
 *
 * normalization names every conversion the operator applied before comparing
 * (a step is listed once, whichever side it applied to); compared, present
 * when the operator compares values other than the recorded texts (numbers
 * read from text, normalized text, canonical JSON), holds those values (the
 * normalized surfaces) and the steps each side went through.
 *
 * verdict is pass when score >= threshold, fail when score < fail_below (or
 * < threshold when there is no grey band), else unresolved.  A negated check
 * ("not": true) reports 1 - score and the inverse verdict (unresolved stays).
 * Problems with the observed text (not JSON, not a number, invalid UTF-8)
 * are notes on a failing record, never errors; a resource limit (a regex
 * that reaches PCRE2's match or depth limit) is a note on an unresolved
 * record, never a verdict.  Problems with the check itself (unknown operator
 * or parameter, wrong types) are compile errors naming the JSON path.
 * Comparators never fetch state: everything comes in through the check, the
 * observed text and the optional expected value of the case.
 *
 * Threads: a compiled check keeps scratch space (PCRE2 match data), so one
 * check must not run in two threads at once.  Distinct checks may.
 */
#ifndef ARBITER_COMPARE_H
#define ARBITER_COMPARE_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "arbiter/buf.h"
#include "arbiter/status.h"

enum arb_verdict { ARB_PASS = 0, ARB_FAIL, ARB_UNRESOLVED };

/* "pass", "fail" or "unresolved". */
const char *arb_verdict_name(enum arb_verdict v);

struct arb_check; /* compiled, opaque */
struct arb_schema_cache;

struct arb_check_opts {
    const char *base_dir;                  /* for expected_file; NULL means "." */
    struct arb_schema_cache *schema_cache; /* shared compiled schemas; NULL for none */
    size_t max_file_size;                  /* cap for expected_file; 0 means 64 MiB */
};

/* Which side a normalization step applied to (struct arb_result's norm_side). */
enum arb_side_flags { ARB_SIDE_EXPECTED = 1 << 0, ARB_SIDE_OBSERVED = 1 << 1 };

/* What struct arb_result's compared surfaces are. */
enum arb_compared_kind {
    ARB_COMPARED_NONE = 0, /* no conversion: expected and observed were compared as recorded */
    ARB_COMPARED_NUMBER,   /* compared_num[0] (expected) and [1] (observed) */
    ARB_COMPARED_TEXT,     /* compared_text[]: text, written as JSON strings */
    ARB_COMPARED_JSON      /* compared_text[]: RFC 8785 JSON text, written as JSON values */
};

/* One result record.  Initialise with arb_result_init, free with arb_result_release. */
struct arb_result {
    const char *op;        /* the operator's name (static) */
    const cJSON *expected; /* borrowed from the check or the case; NULL when none */
    const char *observed;  /* the compared text after extract; NULL when extraction failed */
    size_t observed_len;
    char *observed_owned;       /* storage behind observed when it is not the caller's input */
    const char *norm[8];        /* normalization steps applied, in order (static strings) */
    unsigned char norm_side[8]; /* per step: the sides it applied to (enum arb_side_flags) */
    size_t n_norm;
    enum arb_compared_kind compared_kind;
    double compared_num[2];       /* ARB_COMPARED_NUMBER: expected, observed */
    const char *compared_text[2]; /* TEXT/JSON: expected, observed (inside compared_owned) */
    size_t compared_len[2];
    char *compared_owned; /* owned storage behind compared_text (kept across runs) */
    size_t compared_cap;
    char **notes; /* owned strings */
    size_t n_notes, cap_notes;
    double score;
    double threshold;
    double fail_below;
    int has_fail_below;
    int negated;
    int limited; /* a resource limit (a regex's match or depth limit) stopped the operator:
                    the verdict is unresolved whatever the score, and a note names the limit */
    enum arb_verdict verdict;
    cJSON *details; /* owned; operator-specific (per-path leaves, violations); may be NULL */
    struct arb_result *children; /* aggregates: one per child check */
    size_t n_children;
    size_t cap_children; /* results allocated behind children (kept across runs for reuse) */
};

void arb_result_init(struct arb_result *r);
void arb_result_release(struct arb_result *r);

/*
 * Compile config into *out.  Errors (ARB_ESCHEMA, ARB_EIO, ARB_ENOMEM) name the
 * JSON path inside config ("/checks/1/op: unknown operator 'exactt' (did you
 * mean 'exact'?)") and, for unknown names, list the valid ones.  The check
 * keeps its own copy of what it needs; config may be freed afterwards.
 */
enum arb_status arb_check_compile(const cJSON *config, const struct arb_check_opts *opts,
                                  struct arb_check **out, struct arb_err *err);

/* Free a compiled check.  NULL is fine. */
void arb_check_free(struct arb_check *c);

/* The operator name of a compiled check. */
const char *arb_check_op(const struct arb_check *c);

/* 1 when the check has its own expected value (or needs none). */
int arb_check_has_expected(const struct arb_check *c);

/* The check's own expected value (owned by the check, valid while it lives), or NULL. */
const cJSON *arb_check_expected(const struct arb_check *c);

/* The "file" parameter (which file of a directory output), or NULL. */
const char *arb_check_file(const struct arb_check *c);

/*
 * The first problem found at compile time that will make every run fail
 * (an invalid regex pattern, an invalid schema), or NULL.  `arbiter check`
 * reports such problems as notes; a suite loader refuses them up front.
 */
const char *arb_check_problem(const struct arb_check *c);

/*
 * Append to path the JSON pointer, inside the check's config, of the value
 * arb_check_problem is about ("/checks/1/expected"); nothing without a
 * problem.  ARB_ENOMEM.
 */
enum arb_status arb_check_problem_path(const struct arb_check *c, struct arb_buf *path);

/*
 * Whether c, and every check inside it, can read case_expected where it has
 * no expected of its own (numeric and within need a number, or text that
 * reads as one).  ARB_OK (also for NULL), or ARB_ESCHEMA with *op the
 * operator and err saying what was expected and what was found: a loader
 * refuses such a case up front rather than failing it on every run.
 */
enum arb_status arb_check_takes_expected(const struct arb_check *c, const cJSON *case_expected,
                                         const char **op, struct arb_err *err);

/*
 * Run c on observed[0..len).  case_expected is used when the check has no
 * expected of its own (may be NULL).  res must have been initialised; it is
 * released and refilled.  res->observed may point into observed, which must
 * therefore outlive res.  Returns ARB_OK for any verdict; ARB_ENOMEM,
 * ARB_ESCHEMA (no expected value where the operator needs one) otherwise.
 */
enum arb_status arb_check_run(struct arb_check *c, const char *observed, size_t len,
                              const cJSON *case_expected, struct arb_result *res,
                              struct arb_err *err);

/*
 * One output as every check run on it reads it (arb_check_run_on): the text, borrowed, and
 * what the checks derive from it, derived once and shared: its JSON parse (the JSON operators,
 * extract's JSON pointer, schema and trajectory operators all read the same tree, and note a
 * failure or repeated keys as each would have from its own parse) and whether it is valid
 * UTF-8.  A run gives each system's output of a case one; `check --batch` runs without.
 * Not thread-safe: one output, one thread, as for a check.
 */
struct arb_observed;

/* A new, empty one into *out (free with arb_observed_free).  ARB_ENOMEM. */
enum arb_status arb_observed_new(struct arb_observed **out);

/* Take text[0..len) (borrowed: it must outlive every run on it) and forget what was derived
 * from the last text; storage is kept for the next. */
void arb_observed_set(struct arb_observed *o, const char *text, size_t len);

/* Free it and what it derived.  NULL is fine. */
void arb_observed_free(struct arb_observed *o);

/*
 * arb_check_run on o's text, reading what o derived instead of deriving it again.  The record
 * is the one arb_check_run gives for the same text, byte for byte.
 */
enum arb_status arb_check_run_on(struct arb_check *c, struct arb_observed *o,
                                 const cJSON *case_expected, struct arb_result *res,
                                 struct arb_err *err);

/*
 * Fill res with a failing record of c that never ran on an output (the output
 * is binary, or is a directory and the check names no file): observed null,
 * score 0, the check's threshold, and note as its only note.
 */
enum arb_status arb_check_fail(const struct arb_check *c, const cJSON *case_expected,
                               const char *note, struct arb_result *res);

/*
 * Append the record as one line of JSON (no newline) to out, members in this
 * order: operator, expected, observed, normalization, compared (only when the
 * operator compared converted values: {"expected", "observed", "expected_steps",
 * "observed_steps"}), notes, score, threshold, fail_below, verdict, then not,
 * details, children.
 */
enum arb_status arb_result_write_json(const struct arb_result *r, struct arb_buf *out);

/*
 * What records written one after another may share instead of writing it again: the JSON of an
 * expected value and the escaped text of an observed text that stay put while they are used.
 * A run writes six records per output and two per case expected; each is escaped once, and a
 * suite check's own expected once per run.  The caller says what stays put: every expected
 * value (a check's own or the case's) between two resets, the values given to
 * arb_record_memo_hold until the memo is released, and the texts given to arb_record_memo_keep
 * until the next reset.  Owns its storage; keeps no pointer it reads through (keys are
 * compared, never followed).
 */
#define ARB_RECORD_MEMO_SLOTS 16

struct arb_record_memo {
    struct {
        const void *key; /* the expected value's node or the kept text; NULL: a free slot */
        size_t len;      /* the kept text's length; SIZE_MAX for an expected value */
        size_t at, n;    /* its JSON in text; n == 0 while not written yet */
        int held;        /* kept across resets (arb_record_memo_hold) */
    } slot[ARB_RECORD_MEMO_SLOTS];
    size_t n_slots;
    struct arb_buf text; /* the JSON of every slot, one after another */
};

void arb_record_memo_init(struct arb_record_memo *m);
void arb_record_memo_release(struct arb_record_memo *m);

/* Forget all but the held values: the other expected values and kept texts may be freed. */
void arb_record_memo_reset(struct arb_record_memo *m);

/*
 * Say that the expected value v (a check's own: arb_check_expected) stays put until the memo is
 * released, so its JSON is written once for all the records that follow.  NULL is ignored, and
 * so are values past half the memo's slots.
 */
void arb_record_memo_hold(struct arb_record_memo *m, const cJSON *v);

/*
 * Say that text[0..len) stays put (same address, same bytes) until the next reset, so a record
 * whose observed is exactly it may reuse its escape.  A full memo simply keeps nothing more.
 */
void arb_record_memo_keep(struct arb_record_memo *m, const char *text, size_t len);

/*
 * arb_result_write_json, the same bytes, reusing (and filling) m for the expected value and
 * the observed text.  m == NULL is arb_result_write_json.
 */
enum arb_status arb_result_write_json_memo(const struct arb_result *r, struct arb_buf *out,
                                           struct arb_record_memo *m);

/*
 * Append s[0..len) as the record writes a JSON string (the "observed" member): quoted,
 * escaped, each byte that is not UTF-8 as \ufffd.  The store writes an output's text this way
 * when it puts back the observed text it kept once (src/store/store_checks.c).
 */
enum arb_status arb_result_write_string(struct arb_buf *out, const char *s, size_t len);

/*
 * The record as a cJSON object with the members arb_result_write_json writes,
 * in the same order (a non-finite number becomes null, text that is not valid
 * UTF-8 gets U+FFFD for each invalid byte).  Used to nest one record inside
 * another (the fields operator's per-leaf records).  Returns a new tree the
 * caller frees with cJSON_Delete, or NULL when memory runs out.
 */
cJSON *arb_result_to_cjson(const struct arb_result *r);

/*
 * The llm_judge operator (seeds/evaluator-factories.txt): a check only the judge decides.  Run
 * alone its record is unresolved with the note needs_judge; a run with a judge asks the judge
 * the filled template (template.h: {output}, {expected_output}, {{ and }}) and reads
 * result_key from the reply.  Every string is the check's (valid while it lives).
 */
struct arb_llm_judge {
    const char *template_text; /* the prompt, with {output} and optionally {expected_output} */
    const char *result_key;    /* the reply member that decides (default "score") */
    int result_bool;           /* result_type "bool" (1, the default): true passes, false fails;
                                  "score" (0): a number from 0 to 1 against the threshold */
    int on_error_fail;         /* on_error "fail" (1): a failed call or a reply without a usable
                                  result_key fails the check with the error as a note;
                                  "unresolved" (0, the default): it stays unresolved */
};

/* c's question when c is an llm_judge check, else NULL. */
const struct arb_llm_judge *arb_check_llm_judge(const struct arb_check *c);

/*
 * Append to out what {expected_output} reads for the expected value e (NULL: ""): a string as
 * written, an array's first item (evalwire's expected_items[0]; "" for an empty array), any
 * other value as its RFC 8785 text.  ARB_ENOMEM, ARB_ETOOBIG.
 */
enum arb_status arb_llm_judge_expected(const cJSON *e, struct arb_buf *out);

/*
 * The verdict of c for a judged score (1 or 0 for a boolean result): threshold and fail_below
 * as for any check, then "not".  *reported receives the score the record shows (1 - score when
 * negated).
 */
enum arb_verdict arb_check_judged(const struct arb_check *c, double score, double *reported);

/* The i-th operator name in registry order, NULL past the last. */
const char *arb_operator_name(size_t i);

#endif
