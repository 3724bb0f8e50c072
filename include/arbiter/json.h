/*
 * json.h - JSON parsing with located errors, RFC 8785 canonicalization and
 * deep equality, on top of cJSON.
 *
 * cJSON (1.7.15) is the parser, but it has limits Arbiter handles on purpose:
 *  - a "\u0000" escape truncates the string it is in: arb_json_parse refuses
 *    such input (ARB_EPARSE, "string contains \u0000") rather than compare a
 *    silently shortened value; with ARB_JSON_ALLOW_NUL (the comparators) it
 *    holds U+0000 as the two bytes C0 80 (the overlong form valid UTF-8 never
 *    contains, Java's "modified UTF-8"), so the string keeps its length and
 *    compares as itself; arb_jcs_write writes it back as "\u0000";
 *  - duplicate object keys are kept: arb_json_parse refuses them when
 *    ARB_JSON_NO_DUPLICATES is given (RFC 8785 and I-JSON require it), and
 *    with ARB_JSON_LAST_KEY_WINS keeps only the last value of a repeated key,
 *    as Python's json and JavaScript's JSON.parse do;
 *  - numbers that overflow a double (1e400) become inf: refused as ARB_EPARSE;
 *  - nesting deeper than CJSON_NESTING_LIMIT (1000) fails to parse: reported
 *    as ARB_ETOOBIG with its location, never a stack overflow;
 *  - cJSON does not check UTF-8: arb_json_parse does.
 * cJSON's printer is not canonical (it loses digits of 9007199254740992), so
 * canonical output is produced here, never by cJSON_Print.
 *
 * Ownership: every cJSON tree returned is the caller's, freed with cJSON_Delete.
 */
#ifndef ARBITER_JSON_H
#define ARBITER_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "arbiter/buf.h"
#include "arbiter/status.h"

enum arb_json_flags {
    ARB_JSON_NO_DUPLICATES = 1 << 0, /* duplicate keys in an object are an error */
    ARB_JSON_ALLOW_BOM = 1 << 1,     /* skip a leading UTF-8 byte order mark */
    ARB_JSON_ALLOW_NUL = 1 << 2,     /* "\u0000" is held as the bytes C0 80 (see below) */
    ARB_JSON_LAST_KEY_WINS = 1 << 3  /* a repeated object key keeps its last value only */
};

/*
 * Parse text[0..len) as one JSON value (surrounding white space allowed).
 * On failure returns ARB_EPARSE or ARB_ETOOBIG and writes
 * "line L, column C: what was wrong" into err (columns count code points, from 1).
 * *out is set only on success.
 */
enum arb_status arb_json_parse(const char *text, size_t len, unsigned flags, cJSON **out,
                               struct arb_err *err);

/*
 * As arb_json_parse; with ARB_JSON_LAST_KEY_WINS and dups not NULL, the JSON pointer of each
 * repeated key ("/a", "/items/0/id") is appended once to dups, each followed by a NUL byte.
 */
enum arb_status arb_json_parse_ex(const char *text, size_t len, unsigned flags, cJSON **out,
                                  struct arb_buf *dups, struct arb_err *err);

/*
 * As arb_json_parse_ex, for the members named names[0..n) of an object only: values[i] receives
 * a new tree of the value arb_json_parse_ex's tree holds under names[i] (as
 * cJSON_GetObjectItemCaseSensitive finds it; a name listed twice gets it at its first place
 * only), or NULL; the caller frees each.  *is_object is 0 when the text is JSON but not an
 * object.  The other members are checked but not built when no key may repeat (dups then stays
 * empty).  Errors as arb_json_parse_ex, every values[i] then NULL.
 */
enum arb_status arb_json_parse_members(const char *text, size_t len, unsigned flags,
                                       const char *const *names, size_t n, cJSON **values,
                                       int *is_object, struct arb_buf *dups, struct arb_err *err);

/*
 * Append the RFC 8785 (JCS) canonical form of v to out: object members sorted
 * by the UTF-16 code units of their names, no white space, ECMAScript number
 * form, minimal string escapes.  ARB_ESCHEMA for a non-finite number,
 * ARB_ENOMEM / ARB_ETOOBIG from the buffer.
 */
enum arb_status arb_jcs_write(const cJSON *v, struct arb_buf *out, struct arb_err *err);

/*
 * As arb_jcs_write, for v written inside depth enclosing containers (an object written member by
 * member: depth 1), which count towards the nesting limit as when the whole is written.
 */
enum arb_status arb_jcs_write_at(const cJSON *v, int depth, struct arb_buf *out,
                                 struct arb_err *err);

/* Compare member names a and b in RFC 8785 order (UTF-16 code units; C0 80 is U+0000). */
int arb_jcs_name_cmp(const char *a, const char *b);

/* As arb_jcs_write, into a malloc'd string the caller frees (*len_out optional). */
enum arb_status arb_jcs_string(const cJSON *v, char **out, size_t *len_out, struct arb_err *err);

/*
 * The text of a string s that ARB_JSON_ALLOW_NUL read (a name or a value): a malloc'd copy, the
 * caller frees, with each C0 80 turned back into a NUL byte; *len is its length in bytes (the
 * copy is also NUL-terminated).  NULL when out of memory.
 */
char *arb_json_text(const char *s, size_t *len);

/*
 * Write d in ECMAScript Number::toString form (shortest round-trip digits:
 * 1e+21, 1e-7, 0.000001, 333333333.3333333, -0 as "0") into out, which must
 * hold at least ARB_JSON_NUMBER_MAX bytes.  d must be finite.  Returns length.
 */
#define ARB_JSON_NUMBER_MAX 32
size_t arb_json_number_format(double d, char *out);

/*
 * Append v as compact JSON, byte for byte what cJSON_PrintUnformatted(v) returns (members in
 * tree order, cJSON's escapes and number forms), only faster.  ARB_ENOMEM, or ARB_EUSAGE for
 * a tree cJSON cannot print either (a raw item without text, an unknown type).
 */
enum arb_status arb_json_print(const cJSON *v, struct arb_buf *out);

/* As arb_json_print, into a malloc'd string of its length that the caller frees (*len
 * optional); NULL on failure. */
char *arb_json_print_string(const cJSON *v, size_t *len);

/*
 * Deep equality as JSON values: numbers by numeric value (1 == 1.0), objects
 * regardless of member order, arrays in order, strings by bytes.  Booleans
 * are not numbers.  Returns 1 when equal, 0 otherwise.
 */
int arb_json_equal(const cJSON *a, const cJSON *b);

/*
 * Resolve an RFC 6901 JSON pointer ("" is the whole document, "/a/0/b~1c").
 * Returns the node (borrowed from root) or NULL when it does not exist or the
 * pointer is malformed.
 */
const cJSON *arb_json_pointer(const cJSON *root, const char *pointer);

/* Append "/" and one reference token to the JSON pointer in p, escaping ~ and /. */
enum arb_status arb_json_pointer_push(struct arb_buf *p, const char *token);

/*
 * How many of the first bytes of s[0..n), a multiple of 8, a JSON string holds as they are: no
 * byte under 0x20, '"' or '\\', and with ascii none from 0x80 either (bytes the caller checks as
 * UTF-8).  Eight bytes at a time (a zero byte of x ^ c is found as (y - 0x01..) & ~y & 0x80..,
 * exact for "any"); the writers of records look at the rest one by one.
 */
static inline size_t arb_json_plain8(const char *s, size_t n, int ascii)
{
    const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
    size_t i = 0;

    while (n - i >= 8) {
        uint64_t x, q, b, hit;

        memcpy(&x, s + i, 8);
        q = x ^ (ones * '"');
        b = x ^ (ones * '\\');
        hit = ((x - ones * 0x20) & ~x) | ((q - ones) & ~q) | ((b - ones) & ~b);
        if ((hit & high) || (ascii && (x & high)))
            break;
        i += 8;
    }
    return i;
}

#endif
