/*
 * store_cache.c - the judge's cache and record backed by the store
 * (struct arb_judge_cache, judge.h): judge_calls is the cache every run
 * shares, judgments what one run used.  A call and the judgment that
 * follows it are one transaction: put_call opens it, put_judgment commits,
 * so a kill between the two loses both and a resume asks again, never
 * finds a call without the judgment that used it.  While the judge holds
 * them (hold), those transactions are a group commit's (store_txn.c).  A lookup by slot reads
 * what the recorded run (a replay's or a resume's) used for that slot
 * (store_recorded.c), in the store replies are read from.  The judge itself never
 * opens a database (DESIGN.md "The judge harness": it reaches storage
 * only through this interface).
 */
#include <string.h>

#include "store_int.h"

/* With a slot: what the recorded run used there (nothing without one); else key's call. */
static enum arb_status get(void *ctx, const char *key, const struct arb_judge_slot *slot,
                           int (*fn)(void *arg, const struct arb_judge_call_row *c), void *arg,
                           int *found, struct arb_err *err)
{
    struct arb_store_judge_cache *sc = ctx;
    struct arb_store *from = sc->replies ? sc->replies : sc->st;

    *found = 0;
    if (slot && !sc->recorded)
        return ARB_OK;
    if (slot)
        return arb_store_get_recorded_call(from, sc->recorded, slot, fn, arg, found, err);
    return arb_store_get_judge_call(from, key, fn, arg, found, err);
}

static enum arb_status put_call(void *ctx, const struct arb_judge_call_row *c,
                                struct arb_err *err)
{
    struct arb_store_judge_cache *sc = ctx;
    enum arb_status st = ARB_OK;

    if (!sc->open) {
        st = arb_store_begin(sc->st, err);
        sc->open = st == ARB_OK;
    }
    if (!st)
        st = arb_store_put_judge_call(sc->st, c, err);
    if (st && sc->open) {
        arb_store_rollback(sc->st);
        sc->open = 0;
    }
    return st;
}

static enum arb_status put_judgment(void *ctx, const struct arb_judgment_row *j,
                                    struct arb_err *err)
{
    struct arb_store_judge_cache *sc = ctx;
    enum arb_status st = ARB_OK;

    if (!sc->open)
        st = arb_store_begin(sc->st, err);
    if (!st)
        st = arb_store_put_judgment(sc->st, sc->run, j, err);
    if (!st)
        st = arb_store_commit(sc->st, err);
    else
        arb_store_rollback(sc->st);
    sc->open = 0;
    return st;
}

/* The judge's puts held in a group commit of st (arb_store_group_begin), with whatever else
 * its connection commits meanwhile (the run's verdicts). */
static enum arb_status hold(void *ctx, int on, struct arb_err *err)
{
    struct arb_store_judge_cache *sc = ctx;

    return on ? arb_store_group_begin(sc->st, err) : arb_store_group_end(sc->st, err);
}

void arb_store_judge_cache_init(struct arb_store_judge_cache *sc, struct arb_store *st,
                                int64_t run)
{
    memset(sc, 0, sizeof(*sc));
    sc->st = st;
    sc->run = run;
    sc->cache.ctx = sc;
    sc->cache.get = get;
    sc->cache.put_call = put_call;
    sc->cache.put_judgment = put_judgment;
    sc->cache.hold = hold;
}
