/*
 * check_impl.h - what the operators of src/compare/ share: the compiled check,
 * the operator table entry, and small helpers for reading parameters and
 * filling result records.  Private to the library (not in include/).
 */
#ifndef ARBITER_CHECK_IMPL_H
#define ARBITER_CHECK_IMPL_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "arbiter/buf.h"
#include "arbiter/compare.h"
#include "arbiter/status.h"

struct arb_check;

/* What one run of an operator sees. */
struct op_input {
    const char *text;        /* observed, after extract */
    size_t len;
    int utf8_ok;             /* text is valid UTF-8 */
    const cJSON *expected;   /* the check's own, else the case's; may be NULL */
    struct arb_err *err;
    struct arb_observed *shared; /* text is this output's whole text (no extract): what it
                                    derived once; NULL: derive it here */
};

/* What an arb_observed holds (observed.c). */
struct arb_observed {
    const char *text; /* borrowed */
    size_t len;
    int utf8;            /* -1 not known yet, else whether text is valid UTF-8 */
    int parsed;          /* the parse below was tried (an ARB_ENOMEM is not kept) */
    enum arb_status pst; /* ARB_OK, or the parse's failure (perr says why) */
    cJSON *doc;          /* owned; the tree when pst is ARB_OK */
    struct arb_err perr;
    struct arb_buf dups; /* the repeated keys' pointers, as arb_json_parse_ex gives them */
    char fail_note[512]; /* "json_parse_failed: why" once a check noted it; "" before */
};

/*
 * The observed output's parse, from o, parsing it the first time: *doc borrowed from o (NULL
 * when it is not JSON), *pst and the error and repeated keys as observed_json's own parse
 * gives them.  ARB_ENOMEM.
 */
enum arb_status observed_parsed(struct arb_observed *o, const cJSON **doc, enum arb_status *pst,
                                const struct arb_err **perr, const struct arb_buf **dups);

/* Whether o's text is valid UTF-8 (checked once). */
int observed_utf8(struct arb_observed *o);

/* arb_check_run with what shared derived (NULL: none), the aggregates' children included. */
enum arb_status check_run_shared(struct arb_check *c, const char *observed, size_t len,
                                 struct arb_observed *shared, const cJSON *case_expected,
                                 struct arb_result *res, struct arb_err *err);

enum op_flags {
    OP_NEEDS_EXPECTED = 1 << 0,  /* a run without expected is an error */
    OP_SETS_VERDICT = 1 << 1,    /* the operator decides the verdict itself (aggregates) */
    OP_NO_EXPECTED = 1 << 2,     /* "expected" is not a parameter at all */
    OP_NUMBER_EXPECTED = 1 << 3, /* expected must pass numeric_expected_ok (numeric, within) */
    OP_LIST_EXPECTED = 1 << 4    /* expected must pass expected_list_check (top_k, membership) */
};

struct op_def {
    const char *name;
    const char *const *params; /* operator-specific keys, NULL-terminated */
    unsigned flags;
    double default_threshold;
    /* Read operator parameters into c->priv.  path is the check's JSON path. */
    enum arb_status (*compile)(struct arb_check *c, const cJSON *cfg, const char *path,
                               struct arb_err *err);
    /* Compute res->score (and notes, normalization, details). */
    enum arb_status (*run)(struct arb_check *c, const struct op_input *in,
                           struct arb_result *res);
    void (*free_priv)(void *priv);
};

enum extract_kind { EXTRACT_NONE = 0, EXTRACT_POINTER, EXTRACT_REGEX };

struct arb_check {
    const struct op_def *op;
    cJSON *expected;          /* owned copy; NULL when the check has none */
    double threshold;
    double fail_below;
    int has_fail_below;
    int negate;
    char *file;
    enum extract_kind extract;
    char *extract_pointer;
    void *extract_re;         /* struct regex_prog *, see ops_regex.c */
    void *priv;               /* operator state */
    char *problem;            /* see arb_check_problem */
    struct arb_check **children;
    double *weights;
    size_t n_children;
    struct arb_buf scratch[3];  /* reusable per-run space */
    /* What the operator derived from the check's own expected (name: its canonical text and
     * code points; icontains: its lowercase), made on the first run that needs it */
    struct arb_buf own[2];
    int own_ready;
    struct arb_schema_cache *schema_cache; /* borrowed from the compile options */
    const struct arb_check_opts *opts;     /* valid during compile only (for children) */
};

/* The registry (registry.c). */
const struct op_def *op_lookup(const char *name);
void op_suggest(const char *name, struct arb_buf *out);

/* Parameter helpers: each writes "path/key: what was expected" on failure. */
enum arb_status param_number(const cJSON *cfg, const char *key, const char *path, double *out,
                             int *present, struct arb_err *err);
enum arb_status param_bool(const cJSON *cfg, const char *key, const char *path, int *out,
                           struct arb_err *err);
enum arb_status param_string(const cJSON *cfg, const char *key, const char *path,
                             const char **out, struct arb_err *err);

/* Record helpers. */
enum arb_status result_note(struct arb_result *r, const char *note);
enum arb_status result_notef(struct arb_result *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Record a normalization step applied to both sides (result_norm) or to the sides in side
 * (enum arb_side_flags); a step already recorded gains the sides. */
void result_norm(struct arb_result *r, const char *step);
void result_norm_side(struct arb_result *r, const char *step, unsigned side);
/* Record the values actually compared: two numbers, or two texts (kind ARB_COMPARED_TEXT, or
 * ARB_COMPARED_JSON for RFC 8785 text), copied into the record.  ARB_ENOMEM. */
void result_compared_numbers(struct arb_result *r, double e, double o);
enum arb_status result_compared_texts(struct arb_result *r, enum arb_compared_kind kind,
                                      const char *e, size_t ne, const char *o, size_t no);
enum arb_verdict verdict_of(double score, double threshold, double fail_below, int has_fail_below);

/* ---- what the operators compare (expected_forms.c) ---- */

/*
 * The text of an expected value for the string operators: a string as is,
 * anything else as its RFC 8785 form.  *s may point into e or into scratch.
 */
enum arb_status expected_text(const cJSON *e, struct arb_buf *scratch, const char **s,
                              size_t *n);

/*
 * The expected value as JSON for the structural operators: a string whose
 * content parses as a JSON object or array is taken as that JSON (peers such
 * as evalwire pass JSON as text).  *owned receives a tree to free, or NULL.
 */
const cJSON *expected_json(const cJSON *e, cJSON **owned);

/*
 * As observed_json, reading in->shared's parse when there is one: *doc is borrowed from it, or
 * from *owned, a tree the caller frees (NULL when borrowed).  Every JSON reader but fields.
 */
enum arb_status observed_doc(const struct op_input *in, struct arb_result *r, const cJSON **doc,
                             cJSON **owned);

/*
 * Parse the observed text as JSON; on failure notes json_parse_failed (+ detail).  "\u0000" is
 * read (held as C0 80, json.h), and a repeated key keeps its last value (Python's json,
 * JavaScript's JSON.parse), with the step duplicate_key_last_wins (observed side) and the note
 * "duplicate_key:/pointer" for each.
 */
enum arb_status observed_json(const struct op_input *in, struct arb_result *r, cJSON **out);

/*
 * As observed_json, for the members named names[0..n) of an observed object only
 * (arb_json_parse_members): values[i] receives a tree, or NULL when absent; the caller frees
 * each when *owned is 1 (its own parse), else they are in->shared's (its whole tree, the
 * values arb_json_parse_members would give).  *read is 1 for an object, 0 for JSON that is not
 * one, -1 when the text is not JSON (noted).
 */
enum arb_status observed_members(const struct op_input *in, struct arb_result *r,
                                 const char *const *names, size_t n, cJSON **values, int *read,
                                 int *owned);

/* Compile a child check at path (aggregates). */
enum arb_status check_compile_at(const cJSON *config, const struct arb_check_opts *opts,
                                 const char *path, struct arb_check **out, struct arb_err *err);

/* numeric and within (ops_numeric.c): whether x is an expected value they can read, and the
 * error naming path ("/expected: expected a number, ... got 'abc'") when it is not. */
int numeric_expected_ok(const cJSON *x);
enum arb_status numeric_expected_error(const cJSON *x, const char *path, struct arb_err *err);

/*
 * evalwire's expected forms (expected_forms.c).  arb_pylist_parse reads s[0..n) as a Python
 * list literal of str, as ast.literal_eval does, into a new array *out (the caller's): ARB_OK;
 * ARB_EPARSE with why ("offset 4: unterminated string"); ARB_ENOMEM.
 */
enum arb_status arb_pylist_parse(const char *s, size_t n, cJSON **out, char *why, size_t whylen);
/* Whether s is '[' ... ']' (leading spaces and tabs, trailing white space aside). */
int expected_looks_like_list(const char *s);
/*
 * The one value exact, contains and numeric compare (evalwire's expected_items[0]): a JSON array
 * of one item is that item (step expected_single_item_list); with py, a string holding a Python
 * list of str is its first item (step expected_python_list_literal, and expected_first_item
 * when it holds more), an empty one is NULL with the note expected_empty_list, an unreadable
 * one the string itself with a note.  *owned receives a tree to free (or NULL).
 */
enum arb_status expected_one(const cJSON *e, int py, struct arb_result *res, cJSON **owned,
                             const cJSON **out);
/*
 * The list top_k and membership read (evalwire's _parse_expected): an array as is, a string
 * holding a JSON array (expected_json), or one holding a Python list of str (step
 * expected_python_list_literal); any other value as is.  A string that looks like a list but
 * reads as neither is itself, with the note expected_list_unreadable.  *owned as above.
 */
enum arb_status expected_list(const cJSON *e, struct arb_result *res, cJSON **owned,
                              const cJSON **out);
/*
 * Whether e is a string expected_one would return as is (with py: one that cannot be a list
 * literal): the operators' fast path, inline.
 */
static inline int expected_plain_string(const cJSON *e, int py)
{
    return e && (e->type & 0xFF) == cJSON_String &&
           (!py || (e->valuestring[0] != '[' && e->valuestring[0] != ' ' &&
                    e->valuestring[0] != '\t'));
}
/* The error naming path when e looks like a list and cannot be read as one (else ARB_OK). */
enum arb_status expected_list_check(const cJSON *e, const char *path, struct arb_err *err);

/* Regex support shared by the regex operator and regex extraction (ops_regex.c). */
struct regex_prog;
enum arb_status regex_compile(const char *pattern, size_t len, const char *flags,
                              unsigned mode, struct regex_prog **out, char *errbuf,
                              size_t errlen);
/*
 * 1 match, 0 no match, -1 error, -2 a resource limit stopped the match (neither: the message
 * in errbuf names the limit).  Group 1 span when want_group.  utf8_valid: the caller knows s is
 * valid UTF-8, so PCRE2 need not check it again (each check of an output would).
 */
int regex_exec(struct regex_prog *p, const char *s, size_t len, int utf8_valid, int want_group,
               size_t *gstart, size_t *glen, char *errbuf, size_t errlen);
size_t regex_groups(const struct regex_prog *p);
void regex_free(struct regex_prog *p);

#endif
