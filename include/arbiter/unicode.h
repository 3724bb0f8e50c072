/*
 * unicode.h - UTF-8 decoding and the few Unicode properties Arbiter needs.
 *
 * Distances count code points, lowercasing is Unicode-aware, and
 * normalizations must behave the same on every machine and every year, so
 * the case and property tables are Arbiter's own (generated from the Unicode
 * Character Database, see src/util/unicode_tables.c), not the C locale's.
 */
#ifndef ARBITER_UNICODE_H
#define ARBITER_UNICODE_H

#include <stddef.h>
#include <stdint.h>

#include "arbiter/buf.h"
#include "arbiter/status.h"

/*
 * Return 1 when s[0..len) is valid UTF-8 (no overlongs, no surrogates, nothing
 * above U+10FFFF), else 0 and, when bad_at is given, the offset of the first
 * invalid byte.
 */
int arb_utf8_valid(const char *s, size_t len, size_t *bad_at);

/*
 * Length (2 to 4) of the well-formed multi-byte sequence at s, reading at most
 * avail bytes, or 0 when it is ill-formed or truncated.  For bytes >= 0x80;
 * it stops at the first bad byte, so a NUL-terminated string may pass 4.
 */
size_t arb_utf8_seq(const char *s, size_t avail);

/*
 * Decode one code point at s[*i], advancing *i.  An invalid sequence decodes
 * as U+FFFD and advances by one byte, so every input decodes.
 */
uint32_t arb_utf8_next(const char *s, size_t len, size_t *i);

/* Encode cp as UTF-8 into out (at least 4 bytes); returns the byte count. */
size_t arb_utf8_encode(uint32_t cp, char *out);

/*
 * Decode s into a freshly malloc'd array of code points (*out, *n).  Invalid
 * bytes become U+FFFD.  ARB_ENOMEM on failure.  The caller frees *out.
 */
enum arb_status arb_utf8_to_cps(const char *s, size_t len, uint32_t **out, size_t *n);

/* Number of code points in s (invalid bytes count one each). */
size_t arb_utf8_count(const char *s, size_t len);

/* Simple (one to one) Unicode lowercase mapping, UnicodeData.txt field 13. */
uint32_t arb_uc_tolower(uint32_t cp);

/* General category P* (punctuation). */
int arb_uc_is_punct(uint32_t cp);

/* Symbols S* (currency, math, modifier and other symbols). */
int arb_uc_is_symbol(uint32_t cp);

/* White_Space property (as Python's str.isspace(), which users of peers know). */
int arb_uc_is_space(uint32_t cp);

/* Append the lowercase of s to out.  Invalid bytes are copied unchanged. */
enum arb_status arb_utf8_lower(const char *s, size_t len, struct arb_buf *out);

#endif
