/*
 * jscan.h - the library's one scanner of JSON text (jscan.c) and the locator beside it
 * (jlocate.c).  Internal: shared by src/util/json.c (arb_json_parse), src/suite/locate.c (errors
 * located in suites and config files), src/calibrate/jsonl.c (labels files) and
 * src/report/view.c (a stored comparison.json read without a tree); not installed.
 *
 * A text is read one of two ways:
 *  - arb_jscan_check judges it strictly (RFC 8259, UTF-8, no "\u0000", bounded depth) and names
 *    the first error by byte offset: the front of arb_json_parse, before cJSON builds a tree;
 *  - a cursor (struct arb_jscan) steps over a text already known to be JSON, checked by
 *    arb_jscan_check or written by cJSON, the way cJSON reads it: white space is any byte from 1
 *    to 32, a string ends at its first unescaped quote and decodes as cJSON decodes it, a number
 *    reads as cJSON reads it.  What the cursor steps over it only delimits, never checks; on any
 *    other text it stays within the length it was given and says where it cannot go on.
 * The locator turns an offset into "line L, column C" and a JSON pointer into the offset of the
 * value it names, on text arb_jscan_check accepted.
 *
 * Nothing here is global and nothing is allocated but what goes into a caller's arb_buf.
 */
#ifndef ARBITER_UTIL_JSCAN_H
#define ARBITER_UTIL_JSCAN_H

#include <stddef.h>

#include "arbiter/buf.h"
#include "arbiter/status.h"

/* ---- the strict check (jscan.c) ---------------------------------------------------------- */

/* What arb_jscan_check found. */
struct arb_jscan_report {
    size_t value_end; /* success: the offset just past the value (white space may follow) */
    int maybe_inf;    /* success: some number may overflow a double (check it once converted) */
    size_t nuls;      /* success of arb_jscan_check_nul: how many "\u0000" escapes there are */
    int maybe_dup;    /* success: some object may repeat a key (0: none does) */
    size_t err_at;    /* failure: the offset of the first error */
    char what[160];   /* failure: what is wrong there ("unterminated string") */
};

/*
 * Check that s[0..len) is one JSON value with only white space around it: the grammar, UTF-8
 * everywhere, escapes (no "\u0000", no unpaired surrogate), number syntax, nesting at most
 * CJSON_NESTING_LIMIT levels (what cJSON builds).  Needs no allocation and no recursion.
 * ARB_OK; ARB_EPARSE, or ARB_ETOOBIG for nesting too deep, with r->err_at and r->what set.
 */
enum arb_status arb_jscan_check(const char *s, size_t len, struct arb_jscan_report *r);

/* As arb_jscan_check, but "\u0000" in a string is allowed and counted in r->nuls. */
enum arb_status arb_jscan_check_nul(const char *s, size_t len, struct arb_jscan_report *r);

/* ---- the cursor (jscan.c) ---------------------------------------------------------------- */

struct arb_jscan {
    const char *s; /* the text (borrowed) */
    size_t len;    /* nothing at or past s[len] is read */
    size_t pos;    /* the cursor: an offset into s */
};

/* 3 when s[0..len) starts with a UTF-8 byte order mark, else 0. */
size_t arb_jscan_bom(const char *s, size_t len);

/* Past white space, as cJSON skips it: every byte from 1 to 32. */
static inline void arb_jscan_ws(struct arb_jscan *sc)
{
    while (sc->pos < sc->len && (unsigned char)sc->s[sc->pos] - 1u < 32u)
        sc->pos++;
}

/*
 * Past the value at the cursor: a string with its escapes, brackets nested, or a run of other
 * bytes (a number or literal, not checked) up to white space, ',' or a bracket.  0, or -1 when
 * no value can be delimited there (an unterminated string, an unbalanced bracket, nothing).
 */
int arb_jscan_skip(struct arb_jscan *sc);

/*
 * Decode the string at the cursor (on its opening quote) onto the end of out, then a NUL byte,
 * and step past it.  As cJSON decodes: "\u" with digits that are not hex is U+0000 (so is
 * "\u0000": the string then reads shorter as a C string).  ARB_OK; ARB_EPARSE (cursor unmoved)
 * when no string is there, a string is unterminated, an escape is not JSON or a surrogate is
 * unpaired; ARB_ENOMEM or ARB_ETOOBIG from out.
 */
enum arb_status arb_jscan_string(struct arb_jscan *sc, struct arb_buf *out);

/*
 * Read the number at the cursor into *out as cJSON reads one: a '-' or a digit starts it, the
 * run of [0-9+-.eE] after it is converted (strtod in the C locale, or exactly m / 10^k when the
 * run is -DIGITS[.DIGITS] with at most 15 digits) and the number ends where the conversion
 * stopped.  1 read (cursor past it), 0 no number there (cursor unmoved), -1 out of memory.
 */
int arb_jscan_number(struct arb_jscan *sc, double *out);

/* The literal at the cursor: 't', 'f' or 'n' with the cursor past it, or 0 (cursor unmoved). */
int arb_jscan_literal(struct arb_jscan *sc);

/*
 * At an object's or array's opening bracket: past it and white space.  1 when an item follows,
 * 0 when the container closes at once (the cursor past the closer), -1 when no bracket is there.
 */
int arb_jscan_open(struct arb_jscan *sc);

/*
 * After an item of the container that close ('}' or ']') ends: 1 when ',' follows (the cursor on
 * the next item), 0 at close (the cursor past it), -1 anything else.
 */
int arb_jscan_next(struct arb_jscan *sc, char close);

/* After a member name: white space, ':', white space.  0, or -1 when no ':' is there. */
int arb_jscan_colon(struct arb_jscan *sc);

/* ---- the locator (jlocate.c) ------------------------------------------------------------- */

struct arb_jscan_pos {
    size_t line, col; /* from 1; LF, CR and CRLF each end a line; columns count code points */
};

/* The line and column of offset at in s[0..len). */
struct arb_jscan_pos arb_jscan_pos(const char *s, size_t len, size_t at);

/* Set err to "line L, column C: what" for offset at of s[0..len) and return st. */
enum arb_status arb_jscan_err_at(struct arb_err *err, enum arb_status st, const char *s, size_t len,
                                 size_t at, const char *what);

/* The items of one object or array, in order (the text must be JSON). */
struct arb_jscan_items {
    struct arb_jscan sc;
    char close;      /* '}' an object, ']' an array, 0 neither */
    int state;       /* 0 before the first item, 1 at an item, -1 done */
    size_t index;    /* the current item's, from 0 */
    size_t key_at;   /* its member name's opening quote (an array element: value_at) */
    size_t key_end;  /* just past the member name's closing quote (an element: value_at) */
    size_t value_at; /* its value */
};

/* Start at the container whose opening bracket is at offset at of s[0..len). */
void arb_jscan_items_init(struct arb_jscan_items *it, const char *s, size_t len, size_t at);

/* Step to the next item: 1 with index, key_at, key_end and value_at set, 0 after the last. */
int arb_jscan_items_next(struct arb_jscan_items *it);

/*
 * The value at an RFC 6901 JSON pointer ("" the whole text, "/a~1b/0"), in s[0..len): its offset
 * in *value_at and, for an object member, its name's (else the value's) in *key_at.  Where a key
 * repeats, the first value in the text that the pointer names.  1 found; 0 not (also when memory
 * runs out).
 */
int arb_jscan_find(const char *s, size_t len, const char *pointer, size_t *value_at,
                   size_t *key_at);

/*
 * As arb_jscan_find, as positions: a leading byte order mark is skipped and not counted.  *value
 * and *key are set only when found (1).
 */
int arb_jscan_locate(const char *s, size_t len, const char *pointer, struct arb_jscan_pos *value,
                     struct arb_jscan_pos *key);

#endif
