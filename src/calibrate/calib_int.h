/*
 * calib_int.h - what the files of src/calibrate/ share: a JSONL file of
 * labelled items read one line at a time, each line parsed as JSON, and
 * errors located in it as "FILE:LINE:COL: /pointer: what was expected"
 * (jsonl.c).  The judge's labels (load.c), labels for a run (load_named.c)
 * and the grey-band tuner's labels (tune_load.c) are all read this way; the
 * first two read their labels and criteria with labels.c.  The study
 * (study.c) takes its JSON helpers, per-criterion agreement and agreement
 * between annotators from agree.c.  Private to the library (not in include/).
 */
#ifndef ARBITER_CALIB_INT_H
#define ARBITER_CALIB_INT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "arbiter/calibrate.h"
#include "arbiter/status.h"
#include "arbiter/strset.h"

/* One line of a labels file, for messages. */
struct calib_line {
    const char *file;
    size_t line;      /* from 1; blank lines count */
    const char *text; /* the line without CR/LF (a BOM on line 1 is kept and skipped) */
    size_t len;
    struct arb_strset *ids; /* the ids of the lines before, for calib_unique_id */
};

/*
 * Read path line by line: blank lines are skipped but counted, a CR before the
 * LF and a BOM on line 1 are dropped, each other line is parsed as JSON and
 * handed to fn (the tree is freed after the call; fn's error stops the read).
 * sha256, when given (65 bytes), receives the hex SHA-256 of the file's bytes.
 * ARB_EIO "cannot open labels 'x': ..."; ARB_EPARSE "FILE:LINE:COL: ..." for
 * a malformed line; ARB_ETOOBIG for a line over 64 MiB; ARB_ESCHEMA
 * "FILE: no labelled items" for a file without any.
 */
enum arb_status calib_jsonl_read(const char *path,
                                 enum arb_status (*fn)(void *ctx, const cJSON *o,
                                                       const struct calib_line *w,
                                                       struct arb_err *err),
                                 void *ctx, char *sha256, struct arb_err *err);

/*
 * The same over text[0..len) (the last line may lack its LF), whose lines errors locate as
 * "NAME:LINE:COL: ..." ("NAME: no labelled items" when it holds none).
 */
enum arb_status calib_jsonl_read_text(const char *text, size_t len, const char *name,
                                      enum arb_status (*fn)(void *ctx, const cJSON *o,
                                                            const struct calib_line *w,
                                                            struct arb_err *err),
                                      void *ctx, char *sha256, struct arb_err *err);

/*
 * Format "FILE:LINE:COL: POINTER: message" into err and return st.  COL is
 * that of the value at pointer (at_key: of its member key), or of the nearest
 * enclosing value; an empty pointer is not shown.
 */
enum arb_status calib_located(struct arb_err *err, enum arb_status st, const struct calib_line *w,
                              const char *pointer, int at_key, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

/*
 * The string member name of o in *v (NULL when absent and not required); a
 * missing required member or a non-string is a located ARB_ESCHEMA.
 */
enum arb_status calib_string_member(const cJSON *o, const char *name, int required,
                                    const struct calib_line *w, const cJSON **v,
                                    struct arb_err *err);

/*
 * Refuse a member of o whose name is not in keys (NULL-terminated): a located
 * ARB_ESCHEMA "unknown key 'x' (expected: VALID)", at the key.
 */
enum arb_status calib_check_keys(const cJSON *o, const char *const *keys, const char *valid,
                                 const struct calib_line *w, struct arb_err *err);

/*
 * Remember id as the id of line w; an id some line before had is a located
 * ARB_ESCHEMA "/id: duplicate id 'x' (first on line N)".  ARB_ENOMEM.
 */
enum arb_status calib_unique_id(const struct calib_line *w, const char *id, struct arb_err *err);

/* ---- labels and criteria (labels.c) ---------------------------------------------------- */

/*
 * The words a label may be: "1", "2", "tie" (system[0] NULL: a pairwise labels
 * file), or system[0], system[1], "tie", "TIE" (labels for a run).
 */
struct calib_vocab {
    const char *system[2];
};

/*
 * The labels at pointer ptr (h: a word or a non-empty list of at most
 * ARB_CALIB_MAX_ANNOTATORS words) into labels[], their count into *n.  A wrong
 * word or shape is a located ARB_ESCHEMA naming the words v allows.
 */
enum arb_status calib_labels(const struct calib_vocab *v, const cJSON *h, const char *ptr,
                             const struct calib_line *w, int *labels, size_t *n,
                             struct arb_err *err);

/*
 * "criteria" (c: an object NAME -> labels, or NULL) into it->crit / n_crit, each
 * verdict ARB_V_ABSENT.  Located ARB_ESCHEMA, ARB_ENOMEM.
 */
enum arb_status calib_criteria(const struct calib_vocab *v, const cJSON *c,
                               const struct calib_line *w, struct arb_calib_item *it,
                               struct arb_err *err);

/* Free what it owns (not it). */
void calib_item_release(struct arb_calib_item *it);

/* Append *it to set (which then owns it); on ARB_ENOMEM *it is released. */
enum arb_status calib_set_push(struct arb_calib_set *set, struct arb_calib_item *it,
                               struct arb_err *err);

/* ---- the study's shared pieces (agree.c) ----------------------------------------------- */

double calib_ratio(size_t a, size_t b); /* a / b; NaN when b is 0 */

/* Add a number (null for NaN: JSON has none) or a count to o; 0 when out of memory. */
int calib_add_num(cJSON *o, const char *name, double v);
int calib_add_count(cJSON *o, const char *name, size_t v);

cJSON *calib_verdict_json(int v);                    /* "1", "2", "tie", or null */
cJSON *calib_matrix_json(const double *m, size_t k); /* k x k rows; NULL: out of memory */

/* Agreement of a verdict with a reference over k <= 3 categories. */
struct calib_agreement {
    size_t n, resolved, correct;
    double conf[9]; /* rows: reference, columns: verdict; resolved items only */
    double kappa;   /* Cohen's, over resolved items; NaN when undefined */
};

/*
 * ref[i] in 0..k-1; got[i] in 0..k-1 or negative (unresolved, counted in n
 * only).  Items pick[0..n) (pick NULL: 0..n).
 */
void calib_agree(const int *ref, const int *got, const size_t *pick, size_t n, size_t k,
                 struct calib_agreement *a);

/*
 * Add "criteria" (per criterion name, in order of first appearance: n,
 * labelled, unresolved, agreement_with_ties, n_without_ties,
 * agreement_without_ties, kappa, confusion) to study when some item has a
 * criterion with a human label.  0 when out of memory.
 */
int calib_criteria_study(cJSON *study, const struct arb_calib_item *items, size_t n);

/*
 * Add the inter-annotator figures to human (the study's "human" object):
 * n_items_multi, kappa, kappa_kind ("cohen" or "fleiss"), kappa_n,
 * kappa_annotators, alpha, alpha_n.  0 when out of memory.
 */
int calib_annotators_study(cJSON *human, const struct arb_calib_item *items, size_t n,
                           size_t annotators);

/*
 * Fleiss' kappa of counts[u * k + c] (how many raters put unit u in category
 * c), units units, each rated by the same number (>= 2) of raters.  NaN when
 * undefined (no units, unequal or too few raters, one category only).
 */
double calib_fleiss_kappa(const size_t *counts, size_t units, size_t k);

/*
 * Krippendorff's alpha, nominal metric, of counts as above, units rated by any
 * number of raters (units with fewer than 2 are not pairable and are skipped).
 * NaN when undefined (no pairable unit, or one category only).
 */
double calib_krippendorff_alpha(const size_t *counts, size_t units, size_t k);

#endif
