/*
 * suite_int.h - what the files of src/suite/ share: the embedded suite schema,
 * the locator that turns a JSON pointer into line:column, shape validation with
 * readable messages, check compilation with located errors, a JSONL line
 * reader and a set of case ids.  Private to the library (not in include/).
 */
#ifndef ARBITER_SUITE_INT_H
#define ARBITER_SUITE_INT_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

#include "arbiter/buf.h"
#include "arbiter/fpset.h"
#include "arbiter/compare.h"
#include "arbiter/schema.h"
#include "arbiter/status.h"
#include "arbiter/suite.h"

/* ---- suite_schema.c ------------------------------------------------------------------ */

/* Append the text of schemas/suite.schema.json, byte for byte, to out. */
enum arb_status suite_schema_text(struct arb_buf *out);

/*
 * Parse the embedded schema into *doc and compile it into *out, starting at
 * start ("" for the suite, "/$defs/case" for one case).  ARB_EINTERNAL when
 * the embedded text is broken, ARB_ENOMEM.
 */
enum arb_status suite_schema_load(const char *start, cJSON **doc, struct arb_schema **out,
                                  struct arb_err *err);

/* ---- locate.c ------------------------------------------------------------------------ */

/* Where a piece of JSON text came from, for messages "FILE:LINE:COL: ...". */
struct src {
    const char *file; /* name shown in messages */
    const char *text; /* the JSON text (NULL: positions unknown, reported as line0:1) */
    size_t len;
    size_t line0; /* line number of the text's first line (1 for a whole file) */
};

struct pos {
    size_t line, col; /* 1-based; col counts code points */
};

/*
 * Where the value at pointer starts (at_key: its member key), or the nearest
 * enclosing value the text has; line counted from src->line0.  The text must
 * be JSON (arb_jscan_locate of src/util/jscan.h finds the value).
 */
struct pos locate_pos(const struct src *src, const char *pointer, int at_key);

/*
 * Format "FILE:LINE:COL: POINTER: message" into err and return st.  The
 * position is that of the value at pointer (at_key: of its key), or of the
 * nearest enclosing value the text has.  An empty pointer is not shown.
 */
enum arb_status located(struct arb_err *err, enum arb_status st, const struct src *src,
                        const char *pointer, int at_key, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

/*
 * Turn arb_json_parse's "line L, column C: what" into "FILE:L':C: what"
 * (L' counted from src->line0) and return st.
 */
enum arb_status located_parse(struct arb_err *err, enum arb_status st, const struct src *src,
                              const char *parse_msg);

/* ---- shape.c ------------------------------------------------------------------------- */

/*
 * Validate instance against schema (compiled from schema_doc at start, see
 * suite_schema_load).  ARB_OK when it conforms; otherwise ARB_ESCHEMA with the
 * violation that comes first in the text, in words ("unknown key 'x' (valid:
 * a, b)", "expected an integer, got a string"), located in src.  Pointers in
 * messages get prefix in front (the case's pointer inside the suite).
 */
enum arb_status shape_check(const struct arb_schema *schema, const cJSON *schema_doc,
                            const char *start, const cJSON *instance, const struct src *src,
                            const char *prefix, struct arb_err *err);

/* ---- checks.c ------------------------------------------------------------------------ */

/* What compiling a check of a suite needs. */
struct check_env {
    const struct src *src;
    const cJSON *fields_map; /* the suite's map, injected into fields checks without one */
    struct arb_check_opts opts;
    const struct arb_expectation *suite_exps; /* ids a case's expectations must not reuse */
    size_t n_suite_exps;
    struct arb_suite *record; /* at load: each expected_file met is added to its files */
};

/* Add name (as written), read at path, to s->files unless it is there.  ARB_ENOMEM. */
enum arb_status suite_add_file(struct arb_suite *s, const char *name, const char *path);

/*
 * Compile the check cfg found at pointer ptr: inject the fields map where a
 * fields check lacks one, compile, refuse a check with a compile-time problem
 * (invalid regex), and return the effective config's RFC 8785 text in *json.
 * Errors are located in env->src.
 */
enum arb_status compile_check(const struct check_env *env, const cJSON *cfg, const char *ptr,
                              struct arb_check **out, char **json, struct arb_err *err);

/* Compile the expectations array arr at ptr (may be NULL: none). */
enum arb_status compile_expectations(const struct check_env *env, const cJSON *arr, const char *ptr,
                                     struct arb_expectation **out, size_t *n, struct arb_err *err);

void expectations_free(struct arb_expectation *e, size_t n);

/* ---- lines.c ------------------------------------------------------------------------- */

/* A JSONL file read one line at a time, each line at most cap bytes. */
struct line_reader {
    FILE *f;
    char *name;
    size_t lineno; /* of the line last returned */
    size_t cap;
    struct arb_buf line;
    char *in; /* owned: the bytes read from f and not yet taken, in[at..got) */
    size_t at, got;
};

/* Open path.  ARB_EIO naming the file ("cannot open cases file 'x': reason" uses what). */
enum arb_status line_reader_open(struct line_reader *lr, const char *path, const char *what,
                                 size_t cap, struct arb_err *err);

/*
 * The next non-blank line without its CR/LF (and without a BOM on line 1):
 * 1 with *text, *len set (valid until the next call), 0 at the end, or a
 * negated status (-ARB_ETOOBIG for a line over the cap, which is skipped, so
 * reading can go on; -ARB_EIO).
 */
int line_reader_next(struct line_reader *lr, const char **text, size_t *len, struct arb_err *err);

void line_reader_close(struct line_reader *lr);

/* ---- ahead.c ------------------------------------------------------------------------- */

/*
 * A JSONL file's lines read and parsed on a thread of their own, ahead of the caller's
 * (ahead.c).  ahead_start takes over reading lr (which must outlive it); ahead_next gives the
 * lines in order: 1 with *l (text valid until the next call; obj, the parse, the caller's to
 * free, NULL when parse_st, which has its message in parse_err), 0 at the end, or a negated
 * status with err set, as line_reader_next gives them.  ahead_free stops the thread and frees
 * what was not taken.  ahead_start: ARB_ENOMEM, or ARB_EINTERNAL when no thread starts.
 */
struct ahead;
struct ahead_line {
    const char *text;
    size_t len, lineno;
    cJSON *obj;
    enum arb_status parse_st;
    struct arb_err parse_err;
};
enum arb_status ahead_start(struct line_reader *lr, struct ahead **out);
int ahead_next(struct ahead *a, struct ahead_line *l, struct arb_err *err);
void ahead_free(struct ahead *a);

/* Hand back obj, the parse of the line ahead_next gave last, before the next call: freed there. */
void ahead_recycle(struct ahead *a, cJSON *obj);

/* ---- idset.c ------------------------------------------------------------------------- */

/* A set of ids' fingerprints, each with where it was first seen (a line or an index). */
struct idset {
    struct arb_fpset fps;
};

/*
 * Add id seen at where.  Returns 1 when added, 0 when an id of the same
 * fingerprint was already there (then *first receives where it was first seen:
 * the caller confirms it is the same id), -ARB_ENOMEM.
 */
int idset_add(struct idset *set, const char *id, size_t where, size_t *first);

void idset_release(struct idset *set);

/* ---- paths --------------------------------------------------------------------------- */

/* dir/rel, or rel itself when it is absolute or dir is "." (malloc'd; NULL on ENOMEM). */
char *path_join(const char *dir, const char *rel);

/* Hex SHA-256 of data into hex[65]. ARB_EINTERNAL when OpenSSL fails. */
enum arb_status sha256_hex(const void *data, size_t len, char hex[65]);

/* Case reader with the suite text (NULL: read from s->path when an error needs it). */
enum arb_status case_reader_open_text(const struct arb_suite *s, const char *text, size_t len,
                                      struct arb_case_reader **out, struct arb_err *err);

/* Have the reader add the expected_files of the cases it reads to s (the load's pass). */
void case_reader_record(struct arb_case_reader *r, struct arb_suite *s);

/*
 * A cases file smaller than this is read on the caller's thread (case_reader_ahead): below
 * it, starting the thread and waiting on its first block cost more than the parsing it
 * overlaps.  Measured on 2 cores, the whole read: 500 cases (30 KB) 2.0 ms with the thread
 * against 0.2 ms without, 20,000 (0.7 MB) 9.4-11.0 ms against 7.2-7.6, 60,000 (2.1 MB)
 * about even, 200,000 (7.3 MB) 59-76 ms against 74-80.
 */
#define AHEAD_MIN_BYTES ((off_t)2 << 20)

/*
 * Have the reader of a cases file read and parse its lines on a thread of their own (ahead.c),
 * for a pass that only checks them (the load's), when the machine has a core for it and the
 * file holds AHEAD_MIN_BYTES or more; the cases, errors and their order are the same.
 * Without a thread it reads them itself.  1 when they are read on the thread.
 */
int case_reader_ahead(struct arb_case_reader *r);

/* arb_case_release(c) for a case r just gave: its parse is freed where it was made. */
void case_reader_release(struct arb_case_reader *r, struct arb_case *c);

#endif
