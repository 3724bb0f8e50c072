/*
 * fpset.h - a set of strings kept as 64-bit fingerprints, with a 64-bit value
 * each (open addressing, linear probing).
 *
 * For the sets a run keeps of every case id: 16 bytes a slot whatever the
 * length of the id (a strset holds a copy of each key besides), at most four
 * fifths full, so a million ids take 26 MB.  Two different keys with the same fingerprint are one
 * entry: with a well-mixed 64-bit hash that happens with probability about n^2 / 2^65 (3e-8 for a
 * million keys), so a caller for whom a false "already there" matters confirms a hit by other means
 * (cases.c re-reads the first case).
 */
#ifndef ARBITER_FPSET_H
#define ARBITER_FPSET_H

#include <stddef.h>
#include <stdint.h>

#include "arbiter/status.h"

struct arb_fpset_slot {
    uint64_t fp; /* 0: empty */
    uint64_t value;
};

struct arb_fpset {
    struct arb_fpset_slot *slots; /* owned */
    size_t cap;                   /* slots (below 2^32), or 0 */
    size_t n;
};

void arb_fpset_init(struct arb_fpset *s);
void arb_fpset_release(struct arb_fpset *s);

/* The fingerprint of key (never 0). */
uint64_t arb_fpset_hash(const char *key);

/*
 * Add key with value unless its fingerprint is there.  *added is 1 when it was
 * new; *value_out, when given, points at the entry's value (valid until the next
 * add), which the caller may change.  ARB_ENOMEM.
 */
enum arb_status arb_fpset_add(struct arb_fpset *s, const char *key, uint64_t value, int *added,
                              uint64_t **value_out);

/* Make room for n entries in all (one allocation, no growth until then).  ARB_ENOMEM. */
enum arb_status arb_fpset_reserve(struct arb_fpset *s, size_t n);

/* Add the fingerprint fp (arb_fpset_hash's, never 0) as arb_fpset_add adds a key. */
enum arb_status arb_fpset_add_fp(struct arb_fpset *s, uint64_t fp, uint64_t value, int *added,
                                 uint64_t **value_out);

/* The value of key's entry, which the caller may change, or NULL when absent. */
uint64_t *arb_fpset_get(const struct arb_fpset *s, const char *key);

#endif
