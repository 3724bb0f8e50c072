/*
 * labels.h - human labels of a run's pairs, made blind (src/store/store_labels.c; the JSONL,
 * src/store/labels_jsonl.c): what `arbiter view --label` records, `arbiter export --labels`
 * writes and `arbiter calibrate --run RUN --labels-from-db` measures.
 *
 * An annotator saw a pair of a run as "Response A" and "Response B" in the run's blind order
 * (the blinding row: its system_a shown first), with no system names, judge output or check
 * verdicts, and chose A, B or a tie, optionally per criterion, with a note.  The row keeps
 * what was shown (shown_first) and the choice as seen; the system it means is derived from
 * them when the label is stored, never taken from the page.
 *
 * One label per (run, case, pair, annotator): labelling again replaces the choice, criteria
 * and note and keeps the first time as created_at beside the latest updated_at.
 *
 * Strings handed to callbacks are borrowed for the duration of the callback only.
 */
#ifndef ARBITER_LABELS_H
#define ARBITER_LABELS_H

#include <stddef.h>
#include <stdint.h>

#include "arbiter/buf.h"
#include "arbiter/status.h"
#include "arbiter/store.h"

struct arb_label_row {
    int64_t run;
    const char *case_id;
    const char *system_a; /* the pair: the blinding row's system_a and system_b */
    const char *system_b;
    const char *annotator;     /* 1 to 100 bytes of UTF-8, no control characters */
    const char *shown_first;   /* the system shown as "Response A" (system_a or system_b) */
    const char *choice;        /* "A", "B" or "tie": the annotator's word, as shown */
    const char *criteria_json; /* {"NAME": "A" | "B" | "tie", ...} as shown, or NULL; stored
                                  as RFC 8785 text (names sorted), {} as NULL; a name is 1 to
                                  200 bytes without control characters */
    const char *note;          /* free text (UTF-8, at most 64 KiB), or NULL; "" is NULL */
    /* Filled in by the store (ignored on put): */
    const char *winner;     /* the system chosen, or "TIE" */
    const char *created_at; /* UTC, ISO 8601 */
    const char *updated_at;
};

/*
 * Store (or replace) one label in its own transaction (none may be open; st not read-only).
 * winner is derived: choice A is shown_first, B the other system of the pair, tie "TIE".
 * ARB_EUSAGE, with a message naming the field ("label: ..."), when the run does not exist,
 * the case is not the run's, the pair is not the case's blinding row (in its order:
 * system_a the one the blinding shows first), shown_first is not one of the pair, choice or a
 * criterion's choice is not A, B or tie, criteria_json is not such an object, the note is too
 * long or not UTF-8, or the annotator is empty, over 100 bytes, not UTF-8 or holds a control
 * character (C0, DEL, C1); a database failure as usual (ARB_EDB, ARB_ENOMEM).
 */
enum arb_status arb_store_put_label(struct arb_store *st, const struct arb_label_row *l,
                                    struct arb_err *err);

/*
 * Call fn for each label of run (case_id NULL: every case; annotator NULL: everyone's), in
 * case order, then pair (the suite's order of pairs: by the positions of its systems), then
 * annotator (bytewise).  fn returning non-zero stops, and the call returns ARB_OK.
 */
enum arb_status arb_store_labels(struct arb_store *st, int64_t run, const char *case_id,
                                 const char *annotator,
                                 int (*fn)(void *ctx, const struct arb_label_row *l), void *ctx,
                                 struct arb_err *err);

/* The annotators who labelled run, bytewise order, with how many labels each made. */
enum arb_status arb_store_label_annotators(struct arb_store *st, int64_t run,
                                           int (*fn)(void *ctx, const char *annotator,
                                                     int64_t n_labels),
                                           void *ctx, struct arb_err *err);

/*
 * The next case of run, in reading order after seq (-1: from the start), that annotator has
 * not labelled; out->found 0 when none is left after after_seq (from -1: every case with an
 * output from both systems is labelled).  With several pairs per case, the first unlabelled
 * pair in the suite's order of pairs, system_a and system_b in its blind order.  A pair one of
 * whose systems has no output for the case (its verdict is missing_output) is skipped.
 * The strings are owned by out, however long (a case id may be kilobytes): free them with
 * arb_label_next_release, whatever the call returned.  ARB_ENOMEM, found 0, when they cannot
 * be copied.
 */
struct arb_label_next {
    int found;
    int64_t seq;
    char *case_id; /* NULL, as the others, when not found */
    char *system_a;
    char *system_b;
};
enum arb_status arb_store_label_next(struct arb_store *st, int64_t run, const char *annotator,
                                     int64_t after_seq, struct arb_label_next *out,
                                     struct arb_err *err);

/* Free the strings of n (not n itself) and set them NULL; found 0. */
void arb_label_next_release(struct arb_label_next *n);

/*
 * Call fn for each pair case_id of run was blinded for, in the order arb_store_label_next
 * takes them (the suite's order of pairs), system_a and system_b in the blind order, until fn
 * returns non-zero.  A pair's position in this order names it in the labelling form: it
 * rests on the blinding alone, so it means the same pair whether or not the pair's verdict is
 * stored yet (a run still running).  Nothing is called for a case not blinded.
 */
enum arb_status arb_store_label_pairs(struct arb_store *st, int64_t run, const char *case_id,
                                      int (*fn)(void *ctx, const char *system_a,
                                                const char *system_b),
                                      void *ctx, struct arb_err *err);

/*
 * The labels of run as the JSONL that `arbiter calibrate --run` reads, one line per labelled
 * case of the run's first pair (its first two systems in the suite's order, either blind
 * order) in case order: {"id", "human": [one label per annotator, in annotator order, a
 * system name or "tie"], "criteria": {NAME: [...]}?, "note"?} (see README "Calibration").
 * A single annotator's label is written as a one-item list too.  A criterion's list holds
 * the labels of the annotators who judged it, in the same order; criteria are written in
 * RFC 8785 order.  "note" joins the annotators' notes, one "ANNOTATOR: NOTE" each, with a
 * newline between.  Members in that order, values as RFC 8785 text, each line ending in
 * "\n"; nothing is appended when no label matches.  annotators (NULL or n_annotators 0:
 * all) keeps only those named.  Appended to out.  ARB_EUSAGE when the run does not exist or
 * has fewer than two systems; ARB_ENOMEM, ARB_ETOOBIG (out's cap), ARB_EDB.
 */
enum arb_status arb_labels_jsonl(struct arb_store *st, int64_t run, const char *const *annotators,
                                 size_t n_annotators, struct arb_buf *out, struct arb_err *err);

#endif
