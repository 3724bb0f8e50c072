/*
 * store_texts.c - the texts the store wrote lately, to refer to again instead of writing them
 * once more: check records' texts (store_checks.c, migration 10) and verdicts' comparison.json
 * (store_verdicts.c, migration 11).
 *
 * A small table keyed by a hash of the text and where it was cut (at[]; a verdict's text is
 * marked STORE_TEXT_VERDICT there, so it never answers for a check's), each with its bytes, so
 * a hit is compared byte for byte.  A slot whose text was referred to again yields only when
 * its text has gone unused as often, so the texts a run repeats stay among the unique ones.  A
 * rollback can take written texts back, so every rollback forgets them all (a hook on the
 * connection, and store_runs.c's savepoint).
 */
#include <stdlib.h>
#include <string.h>

#include "store_int.h"

#define TEXT_SLOTS     1024 /* remembered texts; a power of two */
#define TEXT_MAX_BYTES 4096 /* longer texts are not remembered */

struct text_slot {
    uint64_t hash;
    int64_t run, id;
    int64_t at[2]; /* expected_at, observed_at; -1: not cut; STORE_TEXT_VERDICT: a verdict's */
    size_t len;
    char *body; /* owned; NULL: empty slot */
    unsigned hits;
};

struct store_texts {
    struct text_slot slot[TEXT_SLOTS];
};

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

uint64_t store_text_hash(int64_t run, const int64_t at[2], const char *s, size_t len)
{
    uint64_t h =
        mix((uint64_t)run * 0x9e3779b97f4a7c15ull ^ (uint64_t)at[0] << 32 ^ (uint64_t)at[1] ^ len);
    size_t i = 0;

    for (; i + 8 <= len; i += 8) {
        uint64_t w;

        memcpy(&w, s + i, 8);
        h = (h ^ w) * 0x100000001b3ull;
        h ^= h >> 29;
    }
    for (; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    return mix(h);
}

void store_texts_forget(struct arb_store *st)
{
    if (!st->texts)
        return;
    for (size_t i = 0; i < TEXT_SLOTS; i++) {
        free(st->texts->slot[i].body);
        st->texts->slot[i].body = NULL;
    }
}

void store_texts_free(struct arb_store *st)
{
    store_texts_forget(st);
    free(st->texts);
    st->texts = NULL;
    arb_buf_release(&st->scratch);
}

int64_t store_text_recall(struct arb_store *st, uint64_t h, int64_t run, const int64_t at[2],
                      const char *s, size_t len)
{
    struct text_slot *t = st->texts ? &st->texts->slot[h & (TEXT_SLOTS - 1)] : NULL;

    if (!t || !t->body || t->hash != h || t->run != run || t->at[0] != at[0] || t->at[1] != at[1] ||
        t->len != len || memcmp(t->body, s, len) != 0)
        return 0;
    t->hits++;
    return t->id;
}

void store_text_remember(struct arb_store *st, uint64_t h, int64_t run, const int64_t at[2],
                     const char *s, size_t len, int64_t id)
{
    struct text_slot *t;
    char *copy;

    if (len > TEXT_MAX_BYTES)
        return;
    if (!st->texts) {
        st->texts = calloc(1, sizeof(*st->texts));
        if (!st->texts)
            return; /* nothing remembered: every text is written */
    }
    t = &st->texts->slot[h & (TEXT_SLOTS - 1)];
    if (t->body && t->hits > 0) {
        t->hits--;
        return;
    }
    copy = malloc(len + 1);
    if (!copy)
        return;
    memcpy(copy, s, len);
    copy[len] = '\0';
    free(t->body);
    *t = (struct text_slot){h, run, id, {at[0], at[1]}, len, copy, 0};
}
