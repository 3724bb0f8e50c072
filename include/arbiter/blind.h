/*
 * blind.h - who is shown as "A", and what a judge may see.
 *
 * For each case the system shown as A is chosen by HMAC-SHA256 keyed with
 * the run's seed over the case id: reproducible, independent of case order,
 * and balanced over many cases (each bit of an HMAC is a fair coin).  With
 * more than two systems, pair k (in the order i < j over the suite's systems)
 * uses bit k % 256 of the HMAC of block k / 256: block 0 is the HMAC of the
 * case id, block b > 0 that of the case id, a NUL byte and b as 8 big-endian
 * bytes (a tournament of N systems has N(N-1)/2 pairs: 24 systems pass 256).
 *
 * Redaction replaces every configured identifying string (and the system
 * names) in text a judge will see, ignoring ASCII case, by "[REDACTED]",
 * where it stands as a whole word (not inside a longer word), in any
 * spelling JSON allows: any of its characters may be a \uXXXX escape (hex
 * digits in either case; a surrogate pair for a character past U+FFFF) or a
 * short escape (\/, \n, ...), after any number of backslashes, so text
 * escaped twice ("gpt\\u002d4o" in a JSON output) is found too.
 */
#ifndef ARBITER_BLIND_H
#define ARBITER_BLIND_H

#include <stddef.h>
#include <stdint.h>

#include "arbiter/buf.h"
#include "arbiter/status.h"

/*
 * Decide pair k for case_id: *first_is_a is 1 when the pair's first system
 * (the one listed first in the suite) is shown as A.  hmac_hex, when given,
 * receives the 64 hex digits (of pair k's block) and a NUL.  ARB_EINTERNAL
 * if OpenSSL fails, ARB_ENOMEM.
 */
enum arb_status arb_blind_assign(uint64_t seed, const char *case_id, size_t k, int *first_is_a,
                                 char *hmac_hex);

/*
 * The same decisions with the HMAC set up once for a seed (arb_blind_assign
 * sets it up on every call, which costs more than the hashing).  _new gives
 * ARB_ENOMEM or ARB_EINTERNAL; _assign as arb_blind_assign.
 */
struct arb_blinder;
enum arb_status arb_blinder_new(uint64_t seed, struct arb_blinder **b);
enum arb_status arb_blinder_assign(struct arb_blinder *b, const char *case_id, size_t k,
                                   int *first_is_a, char *hmac_hex);
void arb_blinder_free(struct arb_blinder *b);

/*
 * Shards (arbiter run --shard K/N): case_id's bucket among n is taken from
 * the HMAC that blinds its first pair (block 0 above), so it is as stable as
 * the blinding (the seed and the case id alone: every machine, any case
 * order, any other cases) and costs no second hash.  The bucket is
 *
 *     1 + (bytes 24..31 of HMAC-SHA256(seed, case id), big-endian) mod n
 *
 * i.e. the last 16 hex digits of the blinding row's hmac, as a number, mod
 * n, plus 1.  Those bits are bits 192 to 255 of block 0, which no A/B
 * decision reads unless a run has more than 192 pairs (21 systems or more;
 * then pairs 192 and up share bits with the bucket: a shard's own blinding is
 * no less correct, only less independent of which shard the case is in).
 * The modulo's bias is below n / 2^64.
 *
 * arb_shard_of_hmac: the bucket, 1 to n, of a 32-byte MAC (0 when n is 0).
 * arb_blinder_shard: *k the bucket (1 to n, n >= 1) of case_id under b's
 * seed; ARB_EINTERNAL if OpenSSL fails (*k is then 0).
 */
unsigned arb_shard_of_hmac(const unsigned char mac[32], unsigned n);
enum arb_status arb_blinder_shard(struct arb_blinder *b, const char *case_id, unsigned n,
                                  unsigned *k);

#define ARB_REDACTED "[REDACTED]"

/*
 * Append text with every occurrence of each of the n strings (ASCII
 * case-insensitive, plain or JSON-escaped as above; empty strings ignored;
 * longest first where they overlap) replaced by ARB_REDACTED.  *count, when
 * given, receives the number of replacements.
 */
enum arb_status arb_redact(const char *text, size_t len, const char *const *strings, size_t n,
                           struct arb_buf *out, size_t *count);

enum arb_redact_flags {
    /* Match anywhere, not only as whole words: for secrets, which may be glued to anything
     * ("Bearer sk-...", "key=sk-..."), where a name must not eat part of another word. */
    ARB_REDACT_ANYWHERE = 1 << 0
};

/*
 * As arb_redact, with flags.  Matches that overlap or touch are replaced as
 * one: no tail of a second string survives a first one that starts earlier.
 * Linear in len for a fixed set of strings.
 */
enum arb_status arb_redact_flags(const char *text, size_t len, const char *const *strings,
                                 size_t n, unsigned flags, struct arb_buf *out, size_t *count);

#endif
