/*
 * fpset.c - a set of string fingerprints with values (see include/arbiter/fpset.h).
 *
 * The hash reads the key eight bytes at a time through a 64-bit bijective mixer
 * (the finalizer of splitmix64), so two keys of one length up to eight bytes
 * never collide and other keys collide like random values.  The table grows by half when it
 * would be more than four fifths full (a table that doubled at three quarters full held a
 * million ids in 2^21 slots, 32 MB, and 48 MB while it grew; now 1.6 million slots, 26 MB,
 * and 43 MB while growing), and is one array, so releasing it gives its memory back at once.
 * A fingerprint's home slot is its top 32 bits scaled to the capacity (any capacity below
 * 2^32), and the probe wraps around.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "arbiter/fpset.h"

/*
 * A table of 1 MB or more is a mapping of its own, unmapped when freed: malloc would serve it
 * from its heap once a larger block had been freed (glibc raises its mmap threshold to the
 * largest block freed), and a table left behind by a growth stayed in the heap, resident (at a
 * million cases, about 18 MB of a run's peak).
 */
#define MAPPED_BYTES ((size_t)1 << 20)

static struct arb_fpset_slot *slots_alloc(size_t cap)
{
    void *p;

    if (cap * sizeof(struct arb_fpset_slot) < MAPPED_BYTES)
        return calloc(cap, sizeof(struct arb_fpset_slot));
    p = mmap(NULL, cap * sizeof(struct arb_fpset_slot), PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    madvise(p, cap * sizeof(struct arb_fpset_slot), MADV_HUGEPAGE);
    return p; /* zero-filled, as calloc's */
}

static void slots_free(struct arb_fpset_slot *slots, size_t cap)
{
    if (slots && cap * sizeof(*slots) >= MAPPED_BYTES)
        munmap(slots, cap * sizeof(*slots));
    else
        free(slots);
}

void arb_fpset_init(struct arb_fpset *s)
{
    memset(s, 0, sizeof(*s));
}

void arb_fpset_release(struct arb_fpset *s)
{
    slots_free(s->slots, s->cap);
    arb_fpset_init(s);
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

uint64_t arb_fpset_hash(const char *key)
{
    size_t len = strlen(key), i;
    uint64_t h = mix(len + 0x9e3779b97f4a7c15ull), w;

    for (i = 0; i + 8 <= len; i += 8) {
        memcpy(&w, key + i, 8);
        h = mix(h ^ w) + 0x9e3779b97f4a7c15ull;
    }
    if (i < len) {
        w = 0;
        memcpy(&w, key + i, len - i);
        h = mix(h ^ w);
    }
    return h ? h : 1;
}

static struct arb_fpset_slot *find(struct arb_fpset_slot *slots, size_t cap, uint64_t fp)
{
    size_t i = (size_t)(((fp >> 32) * (uint64_t)cap) >> 32);

    while (slots[i].fp && slots[i].fp != fp)
        i = i + 1 == cap ? 0 : i + 1;
    return &slots[i];
}

/* Move the entries into a table of cap slots. */
static enum arb_status resize(struct arb_fpset *s, size_t cap)
{
    struct arb_fpset_slot *slots;
    size_t i;

    if (cap > UINT32_MAX)
        return ARB_ENOMEM;
    slots = slots_alloc(cap);
    if (!slots)
        return ARB_ENOMEM;
    for (i = 0; i < s->cap; i++)
        if (s->slots[i].fp)
            *find(slots, cap, s->slots[i].fp) = s->slots[i];
    slots_free(s->slots, s->cap);
    s->slots = slots;
    s->cap = cap;
    return ARB_OK;
}

enum arb_status arb_fpset_reserve(struct arb_fpset *s, size_t n)
{
    size_t cap = n / 4 * 5 + n % 4 * 5 / 4 + 2;

    return cap > s->cap ? resize(s, cap) : ARB_OK;
}

enum arb_status arb_fpset_add(struct arb_fpset *s, const char *key, uint64_t value, int *added,
                              uint64_t **value_out)
{
    return arb_fpset_add_fp(s, arb_fpset_hash(key), value, added, value_out);
}

enum arb_status arb_fpset_add_fp(struct arb_fpset *s, uint64_t fp, uint64_t value, int *added,
                                 uint64_t **value_out)
{
    struct arb_fpset_slot *e;

    if ((s->n + 1) * 5 > s->cap * 4) {
        enum arb_status st = resize(s, s->cap ? s->cap + s->cap / 2 : 64);

        if (st)
            return st;
    }
    e = find(s->slots, s->cap, fp);
    *added = !e->fp;
    if (!e->fp) {
        e->fp = fp;
        e->value = value;
        s->n++;
    }
    if (value_out)
        *value_out = &e->value;
    return ARB_OK;
}

uint64_t *arb_fpset_get(const struct arb_fpset *s, const char *key)
{
    struct arb_fpset_slot *e;

    if (!s->cap)
        return NULL;
    e = find(s->slots, s->cap, arb_fpset_hash(key));
    return e->fp ? &e->value : NULL;
}
