/*
 * calib_int.h - what the files of src/calibrate/ share: a JSONL file of
 * labelled items read one line at a time, each line parsed as JSON, and
 * errors located in it as "FILE:LINE:COL: /pointer: what was expected"
 * (jsonl.c).  The judge's labels (load.c) and the grey-band tuner's labels
 * (tune_load.c) are both read this way.  Private to the library (not in include/).
 */
#ifndef ARBITER_CALIB_INT_H
#define ARBITER_CALIB_INT_H

#include <stddef.h>

#include <cjson/cJSON.h>

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

#endif
